/**
 * Ownership: a user reads and acts on their own jobs only; admins read everyone's. A refusal names no
 * data of the job it refused. Blobs follow the jobs that reference them, for users and for agents.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody } from "../../contract/errors.js";
import {
  ADMIN,
  type ApiResponse,
  api,
  createFleet,
  createUser,
  customSpec,
  enrollAgent,
  LEAK,
  putBlob,
} from "./helpers.js";

const SECRET_NAME = "alice-secret-run";
const SECRET_IMAGE = "ghcr.io/acme/alice-private:7";
const SECRET_LABEL = "moonshot-codename";

let alice: string;
let bob: string;
let vic: string;
let aliceJob: string;
let bobJob: string;

/** A refusal of someone else's job: 403, only an error object, and nothing of the job in it. */
function expectRefusedWithoutData(res: ApiResponse<Partial<ErrorBody>>): void {
  expect(res.status).toBe(403);
  expect(res.body.error?.code).toBe("FORBIDDEN");
  expect(Object.keys(res.body)).toEqual(["error"]);
  const text = JSON.stringify(res.body);
  for (const secret of [SECRET_NAME, SECRET_IMAGE, SECRET_LABEL, "ow-alice", '"spec"', '"runs"'])
    expect(text).not.toContain(secret);
  expect(text).not.toMatch(LEAK);
}

beforeAll(async () => {
  alice = await createUser("ow-alice", "operator");
  bob = await createUser("ow-bob", "operator");
  vic = await createUser("ow-vic", "viewer");
  await createFleet("ow-fleet");
  const spec = await customSpec({ fleet: "ow-fleet", name: SECRET_NAME, image: SECRET_IMAGE });
  spec.metadata.labels = { project: SECRET_LABEL };
  const a = await api(alice, "POST", "/v1/jobs", spec);
  expect(a.status).toBe(201);
  aliceJob = a.body.job.id as string;
  const b = await api(bob, "POST", "/v1/jobs", await customSpec({ fleet: "ow-fleet", name: "bob-run" }));
  expect(b.status).toBe(201);
  bobJob = b.body.job.id as string;
});

describe("another user's job", () => {
  it("is refused to an operator and a viewer without revealing its name, spec or owner", async () => {
    expectRefusedWithoutData(await api(bob, "GET", `/v1/jobs/${aliceJob}`));
    expectRefusedWithoutData(await api(vic, "GET", `/v1/jobs/${aliceJob}`));
  });

  it("is readable by its owner and by an admin, spec included", async () => {
    for (const token of [alice, ADMIN]) {
      const res = await api(token, "GET", `/v1/jobs/${aliceJob}`);
      expect(res.status).toBe(200);
      expect(res.body.job).toMatchObject({ id: aliceJob, name: SECRET_NAME, status: "QUEUED" });
      expect(res.body.job.spec.framework.image).toBe(SECRET_IMAGE);
      expect(res.body.job.spec.metadata.labels).toEqual({ project: SECRET_LABEL });
    }
  });

  it("cannot be stopped, paused or resumed by another user, and stays as it was", async () => {
    const before = await api(ADMIN, "GET", `/v1/jobs/${aliceJob}`);
    for (const action of ["stop", "pause", "resume"]) {
      expectRefusedWithoutData(await api(bob, "POST", `/v1/jobs/${aliceJob}/${action}`));
      expectRefusedWithoutData(
        await api(bob, "POST", `/v1/jobs/${aliceJob}/${action}`, { reason: "mine now" }),
      );
    }
    const after = await api(ADMIN, "GET", `/v1/jobs/${aliceJob}`);
    expect(after.body.job.status).toBe("QUEUED");
    expect(after.body.job.updated_at).toBe(before.body.job.updated_at);
    expect(after.body.events).toEqual(before.body.events);
  });

  it("can be paused and resumed by its owner (the refusal above is about ownership)", async () => {
    const paused = await api(alice, "POST", `/v1/jobs/${aliceJob}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.job.status).toBe("PAUSED");
    const resumed = await api(alice, "POST", `/v1/jobs/${aliceJob}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.job.status).toBe("QUEUED");
  });

  it("refuses non-admins a listing of everyone's or another user's jobs", async () => {
    for (const token of [bob, vic]) {
      for (const query of ["all=1", "all=true", "user=ow-alice"]) {
        const res = await api(token, "GET", `/v1/jobs?${query}`);
        expect(res.status, query).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
        expect(Object.keys(res.body)).toEqual(["error"]);
        expect(JSON.stringify(res.body)).not.toContain(SECRET_NAME);
      }
    }
  });

  it("is left out of another user's own listing", async () => {
    const res = await api(bob, "GET", "/v1/jobs");
    expect(res.status).toBe(200);
    expect(res.body.jobs.map((j: { id: string }) => j.id)).toEqual([bobJob]);
    expect(JSON.stringify(res.body)).not.toContain(SECRET_NAME);
  });

  it("is listed for an admin asking for everyone's or for that user's jobs", async () => {
    const all = await api(ADMIN, "GET", "/v1/jobs?all=1");
    expect(all.status).toBe(200);
    expect(all.body.jobs.map((j: { id: string }) => j.id).sort()).toEqual([aliceJob, bobJob].sort());
    const hers = await api(ADMIN, "GET", "/v1/jobs?user=ow-alice");
    expect(hers.body.jobs.map((j: { id: string }) => j.id)).toEqual([aliceJob]);
  });
});

describe("blobs follow the jobs that reference them", () => {
  let manifest: string;
  let agentHere: string;
  let agentElsewhere: string;

  beforeAll(async () => {
    await createFleet("ow-other");
    manifest = await putBlob(alice, JSON.stringify({ manifest_version: 1, files: [], note: "ow" }));
    const spec = await customSpec({ fleet: "ow-fleet", name: "with-workspace" });
    spec.source.workspace = manifest;
    expect((await api(alice, "POST", "/v1/jobs", spec)).status).toBe(201);
    agentHere = await enrollAgent("ow-fleet");
    agentElsewhere = await enrollAgent("ow-other");
  });

  it("lets the owner and the agents of the job's fleet download it, and no one else", async () => {
    for (const token of [alice, agentHere, ADMIN]) {
      const res = await api(token, "GET", `/v1/blobs/${manifest}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ manifest_version: 1, note: "ow" });
    }
    for (const token of [bob, vic, agentElsewhere]) {
      const res = await api(token, "GET", `/v1/blobs/${manifest}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
      expect(JSON.stringify(res.body)).not.toContain("manifest_version");
    }
  });

  it("lets operators and agents probe with HEAD whether a blob exists (how uploads are deduplicated)", async () => {
    const absent = `sha256:${"e".repeat(64)}`;
    const who: Array<[string, string]> = [
      ["owner", alice],
      ["other operator", bob],
      ["agent of another fleet", agentElsewhere],
      ["viewer", vic],
    ];
    const got: string[] = [];
    for (const [name, token] of who) {
      for (const [what, digest] of [
        ["stored", manifest],
        ["absent", absent],
      ] as const) {
        got.push(`${name} HEAD ${what} → ${(await api(token, "HEAD", `/v1/blobs/${digest}`)).status}`);
      }
    }
    expect(got).toEqual([
      "owner HEAD stored → 200",
      "owner HEAD absent → 404",
      "other operator HEAD stored → 200",
      "other operator HEAD absent → 404",
      "agent of another fleet HEAD stored → 200",
      "agent of another fleet HEAD absent → 404",
      "viewer HEAD stored → 403",
      "viewer HEAD absent → 403",
    ]);
  });
});
