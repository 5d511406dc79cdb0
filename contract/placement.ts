/**
 * Where a job may run when it names more than one fleet (docs/scheduling.md "Placement"): the fleets'
 * labels, a job's fleet selector, the compact capacity summary each Fleet DO publishes, and the pure
 * choice of the fleet that starts a job soonest. Shared by the Worker (it places a submit) and the CLI.
 */
import { z } from "zod";

export const FLEET_KINDS = ["process", "docker", "kuberay", "slurm"] as const;
export type FleetKind = (typeof FLEET_KINDS)[number];

export const LabelKey = z
  .string()
  .regex(/^[a-z][a-z0-9_.-]{0,31}$/, "a label key: lowercase letters, digits, _ . -, 1–32 chars");
export const LabelValue = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, "a label value: letters, digits, _ . -, 1–63 chars");

/** A fleet's labels (`site=eu`, `region=fra`), set by admins; at most 16. */
export const FleetLabels = z.record(z.string(), LabelValue).superRefine((labels, ctx) => {
  const keys = Object.keys(labels);
  if (keys.length > 16) ctx.addIssue({ code: "custom", message: `at most 16 labels; ${keys.length} given` });
  for (const k of keys)
    if (!LabelKey.safeParse(k).success)
      ctx.addIssue({
        code: "custom",
        path: [k],
        message: `"${k}" is not a label key: lowercase letters, digits, _ . -, 1–32 chars, a letter first`,
      });
});
export type FleetLabels = z.infer<typeof FleetLabels>;

/**
 * The fleets a job may run on, by what they are: every label given must match, and the fleet's kind must
 * be one of `kinds` when given. `{}` selects every fleet whose hardware fits the job.
 */
export const FleetSelector = z
  .object({
    labels: FleetLabels.default({}).describe("Labels a fleet must all have, with these values"),
    kinds: z
      .array(z.enum(FLEET_KINDS))
      .min(1)
      .max(4)
      .optional()
      .describe("Fleet kinds it may run on (process, docker, slurm, kuberay); default: any"),
  })
  .strict();
export type FleetSelector = z.infer<typeof FleetSelector>;

