/**
 * The guarantee a 201 from POST /v1/jobs gives (docs/architecture.md "The submit path"), with D1 off the
 * path: the job is committed in its Fleet DO and its slot and key in the user's object before the answer;
 * the user's reserved + active jobs never exceed max_jobs across fleets and no two jobs share a key; the
 * submitter reads its own writes (or gets 503, never a list without the job); D1 converges. Each test
 * drives the real Worker and objects in workerd, racing requests where the guarantee is about races.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_QUOTA } from "../../contract/api.schema.js";
import { canonicalJson, sha256Hex } from "../../contract/digest.js";
import type { SubmitInput } from "../../contract/fleet.schema.js";
import { JobSpec } from "../../contract/jobspec.schema.js";
import { fleetStub } from "../../durable-objects/fleet/stub.js";
import { settledFromWire, toWire } from "../../durable-objects/group-commit.js";
import { userStub } from "../../durable-objects/user/stub.js";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";
import { testEnv } from "./test-env.js";

let seq = 0;
const unique = (p: string) => `${p}-${++seq}`;

async function userId(name: string): Promise<string> {
  const r = await api(ADMIN, "GET", "/v1/users");
  return (r.body.users as Array<{ id: string; name: string }>).find((u) => u.name === name)!.id;
}

/** The id of a new user's one token. */
async function tokenIdOf(token: string): Promise<string> {
  const r = await api(token, "GET", "/v1/tokens");
  return (r.body.tokens as Array<{ id: string }>)[0]!.id;
}

async function setMaxJobs(name: string, max: number): Promise<void> {
  const r = await api(ADMIN, "PUT", `/v1/users/${name}/quota`, {
    max_gpus: 1000,
    max_jobs: max,
    daily_gpu_hours: 1e6,
  });
  expect(r.status).toBe(200);
}

/** Waits until every fleet named has written everything it holds to D1 (the convergence point). */
async function converge(fleetIds: string[]): Promise<void> {
  for (const id of fleetIds) expect(await fleetStub(testEnv, id).projected()).toBe(true);
}

/** A reservation in the user's object, as a submit's step 2 makes it (for a request that then dies). */
async function reserveFor(
  o: { uid: string; tokenId: string; fleet: { id: string } },
  jobId: string,
  body: unknown,
  key: string | null,
) {
  return userStub(testEnv, o.uid).reserve({
    userId: o.uid,
    tokenId: o.tokenId,
    fleetId: o.fleet.id,
    now: Date.now(),
    key,
    requestHash: key ? await sha256Hex(canonicalJson(body)) : null,
    jobs: [{ jobId, gpus: 1, profiles: ["h200"] }],
  });
}

