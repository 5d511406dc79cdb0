/**
 * Read-your-writes for a submitter. A submit's 201 leaves once its jobs are committed in their Fleet DO;
 * D1, which the read routes query, hears of them a few milliseconds later. Before such a read, the
 * caller's own object names the fleets holding jobs it admitted that no fleet has reported as written to
 * D1 yet, and each of those fleets confirms them (a submit that asked both objects at once confirms its
 * jobs a moment after its answer) and flushes first. If one cannot (D1 refuses writes), the read answers 503
 * rather than a list without the job. Nothing to wait for is the common case: one small RPC.
 */

import { db } from "../../d1/client.js";
import { fleetStub } from "../../durable-objects/fleet/stub.js";
import { userStub } from "../../durable-objects/user/stub.js";
import type { Ctx } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { type JobRow, readableJob } from "../services/jobs.service.js";

export async function readYourWrites(c: Ctx): Promise<void> {
  const p = c.get("principal");
  if (p.kind !== "user") return;
  const { fleets, quota } = await userStub(c.env, p.userId).unprojected();
  const ids = Object.keys(fleets);
  if (ids.length === 0) return;
  // Each fleet confirms the caller's jobs it may still hold unconfirmed (their reservations are the
  // caller's object's), then writes what waits to D1.
  const done = await Promise.all(
    ids.map((id) => fleetStub(c.env, id).projected({ jobIds: fleets[id]!, quota })),
  );
  if (!done.every(Boolean)) throw behind(c);
}

/**
 * For a read that missed in D1: waits until D1 holds what the caller may be looking for, a user's own
 * admissions (above) or, for an agent, everything its fleet wrote (a LaunchRequest reaches the agent
 * before the job reaches D1). 503 while D1 refuses writes.
 */
export async function catchUp(c: Ctx): Promise<void> {
  const p = c.get("principal");
  if (p.kind === "user") return readYourWrites(c);
  if (!(await fleetStub(c.env, p.fleetId).projected())) throw behind(c);
}

function behind(c: Ctx): AppError {
  c.header("Retry-After", "2");
  return new AppError(
    "UNAVAILABLE",
    "the job ledger is behind its fleet (it is not accepting writes right now); retry shortly",
  );
}

/**
 * One job as its fleet has it now: its fleet writes what it holds to D1 first, so the job, its runs and
 * events are read fresh whoever changed them (a user's stop, an agent's report). 503 while D1 refuses.
 */
export async function freshJob(c: Ctx, id: string): Promise<JobRow> {
  const job = await readableJobNow(c, id);
  if (!(await fleetStub(c.env, job.fleetId).projected())) throw behind(c);
  return readableJob(db(c.env.DB), c.get("principal"), id);
}

/**
 * A job the caller may read, from D1; a job D1 does not hold yet that the caller just submitted (or, for
 * an agent, that its fleet just dispatched) is waited for (catchUp), so routes under a job (its logs,
 * metrics, events) find it right after the 201.
 * Only a miss pays for the wait.
 */
export async function readableJobNow(c: Ctx, id: string): Promise<JobRow> {
  const d = db(c.env.DB);
  const p = c.get("principal");
  try {
    return await readableJob(d, p, id);
  } catch (err) {
    if (!(err instanceof AppError && err.code === "JOB_NOT_FOUND")) throw err;
    await catchUp(c);
    return readableJob(d, p, id);
  }
}
