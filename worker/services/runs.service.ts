/** Runs as the Worker sees them: the Run DO that holds a run's data, and the ledger's view of the run. */
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { runIsOver } from "../../contract/job-states.js";
import { type Db, schema } from "../../d1/client.js";
import { runStub } from "../../durable-objects/run/stub.js";
import type { AppEnv } from "../env.js";
import { AppError } from "../errors.js";
import { blobKey } from "../submit/checks.js";
import { type JobRow, jobHistory } from "./jobs.service.js";

export { runStub };

export interface RunRef {
  id: string;
  over: boolean;
}

/** The run a readback is about: the one asked for (it must be this job's), else the current or latest. */
export async function jobRun(d: Db, job: JobRow, wanted: string | undefined): Promise<RunRef> {
  const cols = { id: schema.runs.id, status: schema.runs.status, endedAt: schema.runs.endedAt };
  const id = wanted ?? job.currentRunId;
  const row = id
    ? await d
        .select(cols)
        .from(schema.runs)
        .where(and(eq(schema.runs.id, id), eq(schema.runs.jobId, job.id)))
        .get()
    : await d
        .select(cols)
        .from(schema.runs)
        .where(eq(schema.runs.jobId, job.id))
        .orderBy(desc(schema.runs.attempt))
        .get();
  if (!row) {
    throw new AppError(
      "NOT_FOUND",
      wanted ? `job ${job.id} has no run ${wanted}` : `job ${job.id} has not run yet (it is ${job.status})`,
    );
  }
  return { id: row.id, over: runIsOver(row.status, row.endedAt) };
}

/**
 * A run's place in its job's history: the ledger's row for it and the job's transitions from its
 * dispatch (the move to SUBMITTED at or after allocated_at) to its end. Times are ISO strings of one
 * format, so they compare as text.
 */
export async function runTimeline(d: Db, jobId: string, runId: string) {
  const history = await jobHistory(d, jobId);
  const run = history.runs.find((r) => r.id === runId);
  if (!run) throw new AppError("NOT_FOUND", `job ${jobId} has no run ${runId}`);
  const start = history.events.findIndex((e) => e.to === "SUBMITTED" && e.ts >= run.allocated_at);
  const transitions =
    start < 0 ? [] : history.events.slice(start).filter((e) => run.ended_at === null || e.ts <= run.ended_at);
  return {
    run: {
      id: run.id,
      attempt: run.attempt,
      status: run.status,
      allocated_at: run.allocated_at,
      ended_at: run.ended_at,
      exit_code: run.exit_code,
      reason: run.reason,
    },
    transitions,
  };
}

/**
 * A run's artifact bytes as a download (its digest as the ETag). `kind` restricts which artifacts may be
 * read this way (agents may only fetch checkpoints).
 */
export async function artifactDownload(
  env: AppEnv,
  runId: string,
  rawPath: string,
  opts: { kind?: string } = {},
): Promise<Response> {
  // Looked up as given: a reference may have any path, and only stored rows lead to bytes.
  const path = rawPath;
  const found = await runStub(env, runId).artifact(path);
  if (!found || (opts.kind && found.view.kind !== opts.kind)) {
    throw new AppError("NOT_FOUND", `run ${runId} registered no ${opts.kind ?? "artifact"} ${path}`);
  }
  if (!found.r2Key) {
    throw new AppError(
      "NOT_FOUND",
      `artifact ${path} was registered by path only; its bytes were not uploaded`,
    );
  }
  const obj = await env.BLOBS.get(found.r2Key);
  if (!obj) throw new AppError("BLOB_NOT_FOUND", `the bytes of artifact ${path} are gone from storage`);
  const name = path.slice(path.lastIndexOf("/") + 1);
  return new Response(obj.body, {
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(obj.size),
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
      ...(found.view.digest ? { etag: `"${found.view.digest}"` } : {}),
    },
  });
}

/** Where a checkpoint of an earlier run is asked for (`?run=&path=`): agents and pulling workloads. */
export const CheckpointQuery = z.object({
  run: z.string().startsWith("run_"),
  path: z.string().min(1).max(1024),
});

/** A stored blob's bytes, streamed with its length and digest (the caller checked the right to read). */
export async function blobResponse(env: AppEnv, digest: string): Promise<Response> {
  const obj = await env.BLOBS.get(blobKey(digest));
  if (!obj) throw new AppError("BLOB_NOT_FOUND", `blob ${digest} does not exist`);
  return new Response(obj.body, {
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(obj.size),
      etag: `"${digest}"`,
    },
  });
}