describe("one user, several fleets, duplicated keys", () => {
  it("admits exactly min(distinct keys, max_jobs) jobs, one per key, and the user's object counts them", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ key: fc.integer({ min: 0, max: 6 }), fleet: fc.integer({ min: 0, max: 2 }) }), {
          minLength: 2,
          maxLength: 14,
        }),
        async (maxJobs, requests) => {
          const name = unique("keys-racer");
          const token = await createUser(name);
          await setMaxJobs(name, maxJobs);
          const fleets = await Promise.all([0, 1, 2].map(() => createFleet(unique("keys-fleet"))));
          // One body per key (its fleet is the first one drawn for it): a duplicate is the same request.
          const fleetOfKey = new Map<number, number>();
          for (const r of requests) if (!fleetOfKey.has(r.key)) fleetOfKey.set(r.key, r.fleet);
          const bodies = new Map(
            await Promise.all(
              [...fleetOfKey].map(
                async ([k, f]) => [k, await customSpec({ fleet: fleets[f]!.name, name: `k${k}` })] as const,
              ),
            ),
          );
          const answers = await Promise.all(
            requests.map((r) =>
              api(token, "POST", "/v1/jobs", bodies.get(r.key), { "idempotency-key": `${name}-k${r.key}` }),
            ),
          );
          // Every answer: the job (201 first, 200 replayed), refused for max_jobs, or "still in flight".
          const jobOfKey = new Map<number, string>();
          for (const [i, a] of answers.entries()) {
            expect([200, 201, 403, 409], JSON.stringify(a.body)).toContain(a.status);
            if (a.status === 403) expect(a.body.error.code).toBe("QUOTA_EXCEEDED");
            if (a.status === 409) expect(a.body.error.code).toBe("CONFLICT");
            if (a.status === 200 || a.status === 201) {
              const id = a.body.job.id as string;
              const k = requests[i]!.key;
              // One job per key, whichever request answered it.
              expect(jobOfKey.get(k) ?? id).toBe(id);
              jobOfKey.set(k, id);
            }
          }
          const distinct = fleetOfKey.size;
          const held = await Promise.all(
            fleets.map(async (f) => {
              const jobs = await fleetStub(testEnv, f.id).jobStatuses();
              return jobs.map((j) => j.id);
            }),
          );
          const queued = held.flat();
          // Exactly min(distinct, m) jobs exist across the three fleets, none twice.
          expect(queued.length).toBe(Math.min(distinct, maxJobs));
          expect(new Set(queued).size).toBe(queued.length);
          for (const id of jobOfKey.values()) expect(queued).toContain(id);
          // The user's object holds one slot per job, no more.
          const uid = await userId(name);
          expect((await userStub(testEnv, uid).inspect()).held).toBe(queued.length);
          // After convergence D1 has them too.
          await converge(fleets.map((f) => f.id));
          const d1 = await testEnv.DB.prepare("SELECT id FROM jobs WHERE user_id = ?")
            .bind(uid)
            .all<{ id: string }>();
          expect(d1.results.map((r) => r.id).sort()).toEqual([...queued].sort());
        },
      ),
      { numRuns: 8 },
    );
  }, 60_000);
});

describe("a submit that dies between its reservation and its fleet", () => {
  async function setup() {
    const name = unique("crash-op");
    const token = await createUser(name);
    const fleet = await createFleet(unique("crash"));
    const uid = await userId(name);
    return { name, token, fleet, uid, tokenId: await tokenIdOf(token) };
  }

  /** What the dead request did: its reservation in the user's object, and nothing in the fleet. */
  async function reserveOnly(
    o: Awaited<ReturnType<typeof setup>>,
    key: string,
    body: unknown,
    jobId: string,
  ) {
    expect((await reserveFor(o, jobId, body, key)).kind).toBe("reserved");
  }

  it("is completed exactly once by a retry with the same key, under the job id it reserved", async () => {
    const o = await setup();
    const body = await customSpec({ fleet: o.fleet.name, name: "crashed" });
    await reserveOnly(o, "crash-key-1", body, "job_crashedreservation0000001");
    const retry = await api(o.token, "POST", "/v1/jobs", body, { "idempotency-key": "crash-key-1" });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.body.job.id).toBe("job_crashedreservation0000001");
    const again = await api(o.token, "POST", "/v1/jobs", body, { "idempotency-key": "crash-key-1" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.job.id).toBe("job_crashedreservation0000001");
    expect((await fleetStub(testEnv, o.fleet.id).jobStatuses()).map((j) => j.id)).toEqual([
      "job_crashedreservation0000001",
    ]);
    expect((await userStub(testEnv, o.uid).inspect()).held).toBe(1);
  });

  it("gives the slot and the key back once settled, and the dead job id can never be queued", async () => {
    const o = await setup();
    await setMaxJobs(o.name, 1);
    const body = await customSpec({ fleet: o.fleet.name, name: "abandoned" });
    await reserveOnly(o, "crash-key-2", body, "job_abandonedreservation00001");
    const user = userStub(testEnv, o.uid);
    expect((await user.inspect()).held).toBe(1);
    // Until it settles the slot counts: the user is at max_jobs.
    const blocked = await api(
      o.token,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: o.fleet.name, name: "other" }),
    );
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe("QUOTA_EXCEEDED");
    // SF_RESERVATION_SETTLE_SECONDS is 1 in tests (15 by default): past it, the alarm settles (run here if
    // the runtime has not run it yet).
    await new Promise((r) => setTimeout(r, 1_100));
    await runDurableObjectAlarm(testEnv.USERS.get(testEnv.USERS.idFromName(o.uid)));
    expect((await user.inspect()).held).toBe(0);
    // The key is free: the same request now admits a new job, once.
    const retry = await api(o.token, "POST", "/v1/jobs", body, { "idempotency-key": "crash-key-2" });
    expect(retry.status).toBe(201);
    expect(retry.body.job.id).not.toBe("job_abandonedreservation00001");
    // A request that was only slow, arriving with the abandoned id now, is refused by the fleet.
    const late = await fleetStub(testEnv, o.fleet.id).settleAdmissions(["job_abandonedreservation00001"]);
    expect(late).toEqual({ job_abandonedreservation00001: null });
    expect((await fleetStub(testEnv, o.fleet.id).jobStatuses()).map((j) => j.id)).toEqual([
      retry.body.job.id,
    ]);
  });
});

