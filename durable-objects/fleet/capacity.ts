/**
 * The compact summary a Fleet DO publishes about itself for placement over several fleets
 * (contract/placement.ts FleetCapacity): per GPU series its nodes, connected and free GPUs, the GPUs its
 * queue asks for, and when its first running run reaches its time limit. Read from the fleet's state.
 */
import { JobSpec } from "../../contract/jobspec.schema.js";
import type { FleetCapacity, SeriesCapacity } from "../../contract/placement.js";
import { cordonedNodes } from "./node-admin.js";
import type { JobRow } from "./rows.js";
import { handoffJobs } from "./rules/handoff-state.js";
import { config } from "./rules/ledger.js";
import { windowStatus } from "./scheduler/windows.js";
import type { FleetState } from "./state.js";

/** What a job asks of each series, and its time limit: read once per job (its spec never changes). */
interface JobShape {
  series: Map<string, number>;
  maxRuntimeMs: number | null;
}
const shapes = new Map<string, JobShape>();
const MAX_SHAPES = 50_000;

function shapeOf(job: JobRow): JobShape {
  let shape = shapes.get(job.id);
  if (shape) return shape;
  const spec = JobSpec.parse(JSON.parse(job.spec));
  const series = new Map<string, number>();
  for (const p of spec.resources.pools)
    series.set(p.series, (series.get(p.series) ?? 0) + p.nodes * p.gpus_per_node);
  const max = spec.lifecycle.max_runtime_seconds;
  shape = { series, maxRuntimeMs: max === undefined ? null : max * 1000 };
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  shapes.set(job.id, shape);
  return shape;
}

export function capacitySummary(s: FleetState, now: number): FleetCapacity {
  const out: Record<string, SeriesCapacity> = {};
  const entry = (series: string): SeriesCapacity => {
    out[series] ??= {
      nodes: 0,
      max_node_gpus: 0,
      total: 0,
      free: 0,
      free_max_node: 0,
      queued_gpus: 0,
      next_free_at: null,
    };
    return out[series];
  };
  const used = s.usedGpus();
  const cordoned = cordonedNodes(s);
  for (const n of s.nodes()) {
    const e = entry(n.series);
    e.nodes += 1;
    e.max_node_gpus = Math.max(e.max_node_gpus, n.gpus);
    if (n.status !== "ready" || cordoned.has(n.id)) continue;
    const free = n.gpus - (used.get(n.id)?.length ?? 0);
    e.total += n.gpus;
    e.free += free;
    e.free_max_node = Math.max(e.free_max_node, free);
  }
  // A job being handed to another fleet is that fleet's to queue (rules/reroute.ts).
  const leaving = handoffJobs(s);
  for (const j of s.jobsByStatus("QUEUED")) {
    if (leaving.has(j.id)) continue;
    for (const [series, gpus] of shapeOf(j).series) entry(series).queued_gpus += gpus;
  }
  for (const status of ["SUBMITTED", "PENDING", "RUNNING"])
    for (const j of s.jobsByStatus(status)) {
      const shape = shapeOf(j);
      const run = j.current_run_id ? s.run(j.current_run_id) : null;
      if (shape.maxRuntimeMs === null || !run) continue;
      const ends = (run.started_at ?? run.allocated_at) + shape.maxRuntimeMs;
      for (const series of shape.series.keys()) {
        const e = entry(series);
        if (e.next_free_at === null || ends < e.next_free_at) e.next_free_at = Math.max(ends, now);
      }
    }
  // A closed window for a series: nothing of it starts before it opens.
  const windows = config(s)?.windows ?? [];
  if (windows.length > 0)
    for (const [series, e] of Object.entries(out)) {
      const w = windowStatus(windows, series, now);
      if (!w.open) e.opens_at = Date.parse(w.opensAt);
    }
  return { at: now, series: out };
}
