/**
 * The teams a fleet decides with (contract/teams.ts FleetTeams): the Worker pushes the names, the members
 * and this fleet's quotas whenever an admin changes a team, and the fleet keeps them in meta. A job's team
 * is resolved when it is queued (rules/runs.ts) and stays with it.
 */
import type { Placement } from "../../../contract/launch-request.schema.js";
import { FleetTeams, NO_TEAMS } from "../../../contract/teams.js";
import { TEAMS_KEY } from "../keys.js";
import type { TeamsInput } from "../scheduler/teams.js";
import type { FleetState } from "../state.js";
import type { Tx } from "../tx.js";

let parsed: { raw: string | null; doc: FleetTeams } | null = null;

/** What this fleet decides with (nothing until the Worker pushed it). */
export function teamsOf(s: FleetState): FleetTeams {
  const raw = s.meta(TEAMS_KEY);
  if (parsed?.raw !== raw) parsed = { raw, doc: raw ? FleetTeams.parse(JSON.parse(raw)) : NO_TEAMS };
  return parsed.doc;
}

/**
 * The Worker pushes the teams after an admin changed them: the next decision uses them. A scheduling pass
 * runs now only when this fleet's quotas changed: members and names decide only what a job queued from now
 * on runs for. Lowering a quota below what a team holds stops nothing; its jobs just wait longer.
 */
export function setTeams(t: Tx, doc: FleetTeams): void {
  const raw = JSON.stringify(doc);
  if (t.s.meta(TEAMS_KEY) === raw) return;
  const before = JSON.stringify(teamsOf(t.s).quotas);
  t.setMeta(TEAMS_KEY, raw);
  if (JSON.stringify(doc.quotas) !== before) t.schedule();
}

/**
 * The teams' quotas here and the GPUs each team's runs hold, per series (only series some team has a
 * quota for count); null while no team has a quota in this fleet, so nothing of it costs a decision.
 */
export function teamsInput(t: Tx): TeamsInput | null {
  const { quotas } = teamsOf(t.s);
  const governed = new Set(Object.values(quotas).flatMap((q) => Object.keys(q)));
  if (governed.size === 0) return null;
  const all = t.s.memo.get("team_usage", () => teamUsage(t));
  const used: Record<string, Record<string, number>> = {};
  for (const [team, bySeries] of Object.entries(all))
    used[team] = Object.fromEntries(Object.entries(bySeries).filter(([s]) => governed.has(s)));
  return { quotas, used };
}

/** GPUs held by open runs, per team ("" for none) and series. */
function teamUsage(t: Tx): Record<string, Record<string, number>> {
  const used: Record<string, Record<string, number>> = {};
  const series = new Map(t.s.nodes().map((n) => [n.id, n.series]));
  for (const r of t.s.runsSince(t.now)) {
    if (r.ended_at !== null) continue;
    const team = t.s.job(r.job_id)?.team ?? "";
    const placement = t.s.memo.lasting(`placement:${r.id}`, () => JSON.parse(r.placement) as Placement[]);
    for (const p of placement) {
      const s = series.get(p.node_id);
      if (s === undefined) continue;
      const m = used[team] ?? {};
      m[s] = (m[s] ?? 0) + p.gpu_indices.length;
      used[team] = m;
    }
  }
  return used;
}