describe("fences", () => {
  it("refuses a revoked token from the moment the revoke answered, though this isolate remembers it", async () => {
    const name = unique("revokee");
    const token = await createUser(name);
    const fleet = await createFleet(unique("fence"));
    const spec = await customSpec({ fleet: fleet.name });
    // Remembered by this isolate (a submit starts from a remembered user).
    expect((await api(token, "POST", "/v1/jobs", spec)).status).toBe(201);
    const tokenId = await tokenIdOf(token);
    // Racing submits while the revoke runs: each one is admitted or refused, nothing in between.
    const [racers, revoke] = await Promise.all([
      Promise.all([1, 2, 3, 4].map(() => api(token, "POST", "/v1/jobs", spec))),
      api(token, "DELETE", `/v1/tokens/${tokenId}`),
    ]);
    expect(revoke.status).toBe(200);
    for (const r of racers) expect([201, 401]).toContain(r.status);
    const admitted = racers.filter((r) => r.status === 201).length;
    expect((await fleetStub(testEnv, fleet.id).jobStatuses()).length).toBe(1 + admitted);
    // After the revoke answered: refused, every time.
    for (let i = 0; i < 3; i++) {
      const after = await api(token, "POST", "/v1/jobs", spec);
      expect(after.status).toBe(401);
    }
    expect((await fleetStub(testEnv, fleet.id).jobStatuses()).length).toBe(1 + admitted);
  });

  it("refuses a user disabled, or demoted to viewer, from the moment the change answered", async () => {
    for (const change of [{ disabled: true }, { role: "viewer" }]) {
      const name = unique("fenced-user");
      const token = await createUser(name);
      const fleet = await createFleet(unique("fence-user"));
      const spec = await customSpec({ fleet: fleet.name });
      expect((await api(token, "POST", "/v1/jobs", spec)).status).toBe(201);
      expect((await api(ADMIN, "PATCH", `/v1/users/${name}`, change)).status).toBe(200);
      const after = await api(token, "POST", "/v1/jobs", spec);
      expect([401, 403]).toContain(after.status);
      expect((await fleetStub(testEnv, fleet.id).jobStatuses()).length).toBe(1);
    }
  });
});

describe("configuration changes racing a warm isolate", () => {
  it("refuses an image the fleet's allowlist no longer admits, right after the change, leaving nothing", async () => {
    const name = unique("allow-op");
    const token = await createUser(name);
    const fleet = await createFleet(unique("allow"), { image_allowlist: ["ghcr.io/acme/*"] });
    const spec = await customSpec({ fleet: fleet.name, image: "ghcr.io/acme/train:1.0" });
    // Warm: this isolate caches the fleet with its old allowlist.
    expect((await api(token, "POST", "/v1/jobs", spec)).status).toBe(201);
    const narrowed = await api(ADMIN, "PATCH", `/v1/fleets/${fleet.name}`, {
      image_allowlist: ["ghcr.io/other/*"],
    });
    expect(narrowed.status).toBe(200);
    const uid = await userId(name);
    const held = (await userStub(testEnv, uid).inspect()).held;
    const refused = await api(token, "POST", "/v1/jobs", spec);
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.error.code).toBe("IMAGE_NOT_ALLOWED");
    expect((await fleetStub(testEnv, fleet.id).jobStatuses()).length).toBe(1);
    expect((await userStub(testEnv, uid).inspect()).held).toBe(held);
  });
});

