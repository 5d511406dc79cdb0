/**
 * POST /v1/jobs, start to end: one job, or a job array (`{"jobs": [spec, …]}`, a sweep) admitted all or
 * none. The sequence, and the one place that owns it:
 *
 *   1. the specs, against this isolate's cached configuration (checks.ts; no write, nothing to undo);
 *   2. the submitter's object (durable-objects/user) reserves one slot per job and the Idempotency-Key, in
 *      one transaction that also checks the token, the account and the quota;
 *   3. the fleet's object (durable-objects/fleet) queues the jobs in one transaction, re-checking what is
 *      its own to decide (drain, image allowlist); a refusal gives the slots and the key back;
 *      Steps 2 and 3 are group-committed per object (durable-objects/group-commit.ts): submits that reach
 *      a step while this isolate's call to the same object is in flight go together in its next call.
 *      They run at once when this isolate knows the user's quota (it reserved for the user before): the
 *      fleet queues the jobs unconfirmed (decided, but nothing reaches D1 or an agent), a refused
 *      reservation withdraws them before the refusal is answered, and a taken one is confirmed after the
 *      answer (confirmations.ts; decision 119).
 *   4. 201. Both objects committed before it left. D1 hears of the jobs after it, from the fleet's outbox,
 *      and the user's object learns then that they are active (reads wait for that: read-your-writes.ts).
 *
 * A crash between 2 and 3 leaves a reservation the user's object settles with the fleet after
 * SF_RESERVATION_SETTLE_SECONDS (15): the job is there, or its id is abandoned and the slot and key are
 * free. A retry with the same key and body completes an admission still in flight with the same job ids,
 * so it happens exactly once.
 */
import { z } from "zod";
import { canonicalJson, sha256Hex } from "../../contract/digest.js";
import type { Result } from "../../contract/errors.js";
import type { JobDetail, SubmitInput } from "../../contract/fleet.schema.js";
import { newId } from "../../contract/ids.js";
import { totalGpus } from "../../contract/jobspec.schema.js";
import { jobPriority, quotaRefusal } from "../../contract/quota.js";
import { db } from "../../d1/client.js";
import { GroupCommit, overWire, type Sender, toWire } from "../../durable-objects/group-commit.js";
import { userStub } from "../../durable-objects/user/stub.js";
import type { KeyView, ReserveInput, ReserveResult } from "../../durable-objects/user/user.do.js";
import { type Ctx, currentUser, reauthenticate } from "../auth/middleware.js";
import { forgetToken } from "../auth/principal-cache.js";
import { config } from "../env.js";
import { AppError, unwrap } from "../errors.js";
import { waitUntil } from "../execution.js";
import { parseValue } from "../http.js";
import { configCache, configGeneration, refreshConfigSoon } from "../services/config-cache.js";
import { fleetStub } from "../services/fleets.service.js";
import { httpHubClient } from "../services/hf-hub.js";
import { addToCounter } from "../services/metrics-counters.js";
import { requireSecrets, withHubToken } from "../services/secrets.service.js";
import { type Checked, checkHub, checkSpec } from "./checks.js";
import { confirmLater, knownQuota, rememberQuota, takeConfirmations } from "./confirmations.js";

/** The most jobs one request may carry (a sweep's array). */
export const MAX_JOB_ARRAY = 1000;

const IdempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces");

/** A body with a `jobs` array is a job array; anything else is one JobSpec. */
function specsOf(raw: unknown): { specs: unknown[]; array: boolean } {
  if (raw && typeof raw === "object" && !Array.isArray(raw) && "jobs" in raw) {
    const jobs = (raw as { jobs: unknown }).jobs;
    if (!Array.isArray(jobs) || jobs.length === 0) {
      throw new AppError("INVALID_SPEC", "`jobs` must be a non-empty array of JobSpecs");
    }
    if (jobs.length > MAX_JOB_ARRAY) {
      throw new AppError(
        "INVALID_SPEC",
        `a job array holds at most ${MAX_JOB_ARRAY} jobs; this one has ${jobs.length}`,
        {
          limit: MAX_JOB_ARRAY,
        },
      );
    }
    return { specs: jobs, array: true };
  }
  return { specs: [raw], array: false };
}

