/** Runs as the Worker sees them: the Run DO that holds a run's data, and the ledger's view of the run. */
import { and, desc, eq } from "drizzle-orm";
import { runIsOver } from "../../durable-objects/run-policy.js";
import { type Db, schema } from "../db/client.js";
import type { AppEnv } from "../env.js";
import { AppError } from "../errors.js";
import { checkArtifactPath } from "./artifact-store.js";
import type { JobRow } from "./jobs.service.js";

export function runStub(env: AppEnv, runId: string) {
  return env.RUN.get(env.RUN.idFromName(runId));
}

export interface RunRef {
  id: string;
  over: boolean;
}

/** Whether the ledger says a run is over; null when D1 does not know the run (yet). */
export async function ledgerRunOver(d: Db, runId: string): Promise<boolean | null> {
  const row = await d
    .select({ status: schema.runs.status, endedAt: schema.runs.endedAt })
    .from(schema.runs)
    .where(eq(schema.runs.id, runId))
    .get();
  return row ? runIsOver(row.status, row.endedAt) : null;
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
 * A run's artifact bytes as a download (its digest as the ETag). `kind` restricts which artifacts may be
 * read this way (agents may only fetch checkpoints).
 */
export async function artifactDownload(
  env: AppEnv,
  runId: string,
  rawPath: string,
  opts: { kind?: string } = {},
): Promise<Response> {
  const path = checkArtifactPath(rawPath);
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