describe("job arrays", () => {
  it("admits every job of an array or none, each with its own id, in one request", async () => {
    const name = unique("array-op");
    const token = await createUser(name);
    await setMaxJobs(name, 5);
    const fleet = await createFleet(unique("array"));
    await registerNode(fleet.name, "n1", 2);
    const specs = await Promise.all(
      [0, 1, 2, 3].map((i) => customSpec({ fleet: fleet.name, name: `a${i}` })),
    );
    const ok = await api(token, "POST", "/v1/jobs", { jobs: specs });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const ids = (ok.body.jobs as Array<{ id: string; name: string }>).map((j) => j.id);
    expect(new Set(ids).size).toBe(4);
    expect((ok.body.jobs as Array<{ name: string }>).map((j) => j.name)).toEqual(["a0", "a1", "a2", "a3"]);
    // Two more would make 6 of 5: neither is admitted.
    const over = await api(token, "POST", "/v1/jobs", { jobs: specs.slice(0, 2) });
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe("QUOTA_EXCEEDED");
    // One bad spec refuses the whole array, naming it.
    const bad = await api(token, "POST", "/v1/jobs", {
      jobs: [specs[0], { ...specs[1], recipe: { ...specs[1]!.recipe, digest: `sha256:${"0".repeat(64)}` } }],
    });
    expect(bad.status).toBe(409);
    expect(bad.body.error.message).toMatch(/^jobs\[1\]: /);
    expect((await fleetStub(testEnv, fleet.id).jobStatuses()).length).toBe(4);
    // Read-your-writes: the list has all four at once.
    const list = await api(token, "GET", "/v1/jobs");
    expect((list.body.jobs as Array<{ id: string }>).map((j) => j.id).sort()).toEqual([...ids].sort());
  });
});