/** Every spec's checks; a job array's jobs must all go to one fleet (one transaction queues them). */
async function checkAll(c: Ctx, specs: unknown[]): Promise<Checked[]> {
  const me = currentUser(c);
  const d = db(c.env.DB);
  const hub = httpHubClient(config(c.env).hfEndpoint);
  const out: Checked[] = [];
  for (const [i, raw] of specs.entries()) {
    let checked: Checked;
    try {
      // A job array goes to one fleet: its later jobs are placed where its first went, if they may run there.
      checked = await checkSpec(c.env, d, raw, out[0]?.fleet.name);
      const { spec, token } = await withHubToken(
        c.env,
        d,
        { userId: me.userId, fleetId: checked.fleet.id },
        checked.spec,
      );
      const verdicts = await checkHub(
        hub,
        spec,
        token,
        checked.fleet.hfUnavailable === "admit" ? "open" : "closed",
      );
      const unchecked = verdicts.find((v) => !v.checked);
      if (unchecked && !unchecked.checked) checked = { ...checked, hfUnchecked: unchecked.reason };
      await requireSecrets(
        d,
        { userId: me.userId, fleetId: checked.fleet.id, fleetName: checked.fleet.name },
        spec.secrets,
      );
      checked = { ...checked, spec };
    } catch (err) {
      // A job array names the job a refusal is about.
      if (specs.length > 1 && err instanceof AppError) {
        throw new AppError(err.code, `jobs[${i}]: ${err.message}`, { ...(err.details ?? {}), index: i });
      }
      throw err;
    }
    if (out.length > 0 && checked.fleet.id !== out[0]!.fleet.id) {
      throw new AppError(
        "INVALID_SPEC",
        `jobs[${i}] goes to fleet ${checked.fleet.name}, jobs[0] to ${out[0]!.fleet.name}: a job array goes to one fleet`,
        { index: i },
      );
    }
    out.push(checked);
  }
  return out;
}

/** What the fleet queues for each checked spec, under the given job ids. */
function inputsFor(
  c: Ctx,
  checked: Checked[],
  jobIds: string[],
  quota: SubmitInput["quota"],
  key: { idemKey: string | null; requestHash: string | null },
  unconfirmed = false,
): SubmitInput[] {
  const me = currentUser(c);
  return checked.map((ch, i) => ({
    jobId: jobIds[i]!,
    userId: me.userId,
    userName: me.name,
    spec: ch.spec,
    quota,
    priority: jobPriority(ch.spec.lifecycle.priority, quota),
    blobDigests: ch.blobDigests,
    capsule: ch.capsule,
    launch: ch.launch,
    imageFromCatalog: ch.imageFromCatalog,
    ...(ch.hfUnchecked ? { hfUnchecked: ch.hfUnchecked } : {}),
    ...(ch.candidates ? { placement: ch.candidates } : {}),
    // A job array's key names the array: D1's admission rows (unique per key) hold it on its first job.
    idemKey: i === 0 ? key.idemKey : null,
    requestHash: i === 0 ? key.requestHash : null,
    ...(unconfirmed ? { unconfirmed: true } : {}),
  }));
}

function answer(c: Ctx, jobs: JobDetail[], array: boolean, status: 200 | 201) {
  if (status === 200) c.header("Idempotent-Replayed", "true");
  else c.set("admitted", { fleetId: jobs[0]!.fleet_id, jobs: jobs.length });
  return array ? c.json({ jobs }, status) : c.json({ job: jobs[0]! }, status);
}

/** The jobs of an admission its fleet holds, or null when it holds none of them (yet). */
async function jobsOf(c: Ctx, fleetId: string, jobIds: string[]): Promise<JobDetail[] | null> {
  const stub = fleetStub(c.env, fleetId);
  const jobs = await Promise.all(jobIds.map((id) => stub.getJob(id)));
  return jobs.every((j) => j !== null) ? (jobs as JobDetail[]) : null;
}

/**
 * A keyed request whose key is taken: the same request again is answered with its jobs (completing an
 * admission still in flight with the same job ids); a different request is refused.
 */
async function answerTakenKey(
  c: Ctx,
  prior: KeyView,
  requestHash: string,
  finish: ((jobIds: string[]) => Promise<{ jobs: JobDetail[]; created: boolean } | null>) | null,
  array: boolean,
  confirm: ((fleetId: string, jobIds: string[]) => Promise<void>) | null = null,
) {
  if (prior.request_hash !== requestHash) {
    throw new AppError(
      "IDEMPOTENCY_KEY_REUSED",
      "this Idempotency-Key was already used for a different request",
      {
        job_id: prior.job_ids[0],
      },
    );
  }
  const known = await jobsOf(c, prior.fleet_id, prior.job_ids);
  if (known) {
    // Its request may have gone before confirming them: the key's reservation is theirs.
    if (confirm) await confirm(prior.fleet_id, prior.job_ids);
    return answer(c, known, array, 200);
  }
  // In flight (or its request died before the fleet queued it): this request completes it.
  const done = finish && prior.reserved ? await finish(prior.job_ids) : null;
  if (done) return answer(c, done.jobs, array, done.created ? 201 : 200);
  throw new AppError(
    "CONFLICT",
    "a request with this Idempotency-Key is still being processed; retry shortly",
  );
}

