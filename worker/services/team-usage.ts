/**
 * GPU usage per team and fleet in a budget period, from the ledger (GET /v1/usage/teams, `sf usage --by
 * team`): the finished allocations' GPU-seconds per UTC day (run_usage) plus the open runs up to now,
 * within guarantee and borrowed apart, and of them the work preemptions lost (what preempted runs trained
 * past their last checkpoint). The rows sum to the ledger to the GPU-second.
 */
import { and, gte, isNull, lt, sql } from "drizzle-orm";
import type { BudgetPeriod } from "../../contract/teams.js";
import { utcDay } from "../../contract/time.js";
import { type Db, schema } from "../../d1/client.js";

export interface TeamUsageRow {
  /** null: jobs of no team. */
  team: string | null;
  fleet: string;
  fleet_id: string;
  in_guarantee_gpu_seconds: number;
  borrowed_gpu_seconds: number;
  gpu_seconds: number;
  /** Of gpu_seconds, what preempted runs trained past their last checkpoint: lost work. */
  lost_gpu_seconds: number;
}

export async function teamUsageRows(d: Db, p: BudgetPeriod, now: number): Promise<TeamUsageRow[]> {
  const { runUsage, runs, jobs, fleets } = schema;
  const [done, open, names] = await d.batch([
    d
      .select({
        team: runUsage.team,
        fleetId: runUsage.fleetId,
        borrowed: runUsage.borrowed,
        s: sql<number>`sum(${runUsage.gpuSeconds})`,
        lost: sql<number>`sum(${runUsage.lostGpuSeconds})`,
      })
      .from(runUsage)
      .where(and(gte(runUsage.day, utcDay(p.start)), lt(runUsage.day, utcDay(p.end))))
      .groupBy(runUsage.team, runUsage.fleetId, runUsage.borrowed),
    d
      .select({
        team: jobs.team,
        fleetId: jobs.fleetId,
        borrowed: runs.borrowed,
        gpus: runs.gpus,
        at: runs.allocatedAt,
      })
      .from(runs)
      .innerJoin(jobs, sql`${jobs.id} = ${runs.jobId}`)
      .where(isNull(runs.endedAt)),
    d.select({ id: fleets.id, name: fleets.name }).from(fleets),
  ]);
  const fleetName = new Map(names.map((f) => [f.id, f.name]));
  const rows = new Map<string, TeamUsageRow>();
  const add = (team: string | null, fleetId: string, borrowed: boolean, seconds: number, lost = 0) => {
    const key = `${team ?? ""}\u0000${fleetId}`;
    const r = rows.get(key) ?? {
      team,
      fleet: fleetName.get(fleetId) ?? fleetId,
      fleet_id: fleetId,
      in_guarantee_gpu_seconds: 0,
      borrowed_gpu_seconds: 0,
      gpu_seconds: 0,
      lost_gpu_seconds: 0,
    };
    if (borrowed) r.borrowed_gpu_seconds += seconds;
    else r.in_guarantee_gpu_seconds += seconds;
    r.gpu_seconds += seconds;
    r.lost_gpu_seconds += lost;
    rows.set(key, r);
  };
  for (const r of done) add(r.team, r.fleetId, r.borrowed, r.s, r.lost);
  const end = Math.min(now, p.end);
  for (const r of open) {
    const from = Math.max(Date.parse(r.at), p.start);
    if (end > from) add(r.team, r.fleetId, r.borrowed, ((end - from) / 1000) * r.gpus);
  }
  return [...rows.values()].sort(
    (a, b) => (a.team ?? "\uffff").localeCompare(b.team ?? "\uffff") || a.fleet.localeCompare(b.fleet),
  );
}

/** The rows as CSV, GPU-seconds to the millisecond: they add up to the ledger's total. */
export function teamUsageCsv(rows: readonly TeamUsageRow[]): string {
  const esc = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const lines = [
    "team,fleet,in_guarantee_gpu_seconds,borrowed_gpu_seconds,gpu_seconds,gpu_hours,lost_gpu_seconds",
  ];
  for (const r of rows)
    lines.push(
      [
        esc(r.team ?? ""),
        esc(r.fleet),
        r.in_guarantee_gpu_seconds.toFixed(3),
        r.borrowed_gpu_seconds.toFixed(3),
        r.gpu_seconds.toFixed(3),
        (r.gpu_seconds / 3600).toFixed(6),
        r.lost_gpu_seconds.toFixed(3),
      ].join(","),
    );
  return `${lines.join("\n")}\n`;
}