describe("a submit that asked both objects at once", () => {
  async function setup() {
    const name = unique("par-op");
    const token = await createUser(name);
    const fleet = await createFleet(unique("par"));
    return { name, token, fleet, uid: await userId(name), tokenId: await tokenIdOf(token) };
  }

  /** What such a request left in the fleet before it died: its jobs queued unconfirmed. */
  async function queueUnconfirmed(
    o: Awaited<ReturnType<typeof setup>>,
    body: unknown,
    jobId: string,
    key?: string,
  ) {
    const spec = JobSpec.parse(body);
    const input: SubmitInput = {
      jobId,
      userId: o.uid,
      userName: o.name,
      spec,
      priority: 10,
      quota: DEFAULT_QUOTA,
      blobDigests: [],
      capsule: null,
      launch: { entrypoint: { kind: "script", path: "train.sh" }, image: null },
      idemKey: key ?? null,
      requestHash: key ? await sha256Hex(canonicalJson(body)) : null,
      unconfirmed: true,
    };
    const [r] = settledFromWire(await fleetStub(testEnv, o.fleet.id).submitBatch(toWire([[input]])));
    expect(r).toMatchObject({ ok: true, value: { ok: true } });
  }

  const unconfirmedFlag = (fleetId: string, jobId: string) =>
    runInDurableObject(
      testEnv.FLEET.get(testEnv.FLEET.idFromName(fleetId)),
      (_i, state) =>
        state.storage.sql
          .exec<{ unconfirmed: number }>("SELECT unconfirmed FROM jobs WHERE id = ?", jobId)
          .toArray()[0]?.unconfirmed ?? null,
    );

  it("is confirmed by the fleet itself when its reservation was taken but its confirmation never came", async () => {
    const o = await setup();
    const body = await customSpec({ fleet: o.fleet.name, name: "unconfirmed" });
    expect((await reserveFor(o, "job_parreserved000000000001", body, null)).kind).toBe("reserved");
    await queueUnconfirmed(o, body, "job_parreserved000000000001");
    // The fleet asks the user's object within milliseconds, long before the user's object would settle
    // the reservation (SF_RESERVATION_SETTLE_SECONDS, 1 s in tests).
    const deadline = Date.now() + 500;
    while ((await unconfirmedFlag(o.fleet.id, "job_parreserved000000000001")) !== 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(await unconfirmedFlag(o.fleet.id, "job_parreserved000000000001")).toBe(0);
    await converge([o.fleet.id]);
    const d1 = await testEnv.DB.prepare("SELECT id FROM jobs WHERE id = ?")
      .bind("job_parreserved000000000001")
      .first();
    expect(d1).not.toBeNull();
  });

  it("is withdrawn when its reservation never came, and a reservation arriving later is refused", async () => {
    const o = await setup();
    const body = await customSpec({ fleet: o.fleet.name, name: "orphan" });
    await queueUnconfirmed(o, body, "job_parorphan00000000000001");
    expect(await unconfirmedFlag(o.fleet.id, "job_parorphan00000000000001")).toBe(1);
    // Past SF_RESERVATION_SETTLE_SECONDS (1 in tests) the fleet's settle timer gives it up: its alarm
    // runs the timers that are due (on a loaded machine the first run may come a little before).
    await new Promise((r) => setTimeout(r, 1_100));
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(o.fleet.id));
    const until = Date.now() + 5_000;
    for (;;) {
      await runDurableObjectAlarm(stub);
      const flag = await unconfirmedFlag(o.fleet.id, "job_parorphan00000000000001");
      if (flag === null || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await unconfirmedFlag(o.fleet.id, "job_parorphan00000000000001")).toBeNull();
    expect((await fleetStub(testEnv, o.fleet.id).jobStatuses()).map((j) => j.id)).toEqual([]);
    const late = await reserveFor(o, "job_parorphan00000000000001", body, null);
    expect(late).toMatchObject({ kind: "refused", code: "CONFLICT" });
    expect((await userStub(testEnv, o.uid).inspect()).held).toBe(0);
    await converge([o.fleet.id]);
    expect(
      await testEnv.DB.prepare("SELECT id FROM jobs WHERE id = ?")
        .bind("job_parorphan00000000000001")
        .first(),
    ).toBeNull();
  });

  it("is confirmed by a retry with its key, which answers with its job", async () => {
    const o = await setup();
    const body = await customSpec({ fleet: o.fleet.name, name: "retried" });
    expect((await reserveFor(o, "job_parretried000000000001", body, "par-key-1")).kind).toBe("reserved");
    await queueUnconfirmed(o, body, "job_parretried000000000001", "par-key-1");
    const retry = await api(o.token, "POST", "/v1/jobs", body, { "idempotency-key": "par-key-1" });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.job.id).toBe("job_parretried000000000001");
    expect(await unconfirmedFlag(o.fleet.id, "job_parretried000000000001")).toBe(0);
  });

  it("leaves nothing behind when its reservation is refused: the jobs queued meanwhile are withdrawn", async () => {
    const o = await setup();
    await setMaxJobs(o.name, 1);
    // The first submit teaches this isolate the user's quota; the next ones ask both objects at once.
    const first = await api(
      o.token,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: o.fleet.name, name: "one" }),
    );
    expect(first.status).toBe(201);
    for (const name of ["two", "three"]) {
      const refused = await api(o.token, "POST", "/v1/jobs", await customSpec({ fleet: o.fleet.name, name }));
      expect(refused.body.error?.code).toBe("QUOTA_EXCEEDED");
    }
    expect((await fleetStub(testEnv, o.fleet.id).jobStatuses()).map((j) => j.id)).toEqual([
      first.body.job.id,
    ]);
    await converge([o.fleet.id]);
    const d1 = await testEnv.DB.prepare("SELECT id FROM jobs WHERE user_id = ?")
      .bind(o.uid)
      .all<{ id: string }>();
    expect(d1.results.map((r) => r.id)).toEqual([first.body.job.id]);
  });
});
