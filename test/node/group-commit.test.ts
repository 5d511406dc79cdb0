/**
 * Group commit in the real runtime (decision 113). Submits that meet in one Worker isolate while a call to
 * the same object is in flight wait for it and share the next call; each must still get its own answer.
 * vitest-pool-workers cannot run the waiting (its runner turns off cross-request promise resolution, and
 * the worker tier runs with SF_GROUP_COMMIT=off), so these racing submits go to `npm start`'s control
 * plane, which runs workerd as production does.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { baseSpec, recipeDigest } from "../support/jobs.js";
import { newFleet, newUser, sharedControlPlane } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let digest = "";

beforeAll(async () => {
  cp = sharedControlPlane();
  const probe = await newUser(cp, "gc-probe");
  digest = await recipeDigest(cp, probe.token, "python/charlm");
});

function spec(fleet: string, name: string) {
  return baseSpec({
    name,
    fleet,
    recipe: { name: "python/charlm", version: "1.0.0", digest },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
  });
}

async function submit(token: string, body: unknown, key?: string) {
  const res = await fetch(`${cp.url}/v1/jobs`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...(key ? { "idempotency-key": key } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { job?: { id: string; name: string }; error?: { code: string } };
  return { status: res.status, ...json };
}

async function withQuota(maxJobs: number) {
  const user = await newUser(cp, "gc");
  const quota = { max_gpus: 16, max_jobs: maxJobs, daily_gpu_hours: 1000 };
  expect((await call(cp, cp.adminToken, "PUT", `/v1/users/${user.name}/quota`, quota)).status).toBe(200);
  return user;
}

/** One Prometheus sample of GET /v1/admin/metrics (0 when absent). */
async function sample(name: string): Promise<number> {
  const res = await fetch(`${cp.url}/v1/admin/metrics`, {
    headers: { authorization: `Bearer ${cp.adminToken}` },
  });
  const line = (await res.text()).split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : 0;
}

describe("group commit on workerd", () => {
  it("admits 40 racing submits of one user, each answered with its own job, in fewer calls to the fleet", async () => {
    const fleet = await newFleet(cp, "gc");
    const user = await withQuota(200);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => submit(user.token, spec(fleet, `gc-${i}`), `gc-${fleet}-${i}`)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(201));
    // Each request's own job: its name, and forty different ids.
    expect(answers.map((a) => a.job?.name)).toEqual(answers.map((_, i) => `gc-${i}`));
    expect(new Set(answers.map((a) => a.job?.id)).size).toBe(40);
    // Read-your-writes for every one of them.
    const list = await call(cp, user.token, "GET", `/v1/jobs?fleet=${fleet}&limit=100`);
    expect(list.status).toBe(200);
    const listed = (list.body.jobs as { id: string }[]).map((j) => j.id).sort();
    expect(listed).toEqual(answers.map((a) => a.job!.id).sort());
    // The fleet's object was called fewer times than it queued jobs: some of them shared a call. (Counters
    // reach D1 about half a second after the answers, each isolate's on its own clock: wait for both.)
    let calls = 0;
    let admitted = 0;
    for (let i = 0; i < 60 && (admitted < 40 || calls === 0); i++) {
      await new Promise((r) => setTimeout(r, 250));
      calls = await sample(`starforge_fleet_submit_calls_total{fleet="${fleet}"}`);
      admitted = await sample(`starforge_admissions_total{fleet="${fleet}"}`);
    }
    expect(admitted).toBe(40);
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(40);
  });

  it("admits exactly min(distinct requests, max_jobs) of racing keyed retries over 3 fleets, one job per key", async () => {
    const fleets = [await newFleet(cp, "gc"), await newFleet(cp, "gc"), await newFleet(cp, "gc")];
    const maxJobs = 6;
    const user = await withQuota(maxJobs);
    // Ten keys, each sent three times with the same body (to one of the fleets), and five submits without
    // a key: fifteen distinct requests racing for six slots.
    const sends: { key?: string; name: string; fleet: string }[] = [];
    for (let k = 0; k < 10; k++)
      for (let n = 0; n < 3; n++)
        sends.push({ key: `gc-${fleets[0]}-k${k}`, name: `gc-k${k}`, fleet: fleets[k % 3]! });
    for (let n = 0; n < 5; n++) sends.push({ name: `gc-free-${n}`, fleet: fleets[n % 3]! });
    const answers = await Promise.all(sends.map((s) => submit(user.token, spec(s.fleet, s.name), s.key)));

    for (const [i, a] of answers.entries()) {
      // Admitted (201), a retry answered with the same job (200), over the quota (403), or the key still in
      // flight in another request (409 CONFLICT: the CLI retries it).
      expect([200, 201, 403, 409], JSON.stringify(a)).toContain(a.status);
      if (a.status === 403) expect(a.error?.code).toBe("QUOTA_EXCEEDED");
      if (a.status === 409) expect(a.error?.code).toBe("CONFLICT");
      if (a.job) expect(a.job.name).toBe(sends[i]!.name);
    }
    // Every answer that names a job names the key's one job.
    const byKey = new Map<string, Set<string>>();
    for (const [i, a] of answers.entries()) {
      const key = sends[i]!.key ?? `none-${i}`;
      if (a.job) byKey.set(key, (byKey.get(key) ?? new Set()).add(a.job.id));
    }
    for (const ids of byKey.values()) expect(ids.size).toBe(1);
    const jobs = new Set(answers.flatMap((a) => (a.job ? [a.job.id] : [])));
    expect(jobs.size).toBe(maxJobs);
    // Read-your-writes across the fleets: the user's list holds exactly those jobs.
    const list = await call(cp, user.token, "GET", "/v1/jobs?limit=100");
    expect((list.body.jobs as { id: string }[]).map((j) => j.id).sort()).toEqual([...jobs].sort());
  });

  it("refuses every submit of a token from the moment its revoke answered, racing ones included", async () => {
    const fleet = await newFleet(cp, "gc");
    const user = await withQuota(200);
    // A second token of the same user, revoked while its submits are in flight.
    const minted = await call(cp, user.token, "POST", "/v1/tokens", { name: "gc-racer" });
    expect(minted.status).toBe(201);
    const racer = String(minted.body.token);
    const tokenId = String(minted.body.id);
    const inFlight = Array.from({ length: 20 }, (_, i) => submit(racer, spec(fleet, `gc-r-${i}`)));
    const revoked = await call(cp, user.token, "DELETE", `/v1/tokens/${tokenId}`);
    expect(revoked.status).toBe(200);
    const after = await Promise.all(
      Array.from({ length: 10 }, (_, i) => submit(racer, spec(fleet, `gc-a-${i}`))),
    );
    // Racing submits are admitted or refused; every one sent after the revoke answered is refused.
    for (const a of await Promise.all(inFlight)) expect([201, 401]).toContain(a.status);
    for (const a of after) expect(a.status, JSON.stringify(a)).toBe(401);
    // Whatever was admitted is the user's, and nothing else is.
    const admitted = (await Promise.all(inFlight)).flatMap((a) => (a.job ? [a.job.id] : []));
    const list = await call(cp, user.token, "GET", `/v1/jobs?fleet=${fleet}&limit=100`);
    expect((list.body.jobs as { id: string }[]).map((j) => j.id).sort()).toEqual(admitted.sort());
  });
});
