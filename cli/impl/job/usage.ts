/**
 * `sf status`: my usage against my quota, and how busy each fleet is. `sf usage --by team`: GPU-hours per
 * team in a month or ISO week, in guarantee and borrowed, against its budget (GET /v1/usage/teams).
 */
import type { Command } from "commander";
import { FleetInspect, FleetList, TeamUsage, Usage } from "../../../contract/responses.schema.js";
import { readJson, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, isJson, print } from "../../output.js";
import { colorTable, gpuHours as hours } from "./format.js";

export interface FleetTotals {
  name: string;
  id: string;
  kind: string;
  draining: boolean;
  gpus: number;
  allocated: number;
  free: number;
  queued: number;
  running: number | null;
}

export async function statusCmd(cmd: Command): Promise<void> {
  const api = authedApi(cmd);
  const [usage, fleetList] = await Promise.all([
    api.get(route("/v1/usage"), Usage),
    api.get(route("/v1/fleets"), FleetList),
  ]);
  const fleets: FleetTotals[] = await Promise.all(
    fleetList.fleets.map(async (f) => {
      const t = (await api.get(route("/v1/fleets/{fleet}", { fleet: f.name }), FleetInspect)).totals;
      return {
        name: f.name,
        id: f.id,
        kind: f.kind,
        draining: f.draining,
        gpus: t.gpus,
        allocated: t.allocated,
        free: t.free,
        queued: t.queued,
        running: t.running ?? null,
      };
    }),
  );
  emit({ server: api.server, usage, fleets }, () => {
    const q = usage.quota;
    print(`${c.bold(usage.user)} on ${api.server}`);
    colorTable(
      [
        { what: "active jobs", used: usage.active_jobs, limit: q.max_jobs },
        { what: "GPUs in use", used: usage.active_gpus, limit: q.max_gpus },
        {
          what: "GPU-hours today (UTC)",
          used: hours(usage.gpu_hours_today),
          limit: hours(q.daily_gpu_hours),
        },
        { what: "GPU-hours total", used: hours(usage.gpu_hours_total), limit: null },
      ],
      ["what", "used", "limit"],
    );
    print();
    if (fleets.length === 0) {
      print(c.dim("no fleets yet"));
      return;
    }
    print(c.bold("Fleets"));
    colorTable(
      fleets.map((f) => ({
        fleet: f.name,
        kind: f.kind,
        gpus: f.gpus,
        allocated: f.allocated,
        free: f.free,
        queued: f.queued,
        running: f.running,
        state: f.draining ? "draining" : "open",
      })),
      ["fleet", "kind", "gpus", "allocated", "free", "queued", "running", "state"],
      { state: (s) => (s === "draining" ? c.yellow(s) : s) },
    );
  });
}

export interface UsageFlags {
  by: string;
  period?: string;
  csv?: boolean;
}

/** `2026-12-01 – 2026-12-31`: a period's first and last UTC day (its end is the next one's start). */
function days(start: string, end: string): string {
  const last = new Date(Date.parse(end) - 1).toISOString().slice(0, 10);
  return `${start.slice(0, 10)} – ${last}`;
}

/** `42.1 %`; a budget of 0 has no percentage: it is spent. */
function usedCell(t: TeamUsage["teams"][number]): string | null {
  if (t.budget_gpu_hours === null) return null;
  if (t.budget_percent === null) return "spent";
  return `${t.budget_percent.toFixed(1)} %${t.budget_percent >= 100 ? " spent" : ""}`;
}

/**
 * `sf usage --by team [--period P] [--csv]`: per team its GPU-hours in the period (finished runs and
 * running ones up to now), in its guarantee and borrowed, and its budget's use. --csv writes the server's
 * CSV (per team and fleet, GPU-seconds) to stdout as it came: its rows add up to the ledger.
 */
export async function usageBy(cmd: Command, o: UsageFlags): Promise<void> {
  if (o.csv && isJson())
    throw new CliError("--csv and --json are two formats: give one of them", { exit: EXIT.USAGE });
  const api = authedApi(cmd);
  if (o.csv) {
    const path = route("/v1/usage/teams", {}, { period: o.period || undefined, format: "csv" });
    const res = await api.fetch("GET", path, undefined, { timeout: "total" });
    // An error answer is JSON (a coded error); readJson throws it with its exit code and hint.
    if (!res.ok) await readJson(res);
    process.stdout.write(await res.text());
    return;
  }
  const use = await api.get(route("/v1/usage/teams", {}, { period: o.period || undefined }), TeamUsage);
  emit(use, () => {
    print(`${c.bold(`GPU-hours by team in ${use.period}`)} ${c.dim(`(${days(use.start, use.end)}, UTC)`)}`);
    if (use.teams.length === 0) {
      info(c.dim("no GPU use in this period by the teams you see (admins see every team, others their own)"));
      return;
    }
    const inGuarantee = (team: string | null) =>
      use.rows.filter((r) => r.team === team).reduce((s, r) => s + r.in_guarantee_gpu_seconds, 0) / 3600;
    colorTable(
      use.teams.map((t) => ({
        team: t.team ?? "(no team)",
        "gpu-hours": hours(t.gpu_hours),
        "in guarantee": hours(inGuarantee(t.team)),
        borrowed: hours(t.borrowed_gpu_hours),
        "lost to preemption": hours(t.lost_gpu_hours),
        budget: t.budget_gpu_hours === null ? null : `${t.budget_gpu_hours} (${t.budget_policy})`,
        "used %": usedCell(t),
      })),
      ["team", "gpu-hours", "in guarantee", "borrowed", "lost to preemption", "budget", "used %"],
      { "used %": (v) => (v.endsWith("spent") ? c.yellow(v) : v) },
    );
    info(
      c.dim(
        "GPU-hours: every GPU the team's runs held, finished and running up to now = in guarantee + borrowed · " +
          "lost to preemption: of those, what preempted runs trained past their last checkpoint · " +
          "budget: the team's for this month or week (while it is the current one) and its policy · " +
          "--csv: per team and fleet in GPU-seconds",
      ),
    );
  });
}
