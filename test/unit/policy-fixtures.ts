/** Builders for scheduler-policy tests: small, explicit fleets and queues. */
import type { WorkloadKind } from "../../contract/agent-frames.schema.js";
import type { Quota } from "../../contract/api.schema.js";
import type { Placement } from "../../contract/launch-request.schema.js";
import type { PendingReasonCode } from "../../contract/pending-reasons.schema.js";
import type { Pool } from "../../contract/profile-grammar.js";
import type {
  Decision,
  NodeInput,
  PolicyInput,
  QueuedJobInput,
  UserInput,
} from "../../durable-objects/fleet/scheduler/policy.js";

/** Monday 2026-01-05 12:00 UTC. */
export const NOW = Date.parse("2026-01-05T12:00:00Z");

export function node(
  id: string,
  series: string,
  gpus: number,
  opts: {
    used?: number[];
    schedulable?: boolean;
    runtime?: string;
    workloads?: WorkloadKind[];
    domain?: string;
  } = {},
): NodeInput {
  return {
    id,
    name: id,
    series,
    gpus,
    schedulable: opts.schedulable ?? true,
    used: opts.used ?? [],
    runtime: opts.runtime ?? null,
    workloads: opts.workloads ?? null,
    domain: opts.domain ?? null,
  };
}

export function pool(series: string, nodes: number, gpusPerNode: number, name = "default"): Pool {
  return { name, profile: series, series, nodes, gpus_per_node: gpusPerNode };
}

let seq = 0;
export function job(
  id: string,
  pools: Pool[],
  opts: { userId?: string; priority?: number; queueSeq?: number; needsImage?: boolean } = {},
): QueuedJobInput {
  return {
    id,
    userId: opts.userId ?? "alice",
    priority: opts.priority ?? 10,
    queueSeq: opts.queueSeq ?? ++seq,
    pools,
    needsImage: opts.needsImage ?? false,
  };
}

export function user(quota: Partial<Quota> = {}, usage: Partial<Omit<UserInput, "quota">> = {}): UserInput {
  return {
    quota: {
      max_gpus: 1000,
      max_jobs: 100,
      daily_gpu_hours: 100_000,
      allowed_profiles: [],
      priority: 10,
      max_priority_class: "normal",
      ...quota,
    },
    runningGpus: usage.runningGpus ?? 0,
    recentGpuSeconds: usage.recentGpuSeconds ?? 0,
    gpuSecondsToday: usage.gpuSecondsToday ?? 0,
  };
}

export function input(p: Partial<PolicyInput> & Pick<PolicyInput, "nodes" | "queue">): PolicyInput {
  return { now: NOW, draining: null, windows: [], users: {}, ...p };
}

export function dispatched(d: Decision): string[] {
  return d.dispatch.map((x) => x.jobId);
}

export function placementOf(d: Decision, jobId: string): Placement[] {
  const found = d.dispatch.find((x) => x.jobId === jobId);
  if (!found) throw new Error(`${jobId} was not dispatched; pending: ${JSON.stringify(d.pending[jobId])}`);
  return found.placement;
}

export function reasonCodes(d: Decision, jobId: string): PendingReasonCode[] {
  return (d.pending[jobId] ?? []).map((r) => r.code);
}

/**
 * Random running gangs placed first fit on nodes of the given sizes (one rank per node; a gang that fits
 * nowhere is left out), and the nodes with those GPUs used: the property tests' running world.
 */
export function placeGangs<G extends { nodes: number; gpus: number }>(
  sizes: readonly number[],
  gangs: readonly G[],
  series = "h200",
): { nodes: NodeInput[]; placed: Array<{ gang: G; index: number; placement: Placement[] }> } {
  const free = sizes.map((g) => Array.from({ length: g }, (_, i) => i));
  const placed: Array<{ gang: G; index: number; placement: Placement[] }> = [];
  gangs.forEach((g, index) => {
    const chosen = free
      .map((f, i) => ({ i, f }))
      .filter((x) => x.f.length >= g.gpus)
      .slice(0, g.nodes);
    if (chosen.length < g.nodes) return;
    const placement: Placement[] = chosen.map((c, rank) => {
      const gpus = c.f.slice(0, g.gpus);
      free[c.i] = c.f.slice(g.gpus);
      return { rank, pool: "default", node_id: `n${c.i}`, gpu_indices: gpus };
    });
    placed.push({ gang: g, index, placement });
  });
  const nodes = sizes.map((g, i) =>
    node(`n${i}`, series, g, {
      used: Array.from({ length: g }, (_, x) => x).filter((x) => !free[i]!.includes(x)),
    }),
  );
  return { nodes, placed };
}
