/**
 * What the job page reads once per request (GET /v1/jobs/:id as the signed-in user) and hands to its
 * header (pages/job.tsx) and to the tab being shown (pages/job-tabs.tsx).
 */
import type { z } from "zod";
import type { JobView } from "../../contract/api.schema.js";
import { DiagnosisView } from "../../contract/diagnosis-policy.js";
import { apiGet, type ConsoleCtx } from "./api.js";

export interface RunSummary {
  id: string;
  attempt: number;
  epoch: number;
  status: string;
  placement: unknown;
  gpus: number;
  allocated_at: string | null;
  ended_at: string | null;
  exit_code: number | null;
  reason: string | null;
  resumed_from: { run_id: string; step: number | null } | null;
  /** It ran beyond its team's guarantee, on GPUs lent by idle teams (absent from older servers). */
  borrowed?: boolean;
  /** Why it failed (issue 29), once diagnosed; null before, absent from older servers. */
  diagnosis?: unknown;
}

export interface JobEvent {
  seq: number;
  ts: string;
  from: string | null;
  to: string;
  edge: string;
  actor: string | null;
  detail: unknown;
}

export interface JobDetail {
  job: JobView & { spec: unknown };
  runs: RunSummary[];
  events: JobEvent[];
}

export const TABS = ["charts", "logs", "events", "hardware", "artifacts", "config", "samples"] as const;
export type TabName = (typeof TABS)[number];

export const TAB_LABELS: Record<TabName, string> = {
  charts: "Charts",
  logs: "Logs",
  events: "Events",
  hardware: "Hardware",
  artifacts: "Artifacts",
  config: "Config",
  samples: "Samples",
};

/** The job as the API shows it to this user; a job they may not see fails like a missing one (404 page). */
export function loadJob(c: ConsoleCtx, id: string): Promise<JobDetail> {
  return apiGet<JobDetail>(c, `/v1/jobs/${encodeURIComponent(id)}`);
}

/** The run a tab shows: `?run=` when it names one of the job's runs, else the latest. */
export function selectedRun(detail: JobDetail, wanted: string | undefined): RunSummary | undefined {
  return detail.runs.find((r) => r.id === wanted) ?? detail.runs.at(-1);
}

export type Diagnosis = z.infer<typeof DiagnosisView>;

/**
 * A run's diagnosis as this console can show it, or null: none yet, or one of a shape it does not know
 * (a newer server's); the API's own schema (contract/diagnosis-policy.ts DiagnosisView) checks it.
 */
export function diagnosisOf(value: unknown): Diagnosis | null {
  if (value === null || value === undefined) return null;
  const parsed = DiagnosisView.safeParse(value);
  return parsed.success ? parsed.data : null;
}