/** Group commit's limits: one call carries at most one full job array's worth of jobs. */
const GROUP_LIMITS = { maxInputs: 64, maxWeight: MAX_JOB_ARRAY, stallMs: 2_000 };

/** This isolate's reservations and queueings, grouped per object (durable-objects/group-commit.ts). */
const reservations = new GroupCommit<ReserveInput, ReserveResult>(GROUP_LIMITS);
const queueings = new GroupCommit<SubmitInput[], Result<{ jobs: JobDetail[] }>>(GROUP_LIMITS);

function isDryRun(c: Ctx): boolean {
  const v = c.req.query("dry_run");
  if (v === undefined) return false;
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  throw new AppError("BAD_REQUEST", `dry_run takes 1 or 0 (true or false), not "${v}"`);
}

/**
 * POST /v1/jobs?dry_run=1: every check a submit makes, then what its fleet would decide now (start, preempt
 * whom, or wait and why), with nothing reserved, queued or changed (fleet.do.ts `dryRun`). The quota's
 * static limits are checked; its counts (active jobs, GPU-hours today) are what a real submit would meet.
 */
async function dryRun(c: Ctx, ready: Checked[], fleetId: string) {
  const me = currentUser(c);
  const quota = await userStub(c.env, me.userId).quota(me.userId);
  for (const ch of ready) {
    const refused = quotaRefusal(
      { gpus: totalGpus(ch.spec), profiles: ch.spec.resources.pools.map((p) => p.profile) },
      quota,
      0,
    );
    if (refused) throw new AppError(refused.code, refused.message, refused.details);
  }
  const ids = ready.map(() => newId("job"));
  const result = await fleetStub(c.env, fleetId).dryRun(
    inputsFor(c, ready, ids, quota, { idemKey: null, requestHash: null }),
  );
  return c.json({ dry_run: true, jobs: unwrap(result).jobs });
}

