/**
 * Admission by quota and idempotent submits. A quota rejection leaves nothing behind and does not touch
 * the user's earlier jobs; an Idempotency-Key turns retries (sequential or concurrent) into one job.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { userStub } from "../../durable-objects/user/stub.js";
import {
  ADMIN,
  api,
  converged,
  countRows,
  createFleet,
  createUser,
  customSpec,
  expectRejectedWithoutResidue,
  installHubStub,
  submitFootprint,
} from "./helpers.js";
import { testEnv } from "./test-env.js";

const FLEET = "aq-fleet";

async function userWithQuota(name: string, quota: Record<string, unknown>): Promise<string> {
  const token = await createUser(name, "operator");
  const q = { max_gpus: 16, max_jobs: 20, daily_gpu_hours: 100, ...quota };
  const res = await api(ADMIN, "PUT", `/v1/users/${name}/quota`, q);
  expect(res.status).toBe(200);
  return token;
}

/**
 * Makes `n` concurrent submits overlap deterministically: each names a HuggingFace model, and the hub
 * stub answers none of them until all `n` have asked. The preflight is the last step before the D1
 * batch that reserves a slot (active-job count and Idempotency-Key), so all `n` reach it together.
 */
function overlapSubmits(n: number): { model: { hf_repo: string } } {
  const stub = installHubStub([{ kind: "model", id: "acme/public-7b" }]);
  const answer = stub.fetch.bind(stub);
  let release: () => void = () => {};
  const together = new Promise<void>((r) => {
    release = r;
  });
  // A fallback so a submit path that never reaches the hub fails its assertions instead of hanging.
  const fallback = setTimeout(release, 3000);
  let arrived = 0;
  stub.fetch = async (req) => {
    if (++arrived >= n) {
      clearTimeout(fallback);
      release();
    }
    await together;
    return answer(req);
  };
  return { model: { hf_repo: "acme/public-7b" } };
}

