// A control plane of its own (startControlPlane), not the shared one: it points object storage at an S3
// stand-in through the R2_* variables, which are deployment-wide; on the shared plane they would send every
// other file's large uploads to this file's stand-in (and its damaging relay), gone once this file ends.
/**
 * Tier 3: large workspace files go straight to object storage in parts. A real S3-compatible server on
 * loopback (s3rver) stands in for R2's S3 API, behind a TCP relay that measures what is sent and can damage
 * a byte; the control plane and its local forgelet are the real ones. A 300 MB file's upload is killed
 * half-way, the same `sf submit` resumes it sending only the parts not yet stored (measured on the wire),
 * and the job reads the file back intact. A part corrupted on the way is refused by the blob's digest and
 * nothing of it is kept.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startControlPlane } from "../support/control-plane.js";
import { waitForStatus } from "../support/jobs.js";
import { type S3StandIn, startS3StandIn } from "../support/s3-standin.js";
import { SF_BIN } from "../support/sf.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { blobStatus, makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

const MiB = 1024 * 1024;
const PART = 16 * MiB;
const BIG = 300 * 1000 * 1000;

let s3: S3StandIn;
let proxy: TcpProxy;
let s: Server;

/** Writes `size` bytes of incompressible data to `path`; returns their digest. */
function writeData(path: string, size: number): string {
  const h = createHash("sha256");
  const fd = openSync(path, "w");
  const block = randomBytes(4 * MiB);
  for (let at = 0, i = 0; at < size; at += block.length, i++) {
    block.writeUInt32LE(i, 0); // every block differs
    const chunk = block.subarray(0, Math.min(block.length, size - at));
    writeSync(fd, chunk);
    h.update(chunk);
  }
  closeSync(fd);
  return h.digest("hex");
}

/** A custom job whose train.sh checks the data file's sha256 and size, and prints them. */
async function dataProject(exp: string, size: number): Promise<{ p: Project; hex: string }> {
  const p = await makeProject(s, {
    exp,
    method: "custom/custom",
    config: "method: custom/custom\nlifecycle:\n  max_retries: 0\n",
    fleet: "local",
    files: { [`experiments/${exp}/train.sh`]: "placeholder\n" },
  });
  const hex = writeData(join(p.dir, "experiments", exp, "data.bin"), size);
  p.write(
    `experiments/${exp}/train.sh`,
    `#!/usr/bin/env bash\nset -euo pipefail\ncd "$(dirname "$0")"\ngot=$(sha256sum data.bin | cut -d' ' -f1)\necho "data.bin $got $(stat -c %s data.bin)"\n[ "$got" = "${hex}" ]\n`,
    0o755,
  );
  p.commit("train.sh");
  return { p, hex };
}