export async function submitJobs(c: Ctx, raw: unknown) {
  const me = currentUser(c);
  const keyHeader = c.req.header("idempotency-key");
  const key = keyHeader === undefined ? null : parseValue(IdempotencyKey, keyHeader);
  const requestHash = key ? await sha256Hex(canonicalJson(raw)) : null;
  const { specs, array } = specsOf(raw);
  const user = userStub(c.env, me.userId);
  refreshConfigSoon(c.env.DB, (p) => waitUntil(c, p));

  // 1. The specs, against cached configuration. A retry of a finished submit is answered even if a check
  //    would now refuse it: the jobs exist, whatever the fleet, the hub or the catalog say now.
  let checked: Checked[] | null = null;
  let refusal: unknown = null;
  try {
    checked = await checkAll(c, specs);
  } catch (err) {
    refusal = err;
  }
  if (!checked) {
    // The caller may be a user this isolate remembered: refusals go only to a token that is still good.
    await reauthenticate(c, "operator");
    // A refusal may rest on configuration cached before an admin changed it (a fleet drained, then
    // reopened): if the generation moved, the checks run again on fresh rows.
    if (configCache.sync(await configGeneration(c.env.DB))) {
      try {
        checked = await checkAll(c, specs);
      } catch (err) {
        refusal = err;
      }
    }
  }
  if (!checked) {
    const prior = key ? await user.keyOf(me.userId, key) : null;
    if (prior && requestHash) return answerTakenKey(c, prior, requestHash, null, array);
    throw refusal;
  }
  const ready = checked;
  const fleetId = ready[0]!.fleet.id;
  if (isDryRun(c)) return dryRun(c, ready, fleetId);

  // 2. The slots and the key, atomically with the token, account and quota checks.
  const now = Date.now();
  const jobIds = ready.map(() => newId("job"));
  const keepAlive = (p: Promise<unknown>) => waitUntil(c, p);
  const alone = config(c.env).groupCommit === "off";
  const reserveVia: Sender<ReserveInput, ReserveResult> = {
    keepAlive,
    alone,
    send: overWire((userId, batch) => userStub(c.env, userId).reserveBatch(batch)),
  };
  const queueVia: Sender<SubmitInput[], Result<{ jobs: JobDetail[] }>> = {
    keepAlive,
    alone,
    send: overWire((id, batch) => {
      addToCounter("fleet_submit_calls", id);
      // Confirmations of this isolate's earlier admissions to the fleet ride along.
      return fleetStub(c.env, id).submitBatch(batch, takeConfirmations(id));
    }),
  };
  const reserving = reservations.call(
    me.userId,
    {
      userId: me.userId,
      tokenId: me.tokenId,
      fleetId,
      now,
      key,
      requestHash,
      jobs: ready.map((ch, i) => ({
        jobId: jobIds[i]!,
        gpus: totalGpus(ch.spec),
        profiles: ch.spec.resources.pools.map((p) => p.profile),
      })),
    },
    ready.length,
    reserveVia,
  );
  // The fleet queues them meanwhile, unconfirmed, under the quota this isolate last heard for the user;
  // their confirmation, with the reservation's own quota, follows the answer (confirmations.ts). A user
  // this isolate has not reserved for yet goes one step after the other.
  const guess = knownQuota(me.userId);
  const early = guess
    ? queueings.call(
        fleetId,
        inputsFor(c, ready, jobIds, guess, { idemKey: key, requestHash }, true),
        ready.length,
        queueVia,
      )
    : null;
  let reservation: ReserveResult;
  try {
    reservation = await reserving;
  } catch (err) {
    // Whatever the fleet queued meanwhile settles with the user's object (reserved there, or not).
    if (early) keepAlive(early.catch(() => undefined));
    throw err;
  }
  if (reservation.kind !== "fenced" && reservation.kind !== "refused")
    rememberQuota(me.userId, reservation.quota);
  if (early && reservation.kind !== "reserved") {
    // Not this request's to admit: what the fleet queued meanwhile goes before the answer.
    const queued = await early.catch(() => null);
    if (queued?.ok) await fleetStub(c.env, fleetId).withdrawAdmissions(jobIds);
  }
  const confirmNow = async (id: string, ids: string[]) => {
    if (reservation.kind === "key_taken")
      await fleetStub(c.env, id).confirmAdmissions(toWire([{ jobIds: ids, quota: reservation.quota }]));
  };
  if (reservation.kind === "fenced") {
    // The token or its user changed since this isolate resolved it: answer as a fresh lookup would.
    forgetToken(me.tokenId);
    await reauthenticate(c, "operator");
    throw new AppError("UNAUTHENTICATED", "this token is no longer valid for submitting; check `sf whoami`");
  }
  if (reservation.kind === "refused") {
    throw new AppError(reservation.code, reservation.message, reservation.details);
  }
  if (reservation.kind === "key_taken") {
    const quota = reservation.quota;
    const finish = async (ids: string[]) => {
      if (ids.length !== ready.length) return null;
      const held = reservation.existing.fleet_id;
      const r = await queueings.call(
        held,
        inputsFor(c, ready, ids, quota, { idemKey: key, requestHash }),
        ready.length,
        queueVia,
      );
      if (r.ok) return { jobs: r.value.jobs, created: true };
      // Queued meanwhile by the request that holds the key: read them.
      const jobs = r.code === "ALREADY_EXISTS" ? await jobsOf(c, held, ids) : null;
      return jobs ? { jobs, created: false } : null;
    };
    return answerTakenKey(c, reservation.existing, requestHash!, finish, array, confirmNow);
  }

  // 3. The fleet queues them, or refuses and the slots and key go back. (An RPC that threw may still
  //    have queued them: that reservation is kept, and settles with the fleet.)
  const queueSerially = () =>
    queueings.call(
      fleetId,
      inputsFor(c, ready, jobIds, reservation.quota, { idemKey: key, requestHash }),
      ready.length,
      queueVia,
    );
  let result = early ? await early : await queueSerially();
  // Refused under this isolate's older sight of the quota for what the reservation's own quota may allow
  // (an admin just raised the user's priority class cap): nothing was queued; queue under the right one.
  const queuedEarly = early !== null && result.ok;
  const stale = JSON.stringify(guess) !== JSON.stringify(reservation.quota);
  if (early && !result.ok && result.code === "PRIORITY_CLASS_NOT_ALLOWED" && stale)
    result = await queueSerially();
  if (queuedEarly) confirmLater(fleetId, { jobIds, quota: reservation.quota });
  if (!result.ok && result.code === "ALREADY_EXISTS") {
    // A retry with this request's key queued them first, under these very job ids: it answered 201, this
    // request answers as every other retry does.
    const jobs = await jobsOf(c, fleetId, jobIds);
    if (jobs) return answer(c, jobs, array, 200);
  }
  if (!result.ok) await user.release(jobIds);
  const jobs = unwrap(result).jobs;
  // Placed over several fleets: counted by the fleet chosen (flushed with the admission's own count).
  if (ready[0]?.candidates) addToCounter("placements", fleetId, jobs.length);
  return answer(c, jobs, array, 201);
}
