/** Posting a JobSpec safely: one Idempotency-Key per job, so a retry after a network blip replays, never duplicates. */

import { randomUUID } from "node:crypto";
import { sleepBackoff } from "../../../contract/backoff.js";
import type { DryRunJob } from "../../../contract/fleet.schema.js";
import type { JobSpec } from "../../../contract/jobspec.schema.js";
import { DryRunAnswer, JobAnswer, JobsAnswer } from "../../../contract/responses.schema.js";
import { type Api, route } from "../../api.js";
import { CliError } from "../../errors.js";
import { c, info, status } from "../../output.js";

export interface JobDetail {
  id: string;
  name: string;
  status: string;
  gpus: number;
  recipe: string;
  pending_reasons: Array<{ code: string; message: string }>;
  [key: string]: unknown;
}

/** A key for this invocation (a sweep's one request has one too). */
export function idempotencyKey(): string {
  return `sf-${randomUUID()}`;
}

const RETRIES = 3;

function retryable(err: unknown): boolean {
  // UNREACHABLE and TIMEOUT: the request may or may not have arrived (a timed-out POST may still be
  // admitted; the same key replays it). CONFLICT: the first attempt is still in flight.
  return (
    err instanceof CliError &&
    (err.code === "UNREACHABLE" || err.code === "TIMEOUT" || err.code === "CONFLICT")
  );
}

export async function postJob(api: Api, spec: JobSpec, key: string): Promise<JobDetail> {
  return withRetries(async () => {
    const r = await api.post(route("/v1/jobs"), JobAnswer, spec, { headers: { "idempotency-key": key } });
    return r.job;
  });
}

/** Asks what submitting `spec` would do now (POST /v1/jobs?dry_run=1): nothing is queued. */
export async function dryRunJob(api: Api, spec: JobSpec): Promise<DryRunJob> {
  const r = await api.post(route("/v1/jobs", {}, { dry_run: 1 }), DryRunAnswer, spec);
  return r.jobs[0]!;
}

/** A dry run's answer, for people. */
export function describeDryRun(d: DryRunJob): string[] {
  if (d.would === "start") {
    const nodes = [...new Set(d.placement.map((p) => p.node_id))];
    return [`${c.green("would start now")} on ${nodes.length} node(s); nothing was submitted`];
  }
  if (d.would === "preempt") {
    return [
      `${c.yellow("would preempt")} ${d.preempts.length} running job(s), which checkpoint and wait in their place:`,
      ...d.preempts.map(
        (v) =>
          `  ${v.job_id}  ${v.name}  (${v.priority_class}, ${v.gpus} GPU${v.gpus === 1 ? "" : "s"}, ${v.user_id})`,
      ),
      "nothing was submitted",
    ];
  }
  return [
    `${c.yellow("would wait")}:`,
    ...d.pending_reasons.map((r) => `  ${r.code}: ${r.message}`),
    "nothing was submitted",
  ];
}

/** Posts a job array: the server admits every job or none, in one request. */
export async function postJobs(api: Api, specs: JobSpec[], key: string): Promise<JobDetail[]> {
  return withRetries(async () => {
    const r = await api.post(
      route("/v1/jobs"),
      JobsAnswer,
      { jobs: specs },
      { headers: { "idempotency-key": key } },
    );
    return r.jobs;
  });
}

async function withRetries<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt >= RETRIES || !retryable(err)) throw err;
      info(
        c.dim(
          `submit did not complete (${err instanceof Error ? err.message : String(err)}); retrying with the same Idempotency-Key`,
        ),
      );
      await sleepBackoff(attempt, { baseMs: 500, capMs: 8_000 });
    }
  }
}

/** The pending reasons of a queued job, one line each, for people. */
export function describeJob(job: JobDetail): string[] {
  const lines = [`${c.bold(job.id)}  ${job.name}  ${status(job.status)}`];
  if (job.status === "QUEUED")
    for (const r of job.pending_reasons ?? []) lines.push(`  ${c.dim("waiting:")} ${r.message}`);
  return lines;
}