beforeAll(async () => {
  await createFleet(FLEET);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("quota", () => {
  it("rejects a job needing more GPUs than max_gpus with QUOTA_EXCEEDED", async () => {
    const token = await userWithQuota("aq-gpus", { max_gpus: 2 });
    const spec = await customSpec({ fleet: FLEET, gpus: 4 });
    const res = await expectRejectedWithoutResidue(
      FLEET,
      () => api(token, "POST", "/v1/jobs", spec),
      403,
      "QUOTA_EXCEEDED",
    );
    expect(res.body.error.details).toEqual({ limit: "max_gpus", value: 2, requested: 4 });
    expect((await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, gpus: 2 }))).status).toBe(
      201,
    );
  });

  it("rejects a profile outside allowed_profiles with PROFILE_NOT_ALLOWED", async () => {
    const token = await userWithQuota("aq-profiles", { allowed_profiles: ["h100"] });
    const h200 = await customSpec({ fleet: FLEET });
    const res = await expectRejectedWithoutResidue(
      FLEET,
      () => api(token, "POST", "/v1/jobs", h200),
      403,
      "PROFILE_NOT_ALLOWED",
    );
    expect(res.body.error.message).toContain("h200");
    const pools = [{ name: "default", profile: "h100", series: "h100", nodes: 1, gpus_per_node: 1 }];
    expect((await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, pools }))).status).toBe(
      201,
    );
  });

  it("rejects a job beyond max_jobs with QUOTA_EXCEEDED and leaves the earlier jobs untouched", async () => {
    const token = await userWithQuota("aq-jobs", { max_jobs: 2 });
    const ids: string[] = [];
    for (const name of ["one", "two"]) {
      const res = await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name }));
      expect(res.status).toBe(201);
      ids.push(res.body.job.id as string);
    }
    const read = () => Promise.all(ids.map((id) => api(token, "GET", `/v1/jobs/${id}`).then((r) => r.body)));
    const before = await read();

    const third = await customSpec({ fleet: FLEET, name: "three" });
    const res = await expectRejectedWithoutResidue(
      FLEET,
      () => api(token, "POST", "/v1/jobs", third),
      403,
      "QUOTA_EXCEEDED",
    );
    expect(res.body.error.details).toEqual({ limit: "max_jobs", value: 2 });

    const after = await read();
    expect(after).toEqual(before);
    expect(after.map((j) => j.job.status)).toEqual(["QUEUED", "QUEUED"]);
    const queue = (await submitFootprint(FLEET)).queue as Array<{ job_id: string }>;
    expect(queue.map((q) => q.job_id)).toEqual(expect.arrayContaining(ids));
  });

  it("keeps the user's slot count (its object) and its active admissions in D1 equal through submits, stops and resumes", async () => {
    const token = await userWithQuota("aq-count", { max_jobs: 3 });
    const me = (await api(token, "GET", "/v1/me")).body.user.id as string;
    const counted = async () => {
      // D1 is a projection: read it at the convergence point.
      await converged();
      const held = (await userStub(testEnv, me).inspect()).held;
      const scanned = await testEnv.DB.prepare(
        "SELECT COUNT(*) AS n FROM admissions WHERE user_id = ? AND state = 'active'",
      )
        .bind(me)
        .first<{ n: number }>();
      expect(held).toBe(scanned?.n);
      return scanned?.n;
    };
    const ids: string[] = [];
    for (const name of ["a", "b", "c"]) {
      const res = await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name }));
      expect(res.status).toBe(201);
      ids.push(res.body.job.id as string);
    }
    expect(await counted()).toBe(3);
    expect((await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name: "d" }))).status).toBe(
      403,
    );
    expect((await api(token, "POST", `/v1/jobs/${ids[0]}/pause`)).status).toBe(200);
    expect(await counted()).toBe(2);
    expect((await api(token, "POST", `/v1/jobs/${ids[1]}/stop`)).status).toBe(200);
    expect(await counted()).toBe(1);
    expect((await api(token, "POST", `/v1/jobs/${ids[0]}/resume`)).status).toBe(200);
    expect(await counted()).toBe(2);
    // The freed slot is usable again, and the count follows.
    expect((await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name: "e" }))).status).toBe(
      201,
    );
    expect(await counted()).toBe(3);
  });

  it("never admits more than max_jobs, even for concurrent submits spread over two fleets", async () => {
    // Each fleet's DO re-checks max_jobs atomically for its own jobs; the limit is per user, not per fleet.
    const token = await userWithQuota("aq-jobs-race", { max_jobs: 2 });
    await createFleet("aq-fleet-race");
    const hf = overlapSubmits(4);
    const specs = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        customSpec({ fleet: i % 2 ? FLEET : "aq-fleet-race", name: `race-${i}`, ...hf }),
      ),
    );
    const results = await Promise.all(specs.map((s) => api(token, "POST", "/v1/jobs", s)));
    expect(results.map((r) => r.body.error?.code ?? r.status).sort()).toEqual([
      201,
      201,
      "QUOTA_EXCEEDED",
      "QUOTA_EXCEEDED",
    ]);
    expect((await api(token, "GET", "/v1/usage")).body.active_jobs).toBe(2);
  });

  it("admits a submit at max_jobs as soon as a job came to rest, before the user's object heard of it from D1", async () => {
    const token = await userWithQuota("aq-rest", { max_jobs: 2 });
    const me = (await api(token, "GET", "/v1/me")).body.user.id as string;
    const ids: string[] = [];
    for (const name of ["rest-a", "rest-b"]) {
      const res = await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name }));
      expect(res.status).toBe(201);
      ids.push(res.body.job.id as string);
    }
    await converged();
    // D1 refuses the fleet's writes: the stop is committed in the fleet, and nothing reaches the user's
    // object, which still counts the job (its reports follow D1).
    await testEnv.DB.exec("ALTER TABLE job_events RENAME TO job_events_offline");
    try {
      expect((await api(token, "POST", `/v1/jobs/${ids[0]}/stop`)).status).toBe(200);
      expect((await userStub(testEnv, me).inspect()).held).toBe(2);
      // The refusal it would get asks the fleets first: the stopped job no longer holds a slot.
      const next = await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name: "rest-c" }));
      expect(next.status, JSON.stringify(next.body)).toBe(201);
      expect((await userStub(testEnv, me).inspect()).held).toBe(2);
      // At the limit again: refused, with nothing to find.
      const over = await api(token, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name: "rest-d" }));
      expect(over.body.error?.code).toBe("QUOTA_EXCEEDED");
    } finally {
      await testEnv.DB.exec("ALTER TABLE job_events_offline RENAME TO job_events");
    }
  });

  it("rejects any job once the daily GPU-hours are used up with QUOTA_EXCEEDED", async () => {
    const token = await userWithQuota("aq-hours", { daily_gpu_hours: 0 });
    const spec = await customSpec({ fleet: FLEET });
    const res = await expectRejectedWithoutResidue(
      FLEET,
      () => api(token, "POST", "/v1/jobs", spec),
      403,
      "QUOTA_EXCEEDED",
    );
    expect(res.body.error.details).toMatchObject({ limit: "daily_gpu_hours", value: 0 });
  });
});