/** `site=eu,region=fra` (the CLI's --fleet-selector) as labels; a key without `=` is refused. */
export function parseSelectorText(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Error(`"${part}" is not KEY=VALUE`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** Whether a fleet is one the selector names. */
export function selects(
  sel: FleetSelector,
  fleet: { kind: string; labels: Readonly<Record<string, string>> },
): boolean {
  if (sel.kinds && !sel.kinds.includes(fleet.kind as FleetKind)) return false;
  return Object.entries(sel.labels).every(([k, v]) => fleet.labels[k] === v);
}

/** One GPU series of a fleet, as its Fleet DO last published it. */
export const SeriesCapacity = z.object({
  /** Nodes of the series the fleet knows (connected or not), and the GPUs of its biggest. */
  nodes: z.number().int().min(0),
  max_node_gpus: z.number().int().min(0),
  /** GPUs of schedulable nodes whose agents are connected. */
  total: z.number().int().min(0),
  free: z.number().int().min(0),
  /** The most free GPUs on one node. */
  free_max_node: z.number().int().min(0),
  /** GPUs the jobs queued for this series ask for. */
  queued_gpus: z.number().int().min(0),
  /** When the first running run of this series reaches its max_runtime_seconds (null: none has one). */
  next_free_at: z.number().nullable(),
  /** A time window for the series is closed now: when it opens (absent or null: open, or none). */
  opens_at: z.number().nullable().optional(),
});
export type SeriesCapacity = z.infer<typeof SeriesCapacity>;

/** What a Fleet DO publishes about itself for placement (to D1's `fleets.capacity`, when it changed). */
export const FleetCapacity = z.object({
  at: z.number(),
  series: z.record(z.string(), SeriesCapacity),
});
export type FleetCapacity = z.infer<typeof FleetCapacity>;

/**
 * One candidate fleet of a placement, as the job's `admitted` event records it (`detail.placement`) and
 * NO_ELIGIBLE_FLEET lists it (`details.candidates`).
 */
export interface PlacementCandidate {
  fleet: string;
  /** It could run the job (else `reason` says why never). */
  eligible: boolean;
  /** Why it could never run the job, or the basis of its estimated start. */
  reason: string;
  /** Epoch ms of the estimated start: 0 now, null unknown (or not eligible). */
  estimated_start: number | null;
  chosen: boolean;
}

/** The candidates a job's `admitted` event recorded (`detail.placement`), or null: it named one fleet. */
export function admittedPlacement(
  events: ReadonlyArray<{ edge: string; detail: unknown }>,
): PlacementCandidate[] | null {
  const admitted = events.find((e) => e.edge === "admitted");
  const p = (admitted?.detail as { placement?: unknown } | null | undefined)?.placement;
  return Array.isArray(p) ? (p as PlacementCandidate[]) : null;
}

/** One move of a waiting job between its fleets, as its `rerouted` event records it. */
export interface Reroute {
  ts: string;
  from: string;
  to: string;
  /** `starts_sooner` (the other fleet could start it now) or `site_lost` (every agent of its fleet was gone). */
  why: string;
  /** The capacity the choice rested on. */
  basis: string;
}

/** A job's moves between fleets, oldest first (its `rerouted` events). */
export function reroutesOf(events: ReadonlyArray<{ edge: string; ts: string; detail: unknown }>): Reroute[] {
  return events.flatMap((e) => {
    if (e.edge !== "rerouted") return [];
    const d = (e.detail ?? {}) as Partial<Reroute>;
    return [{ ts: e.ts, from: d.from ?? "?", to: d.to ?? "?", why: d.why ?? "?", basis: d.basis ?? "" }];
  });
}

/** What a move's reason means, for people. */
export function rerouteWhy(why: string): string {
  if (why === "starts_sooner") return "it could start the job now";
  if (why === "site_lost") return "every agent of the fleet holding it was gone";
  return why;
}

/** What a job needs of one series: `nodes` nodes with `per_node` free GPUs each. */
export interface SeriesNeed {
  series: string;
  nodes: number;
  per_node: number;
}

/**
 * Why a fleet could never run a job (no node of a series it needs, or none big enough, or too few), from
 * its published capacity; null when it could.
 */
export function neverFits(cap: FleetCapacity | null, needs: readonly SeriesNeed[]): string | null {
  if (!cap) return null;
  for (const n of needs) {
    const s = cap.series[n.series];
    if (!s || s.nodes === 0) return `it has no ${n.series} nodes`;
    if (s.max_node_gpus < n.per_node)
      return `its biggest ${n.series} node has ${s.max_node_gpus} GPUs; this job needs ${n.per_node} per node`;
    if (s.nodes < n.nodes)
      return `it has ${s.nodes} ${n.series} node${s.nodes === 1 ? "" : "s"}; this job needs ${n.nodes}`;
  }
  return null;
}

/** A candidate's estimated start: now (it fits in free GPUs), at a time, or unknown. */
export interface StartEstimate {
  /** 0: now; else epoch ms; null: no estimate (nothing there ends by a known time). */
  at: number | null;
  /** The figures the estimate rests on, for people (`sf job why`, the console). */
  basis: string;
}

/**
 * When a fleet could start a job, from its published capacity: now when every series it needs has the
 * free GPUs (a node with enough free for a one-node pool) and its time window is open; else when its
 * first running run ends by its max_runtime_seconds (if any does) and its window has opened, with the GPUs
 * queued ahead of it said; else unknown.
 */
export function estimateStart(cap: FleetCapacity | null, needs: readonly SeriesNeed[]): StartEstimate {
  if (!cap) return { at: null, basis: "the fleet has published no capacity yet" };
  let later: number | null = 0;
  let full = false;
  const parts: string[] = [];
  for (const n of needs) {
    const s = cap.series[n.series];
    if (!s || s.total === 0) return { at: null, basis: `no connected ${n.series} GPUs` };
    const want = n.nodes * n.per_node;
    const fits = s.free >= want && s.free_max_node >= (n.nodes === 1 ? n.per_node : 1);
    const opens = s.opens_at ?? null;
    parts.push(
      `${n.series}: ${s.free}/${s.total} free, ${s.queued_gpus} queued${opens === null ? "" : `, its window opens ${new Date(opens).toISOString()}`}`,
    );
    if (fits && opens === null) continue;
    if (!fits) full = true;
    // Nothing starts before its window opens; without free GPUs, not before a run there ends either.
    const at = fits ? opens : s.next_free_at === null ? null : Math.max(s.next_free_at, opens ?? 0);
    if (at === null) later = null;
    else if (later !== null) later = Math.max(later, at);
  }
  if (later === 0) return { at: 0, basis: `fits now (${parts.join("; ")})` };
  if (later === null)
    return { at: null, basis: `full, and nothing there ends by a known time (${parts.join("; ")})` };
  const what = full ? "full" : "its window is closed";
  return { at: later, basis: `${what} until ${new Date(later).toISOString()} (${parts.join("; ")})` };
}

/**
 * The candidate to place a job on: one that starts it now, the least loaded of those (most free GPUs of
 * what it needs); else the earliest known start; else the one with the least queued per GPU. Ties: the
 * candidates' order (the job's own list, or by name). Pure.
 */
export function chooseFleet<T extends { capacity: FleetCapacity | null; estimate: StartEstimate }>(
  candidates: readonly T[],
  needs: readonly SeriesNeed[],
): T | undefined {
  const free = (c: T) => needs.reduce((a, n) => a + (c.capacity?.series[n.series]?.free ?? 0), 0);
  const load = (c: T) =>
    needs.reduce((a, n) => {
      const s = c.capacity?.series[n.series];
      return a + (s && s.total > 0 ? s.queued_gpus / s.total : Number.POSITIVE_INFINITY);
    }, 0);
  const rank = (c: T): [number, number, number] =>
    c.estimate.at === 0
      ? [0, -free(c), 0]
      : c.estimate.at !== null
        ? [1, c.estimate.at, load(c)]
        : [2, load(c), 0];
  let best: T | undefined;
  let bestRank: [number, number, number] | undefined;
  for (const c of candidates) {
    const r = rank(c);
    if (
      !bestRank ||
      r[0] < bestRank[0] ||
      (r[0] === bestRank[0] && (r[1] < bestRank[1] || (r[1] === bestRank[1] && r[2] < bestRank[2])))
    ) {
      best = c;
      bestRank = r;
    }
  }
  return best;
}

/** A fleet a waiting job could move to, as the holding fleet reads it from D1 (re-routing). */
export interface RerouteTarget {
  id: string;
  name: string;
  draining: boolean;
  capacity: FleetCapacity | null;
}

/** A move the holding fleet offers: its waiting job to the fleet that starts it soonest. */
export interface PlannedMove {
  jobId: string;
  to: { id: string; name: string };
  why: "starts_sooner" | "site_lost";
  /** The receiver takes it only if it starts it at once (not so when this fleet's site is lost). */
  mustStart: boolean;
  basis: string;
}

/**
 * Which of a fleet's waiting multi-fleet jobs to offer where, in queue order: each to the other candidate
 * that starts it now (the most free first), or, when every agent of this fleet is gone (`siteLost`), to
 * the candidate that starts it soonest even if it must wait there. What one planned move takes of a
 * target's free GPUs is not offered to the next job. Pure.
 */
export function planReroutes(
  jobs: ReadonlyArray<{ id: string; needs: readonly SeriesNeed[]; fleets: readonly string[] }>,
  self: string,
  targets: ReadonlyMap<string, RerouteTarget>,
  siteLost: boolean,
): PlannedMove[] {
  const left = new Map<string, FleetCapacity | null>(
    [...targets].map(([name, t]) => [name, t.capacity ? structuredClone(t.capacity) : null]),
  );
  const out: PlannedMove[] = [];
  for (const job of jobs) {
    const options = job.fleets.flatMap((name) => {
      const t = targets.get(name);
      if (name === self || !t || t.draining) return [];
      const capacity = left.get(name) ?? null;
      if (neverFits(capacity, job.needs)) return [];
      const estimate = estimateStart(capacity, job.needs);
      return siteLost || estimate.at === 0 ? [{ target: t, capacity, estimate }] : [];
    });
    const best = chooseFleet(options, job.needs);
    if (!best) continue;
    out.push({
      jobId: job.id,
      to: { id: best.target.id, name: best.target.name },
      why: siteLost ? "site_lost" : "starts_sooner",
      mustStart: !siteLost,
      basis: best.estimate.basis,
    });
    if (best.capacity && best.estimate.at === 0) {
      for (const n of job.needs) {
        const s = best.capacity.series[n.series];
        if (s) {
          s.free -= n.nodes * n.per_node;
          s.free_max_node = Math.min(s.free_max_node, s.free);
        }
      }
    }
  }
  return out;
}
