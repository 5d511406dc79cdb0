/**
 * Pull mode, in workerd: a workload that cannot see its agent's disk (a Slurm step without a shared
 * directory, a pod) fetches its inputs by digest with its run token: its job's capsule files and
 * workspace blobs, and checkpoints of its job's earlier runs. Nothing else: another job's blob, a blob
 * the job does not reference, another job's run, a bad digest and a missing token are refused, coded.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { publishTestCapsule } from "./agent-support.js";
import { api, createUser, customSpec, putBlob } from "./helpers.js";
import { fleetWithNode, type RunFixture, runToken } from "./ingest-helpers.js";

const FLEET = "pull-f";
let op = "";
let capsule: Record<string, string> = {};

async function pull(token: string | null, path: string) {
  const res = await SELF.fetch(`http://sf.test/v1/ingest${path}`, {
    headers: token ? { "x-starforge-token": token } : {},
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let body: { error?: { code: string; message: string } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // bytes, not an error document
  }
  return { status: res.status, text, body };
}

/** A job whose workspace holds `train.sh` (content `file`), dispatched at once; its run and token. */
async function jobWith(
  file: string,
  name: string,
): Promise<RunFixture & { fileDigest: string; manifest: string }> {
  const fileDigest = await putBlob(op, file);
  const manifest = await putBlob(
    op,
    JSON.stringify({
      manifest_version: 1,
      files: [{ path: "train.sh", digest: fileDigest, size: file.length }],
    }),
  );
  const spec = await customSpec({ fleet: FLEET, name, gpus: 1 });
  spec.source.workspace = manifest;
  const r = await api(op, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const detail = await api(op, "GET", `/v1/jobs/${r.body.job.id}`);
  const run = detail.body.runs[0] as { id: string; epoch: number };
  const c = {
    runId: run.id,
    jobId: r.body.job.id as string,
    fleetId: detail.body.job.fleet_id as string,
    epoch: run.epoch,
  };
  return { op, fleet: FLEET, ...c, token: await runToken(c), fileDigest, manifest };
}

beforeAll(async () => {
  capsule = await publishTestCapsule();
  op = await createUser("pull-op");
  await fleetWithNode(FLEET);
});

describe("pull mode: a run fetches its own inputs by digest", () => {
  it("serves the job's capsule files, workspace manifest and files, byte for byte", async () => {
    const f = await jobWith("echo pulled\n", "pull-a");
    for (const digest of [capsule["bootstrap.sh"]!, capsule["runner.pyz"]!, f.manifest, f.fileDigest]) {
      const got = await pull(f.token, `/blobs/${digest}`);
      expect(got.status, got.text).toBe(200);
      expect(await digestOf(got.text)).toBe(digest);
    }
  });

  it("refuses what the job does not reference, another job's blobs, bad digests and a missing token", async () => {
    const a = await jobWith("echo a\n", "pull-b1");
    const b = await jobWith("echo b\n", "pull-b2");
    const other = await pull(a.token, `/blobs/${b.fileDigest}`);
    expect(other.status).toBe(403);
    expect(other.body.error).toMatchObject({ code: "FORBIDDEN" });
    expect(other.body.error!.message).toContain("does not reference");
    const stray = await putBlob(op, "uploaded but not part of any job");
    expect((await pull(a.token, `/blobs/${stray}`)).status).toBe(403);
    expect((await pull(a.token, "/blobs/sha256:nothex")).body.error).toMatchObject({
      code: "INVALID_DIGEST",
    });
    expect((await pull(null, `/blobs/${a.fileDigest}`)).status).toBe(401);
  });

  it("serves checkpoints only of its own job's runs", async () => {
    const a = await jobWith("echo c\n", "pull-c1");
    const b = await jobWith("echo d\n", "pull-c2");
    // Its own run has no such checkpoint: not found (not forbidden).
    const own = await pull(a.token, `/checkpoint?run=${a.runId}&path=checkpoints/step-1.json`);
    expect(own.status).toBe(404);
    const foreign = await pull(a.token, `/checkpoint?run=${b.runId}&path=checkpoints/step-1.json`);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error!.message).toContain(`is not a run of job ${a.jobId}`);
  });
});