describe("Idempotency-Key", () => {
  let op: string;

  beforeAll(async () => {
    op = await createUser("aq-idem", "operator");
  });

  const post = (spec: unknown, key: string) => api(op, "POST", "/v1/jobs", spec, { "idempotency-key": key });

  it("answers a retry with the same key and body with the first job, creating one job", async () => {
    const spec = await customSpec({ fleet: FLEET, name: "retry-me" });
    const before = await submitFootprint(FLEET);

    const first = await post(spec, "key-retry-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const second = await post(spec, "key-retry-1");
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.job.id).toBe(first.body.job.id);

    const after = await submitFootprint(FLEET);
    expect(after.rows.jobs).toBe(before.rows.jobs + 1);
    expect(after.rows.admissions).toBe(before.rows.admissions + 1);
    expect(after.queued).toBe(before.queued + 1);
  });

  it("refuses the same key with a different body with IDEMPOTENCY_KEY_REUSED and creates nothing", async () => {
    const first = await post(await customSpec({ fleet: FLEET, name: "original" }), "key-reused-1");
    expect(first.status).toBe(201);
    const changed = await customSpec({ fleet: FLEET, name: "changed" });
    const res = await expectRejectedWithoutResidue(
      FLEET,
      () => post(changed, "key-reused-1"),
      409,
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(res.body.error.details).toEqual({ job_id: first.body.job.id });
  });

  it("creates exactly one job from five concurrent submits with one key", async () => {
    const spec = await customSpec({ fleet: FLEET, name: "stampede", ...overlapSubmits(5) });
    const before = await submitFootprint(FLEET);

    const results = await Promise.all(Array.from({ length: 5 }, () => post(spec, "key-stampede-1")));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.job.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status === 200))
      expect(r.headers.get("idempotent-replayed")).toBe("true");

    const after = await submitFootprint(FLEET);
    expect(after.rows.jobs).toBe(before.rows.jobs + 1);
    expect(after.rows.admissions).toBe(before.rows.admissions + 1);
    expect(after.rows.job_events).toBe(before.rows.job_events + 1);
    expect(after.queued).toBe(before.queued + 1);
    const mine = await api(op, "GET", "/v1/jobs");
    expect(mine.body.jobs.filter((j: { name: string }) => j.name === "stampede")).toHaveLength(1);
  });

  it("refuses one of two concurrent submits that reuse a key for different fleets", async () => {
    // Each fleet's DO checks keys atomically only for its own fleet; the key belongs to the user.
    await createFleet("aq-fleet-two");
    const hf = overlapSubmits(2);
    const here = await customSpec({ fleet: FLEET, name: "race-here", ...hf });
    const there = await customSpec({ fleet: "aq-fleet-two", name: "race-there", ...hf });
    const jobs = await countRows("jobs");
    const results = await Promise.all([post(here, "key-two-fleets-1"), post(there, "key-two-fleets-1")]);
    expect(results.map((r) => r.body.error?.code ?? r.status).sort()).toEqual([
      201,
      "IDEMPOTENCY_KEY_REUSED",
    ]);
    expect(await countRows("jobs")).toBe(jobs + 1);
  });

  it("keeps keys per user: the same key from another user makes that user's own job", async () => {
    const spec = await customSpec({ fleet: FLEET, name: "shared-key" });
    const mine = await post(spec, "key-shared-1");
    const other = await createUser("aq-idem-other", "operator");
    const theirs = await api(other, "POST", "/v1/jobs", spec, { "idempotency-key": "key-shared-1" });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.job.id).not.toBe(mine.body.job.id);
    expect(theirs.body.job.user_id).not.toBe(mine.body.job.user_id);
  });

  it("rejects a malformed key with BAD_REQUEST and creates nothing", async () => {
    const spec = await customSpec({ fleet: FLEET, name: "bad-key" });
    await expectRejectedWithoutResidue(FLEET, () => post(spec, "has spaces in it"), 400, "BAD_REQUEST");
  });
});
