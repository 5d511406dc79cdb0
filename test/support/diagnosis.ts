/**
 * A failed run's diagnosis as tier-3/4 tests read it back (issue 29): GET /v1/jobs/:id, polled until the
 * Fleet DO made it (it follows the FAILED status by SF_DIAGNOSIS_SETTLE_SECONDS), parsed with the API's own
 * schema; and the log line it rests on, found where the console jumps to (its rank, stream and seq).
 */
import { expect } from "vitest";
import type { z } from "zod";
import { DiagnosisView } from "../../contract/diagnosis-policy.js";
import { type ControlPlane, call } from "./control-plane.js";
import type { JobState } from "./jobs.js";
import type { RunDetail } from "./lifecycle.js";
import { newSfHome, sfJson } from "./sf.js";

export type RunDiagnosis = z.infer<typeof DiagnosisView>;

export interface DiagnosedJob extends Omit<JobState, "runs"> {
  /** The diagnosis of the job's latest failed run (null while none is made). */
  diagnosis: RunDiagnosis | null;
  runs: Array<RunDetail & { diagnosis: RunDiagnosis | null }>;
}

/** Polls GET /v1/jobs/:id until the run of `attempt` carries its diagnosis; returns it and the job. */
export async function waitForDiagnosis(
  cp: ControlPlane,
  token: string,
  id: string,
  attempt = 1,
  timeoutMs = 30_000,
): Promise<{ diagnosis: RunDiagnosis; job: DiagnosedJob }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(cp, token, "GET", `/v1/jobs/${id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const job = r.body as unknown as DiagnosedJob;
    const run = job.runs.find((x) => x.attempt === attempt);
    if (run?.diagnosis) return { diagnosis: DiagnosisView.parse(run.diagnosis), job };
    if (Date.now() > deadline)
      throw new Error(
        `run ${attempt} of ${id} has no diagnosis after ${timeoutMs} ms: ${JSON.stringify(job)}`,
      );
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

/** The diagnosis's line is a stored log line of its run: same rank, stream, seq, cursor and text. */
export async function expectLineStored(
  cp: ControlPlane,
  token: string,
  id: string,
  runId: string,
  line: NonNullable<RunDiagnosis["line"]>,
): Promise<void> {
  const q = `run=${runId}&rank=${line.rank}&stream=${line.stream}&limit=5000`;
  const r = await call(cp, token, "GET", `/v1/jobs/${id}/logs?${q}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const stored = (r.body.lines as Array<{ seq: number; cursor: number; line: string }>).find(
    (l) => l.seq === line.seq,
  );
  expect(stored, `rank ${line.rank} ${line.stream} line ${line.seq}`).toMatchObject({
    cursor: line.cursor,
    line: line.text,
  });
}

/** `sf job status --json` shows the same diagnosis the API holds, on the run of `attempt`. */
export async function expectSfShows(
  cp: ControlPlane,
  token: string,
  id: string,
  diagnosis: RunDiagnosis,
  attempt = 1,
): Promise<void> {
  const user = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: token } };
  const shown = await sfJson<{ runs: Array<{ attempt: number; diagnosis: unknown }> }>(
    ["job", "status", id],
    user,
  );
  expect(shown.runs.find((r) => r.attempt === attempt)?.diagnosis).toEqual(diagnosis);
}