function spawnSubmit(p: Project, exp: string): { child: ChildProcess; out: () => string } {
  const child = spawn(
    process.execPath,
    [SF_BIN, "submit", exp, "--profile", "h200:1", "--allow-dirty", "--json"],
    {
      cwd: p.dir,
      detached: true,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: s.home,
        SF_HOME: s.home,
        NO_COLOR: "1",
        SF_SERVER: s.cp.url,
        SF_TOKEN: s.token,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on("data", (d: Buffer) => {
    out += d.toString();
  });
  return { child, out: () => out };
}

beforeAll(async () => {
  s3 = await startS3StandIn();
  proxy = await startTcpProxy(s3.port);
  const cp = await startControlPlane({ vars: s3.vars(proxy.url) });
  s = await serverUser(cp, "ada");
}, 180_000);

afterAll(async () => {
  await s?.cp.stop();
  await proxy?.close();
  await s3?.stop();
});

describe("direct uploads to object storage", () => {
  it("resumes a 300 MB upload killed half-way, sending only the missing parts, and the job reads the file intact", async () => {
    const { p, hex } = await dataProject("big", BIG);
    const digest = `sha256:${hex}`;

    // First attempt: killed once about half of the bytes went out.
    proxy.reset();
    const first = spawnSubmit(p, "big");
    const exited = new Promise<number | null>((ok) => first.child.on("exit", (code) => ok(code)));
    const deadline = Date.now() + 150_000;
    while (proxy.upstreamBytes() < BIG / 2) {
      if (Date.now() > deadline) throw new Error(`no progress: ${first.out()}`);
      if (first.child.exitCode !== null) throw new Error(`sf ended before the kill: ${first.out()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    process.kill(-first.child.pid!, "SIGKILL");
    await exited;
    // What the dead process had already handed to the kernel still drains through the relay: wait for it.
    for (let last = -1; last !== proxy.upstreamBytes(); ) {
      last = proxy.upstreamBytes();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const sentFirst = proxy.upstreamBytes();
    expect(await blobStatus(s.cp, digest)).toBe(404);

    // Second attempt: the same command resumes.
    proxy.reset();
    const second = spawnSubmit(p, "big");
    const code = await new Promise<number | null>((ok) => second.child.on("exit", (c) => ok(c)));
    expect(code, second.out()).toBe(0);
    const json = JSON.parse(second.out().slice(second.out().indexOf("{"))) as {
      job: { id: string };
      upload: { bytes: number; resumed_bytes: number };
    };
    const resumed = json.upload.resumed_bytes;
    const sentSecond = proxy.upstreamBytes();
    // Whole parts were kept: at least a few, and never more than what went out the first time.
    expect(resumed % PART).toBe(0);
    expect(resumed).toBeGreaterThanOrEqual(3 * PART);
    expect(resumed).toBeLessThanOrEqual(sentFirst);
    // On the wire: the missing parts plus requests' headers, not the whole file again.
    expect(sentSecond).toBeGreaterThanOrEqual(BIG - resumed);
    expect(sentSecond).toBeLessThan(BIG - resumed + 2 * MiB);
    // What sf says it sent: the missing parts, and the workspace's few small files.
    expect(json.upload.bytes).toBeGreaterThanOrEqual(BIG - resumed);
    expect(json.upload.bytes).toBeLessThan(BIG - resumed + 64 * 1024);
    expect(await blobStatus(s.cp, digest)).toBe(200);

    const end = await waitForStatus(s.cp, s.token, json.job.id, ["SUCCEEDED", "FAILED", "STOPPED"], 240_000);
    expect(end.job.status, JSON.stringify(end.events)).toBe("SUCCEEDED");
    const logs = await call(s.cp, s.token, "GET", `/v1/jobs/${json.job.id}/logs?limit=1000`);
    expect(JSON.stringify(logs.body)).toContain(`data.bin ${hex} ${BIG}`);
  }, 420_000);

  it("refuses a blob one of whose parts was corrupted on the way, keeps nothing of it, and a new submit succeeds", async () => {
    const size = 40 * MiB;
    const { p, hex } = await dataProject("dmg", size);
    const digest = `sha256:${hex}`;
    proxy.corruptOnce(5 * MiB);
    const bad = await p.sf(["submit", "dmg", "--profile", "h200:1", "--allow-dirty"], {
      SF_DIRECT_UPLOAD_THRESHOLD_BYTES: String(MiB),
    });
    expect(proxy.corrupted()).toBe(true);
    expect(bad.code, bad.stderr).toBe(5);
    expect(bad.stderr).toContain("BLOB_DIGEST_MISMATCH");
    expect(bad.stderr).toContain("do not hash to its digest");
    expect(await blobStatus(s.cp, digest)).toBe(404);

    // Nothing was kept: the next attempt starts a new upload (no part counts as stored) and succeeds.
    const good = await p.sf(["submit", "dmg", "--profile", "h200:1", "--allow-dirty", "--json"], {
      SF_DIRECT_UPLOAD_THRESHOLD_BYTES: String(MiB),
    });
    expect(good.code, good.stderr).toBe(0);
    const json = JSON.parse(good.stdout) as { upload: { bytes: number; resumed_bytes: number } };
    expect(json.upload.resumed_bytes).toBe(0);
    expect(json.upload.bytes).toBeGreaterThanOrEqual(size);
    expect(await blobStatus(s.cp, digest)).toBe(200);
  });

  it("takes a training run's checkpoints through presigned URLs, verifies their digests and serves them back", async () => {
    const p = await makeProject(s, { fleet: "local" });
    proxy.reset();
    const r = await p.sf(["submit", "exp1", "--profile", "h200:1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { job: { id: string } }).job.id;
    const end = await waitForStatus(s.cp, s.token, id, ["SUCCEEDED", "FAILED", "STOPPED"], 240_000);
    expect(end.job.status, JSON.stringify(end.events)).toBe("SUCCEEDED");
    type Art = {
      path: string;
      digest: string | null;
      size_bytes: number;
      stored: boolean;
      verified: boolean;
    };
    const arts = (await call(s.cp, s.token, "GET", `/v1/jobs/${id}/artifacts`)).body.artifacts as Art[];
    const uploaded = arts.filter((a) => a.digest);
    expect(uploaded.length).toBeGreaterThan(0);
    // The bytes went to the S3 stand-in (through the relay), not through the Worker.
    expect(proxy.upstreamBytes()).toBeGreaterThanOrEqual(uploaded.reduce((n, a) => n + a.size_bytes, 0));
    for (const a of uploaded) {
      // Registered from the staging key: the Worker hashed the copy, so the digest is checked, not trusted.
      expect(a).toMatchObject({ stored: true, verified: true });
      const res = await fetch(
        `${s.cp.url}/v1/jobs/${id}/artifacts/download?path=${encodeURIComponent(a.path)}`,
        { headers: { authorization: `Bearer ${s.token}` } },
      );
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(a.digest);
    }
  });
});
