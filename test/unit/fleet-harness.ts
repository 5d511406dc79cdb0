/**
 * A Fleet in memory for the decider tests: the real rules (durable-objects/fleet/decide.ts) against
 * MemoryFleetState, with a clock and ids the test controls, plus the invariants the workerd tests assert
 * (no GPU booked twice or beyond its node, legal transitions only, every queued job has a reason, no run
 * lost), checked over the whole state.
 */
import { expect } from "vitest";
import { Inventory, type JournalEntry } from "../../contract/agent-frames.schema.js";
import { DEFAULT_QUOTA, type TimeWindow } from "../../contract/api.schema.js";
import type { Actor, JobAction, RunEventInput } from "../../contract/fleet.schema.js";
import type { IdPrefix } from "../../contract/ids.js";
import { ALLOCATED_STATES, findEdge, type JobState } from "../../contract/job-states.js";
import { JobSpec, type JobSpecInput } from "../../contract/jobspec.schema.js";
import { BUILTIN_PRIORITY_CLASSES } from "../../contract/priority-classes.js";
import {
  type Decision,
  decide,
  type FleetEvent,
  type FleetResults,
} from "../../durable-objects/fleet/decide.js";
import { PREEMPTION_KEY } from "../../durable-objects/fleet/keys.js";
import { MemoryFleetState } from "../../durable-objects/fleet/memory-state.js";
import { GONE_RANK_STATES } from "../../durable-objects/fleet/rows.js";
import { config } from "../../durable-objects/fleet/rules/ledger.js";
import type { Hold } from "../../durable-objects/fleet/rules/preempt.js";
import { timerTarget } from "../../durable-objects/fleet/timers.js";

/** The timers the rules handle themselves (the adapter's own — outbox, commands, … — never fire here). */
const RULE_TIMERS = ["schedule", "retry", "lost", "hold", "placement", "preempt_wait", "runtime", "diagnose"];

export const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
export const FLEET_ID = "flt_test";
export const ADA: Actor = { userId: "usr_ada", name: "ada", admin: false };

export interface SpecOptions {
  name?: string;
  gpus?: number;
  nodes?: number;
  series?: string;
  image?: string | null;
  python?: boolean;
  maxRetries?: number;
  retryOnUserFailure?: boolean;
  resumable?: boolean;
  /** `lifecycle.priority_class` (default: none, i.e. normal). */
  priorityClass?: string;
  /** `resources.team` (default: none, i.e. the submitter's primary team). */
  team?: string;
  /** `lifecycle.max_runtime_seconds` (default: none). */
  maxRuntimeSeconds?: number;
  /**
   * `resources.fleets` instead of `fleet`: placed over these fleets (by name, all eligible; the submitting
   * fleet chosen), it may move between them.
   */
  fleets?: string[];
  /** `lifecycle.placement_timeout_seconds` (default: none). */
  placementTimeoutSeconds?: number;
  /** `lifecycle.preemption_wait_seconds` (default: none, i.e. 60 for a job placed over several fleets). */
  preemptionWaitSeconds?: number;
}

export function spec(o: SpecOptions = {}): JobSpec {
  const input: JobSpecInput = {
    api_version: "starforge.dev/v1",
    metadata: { name: o.name ?? "exp", labels: {} },
    recipe: { name: "custom/custom", version: "1.0.0", digest: `sha256:${"a".repeat(64)}` },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: o.image ?? null },
    source: { workspace: null, experiment_dir: "." },
    resources: {
      ...(o.fleets ? { fleets: o.fleets } : { fleet: "test" }),
      ...(o.team === undefined ? {} : { team: o.team }),
      pools: [
        {
          name: "default",
          profile: "h200",
          series: o.series ?? "h200",
          nodes: o.nodes ?? 1,
          gpus_per_node: o.gpus ?? 1,
        },
      ],
      roles: {},
    },
    hyperparams: {},
    lifecycle: {
      max_retries: o.maxRetries ?? 2,
      retry_on_user_failure: o.retryOnUserFailure ?? false,
      ...(o.resumable === undefined ? {} : { resumable: o.resumable }),
      ...(o.priorityClass === undefined ? {} : { priority_class: o.priorityClass }),
      ...(o.maxRuntimeSeconds === undefined ? {} : { max_runtime_seconds: o.maxRuntimeSeconds }),
      ...(o.placementTimeoutSeconds === undefined
        ? {}
        : { placement_timeout_seconds: o.placementTimeoutSeconds }),
      ...(o.preemptionWaitSeconds === undefined ? {} : { preemption_wait_seconds: o.preemptionWaitSeconds }),
    },
    provenance: { git_commit: null, git_dirty: false, config_sha: `sha256:${"e".repeat(64)}` },
  };
  return JobSpec.parse(input);
}

export function inventory(name: string, gpus: number, series = "h200"): Inventory {
  return Inventory.parse({
    hostname: name,
    gpu_series: series,
    gpus: Array.from({ length: gpus }, (_, i) => ({ index: i, name: "H200", simulated: true })),
    runtime: "process",
    labels: {},
    cpus: 8,
    memory_mb: 64_000,
    agent_version: "test",
  });
}

export interface ClusterNodeInput {
  name: string;
  gpus: number;
  state?: "ready" | "drain" | "down";
  reason?: string;
  series?: string;
}

/** A cluster agent's inventory (Slurm on a login node): its host runs nothing, its nodes are listed. */
export function clusterInventory(host: string, nodes: ClusterNodeInput[]): Inventory {
  return Inventory.parse({
    hostname: host,
    gpu_series: "none",
    gpus: [],
    runtime: "slurm",
    labels: {},
    cpus: 4,
    memory_mb: 8_000,
    agent_version: "test",
    nodes: nodes.map((n) => ({
      name: n.name,
      gpu_series: n.series ?? "h200",
      gpus: n.gpus,
      state: n.state ?? "ready",
      reason: n.reason ?? "",
      cpus: 32,
      memory_mb: 256_000,
      advertise_addr: `${n.name}.cluster`,
    })),
  });
}

export type SubmitOptions = SpecOptions & {
  jobId?: string;
  user?: string;
  priority?: number;
  launch?: "python" | "script";
  /** A distributed recipe's processes (`per_gpu`: its logs are per global rank); absent: not distributed. */
  processes?: "per_node" | "per_gpu";
  /** The submitter's GPU quota (default: unlimited in practice). */
  maxGpus?: number;
  /** Queued beside its reservation: waits for `confirm` or `withdraw`. */
  unconfirmed?: boolean;
  /** The highest priority class the submitter's quota allows (default: critical, every class). */
  maxPriorityClass?: string;
};

/** The quota every harness submit carries unless told otherwise. */
export const TEST_QUOTA = {
  ...DEFAULT_QUOTA,
  max_gpus: 10_000,
  max_jobs: 10_000,
  daily_gpu_hours: 1e6,
  max_priority_class: "critical",
};

/** The `i`-th of `xs`, round: random ops pick among what exists now. */
export const pick = <T>(xs: T[], i: number): T | undefined =>
  xs.length === 0 ? undefined : xs[i % xs.length];

/** What an agent does in a random workload: start a launched run, confirm a stop, or end a run. */
export type AgentMove = "start" | "stopped" | "exit";

const MOVES: Record<AgentMove, { from: string[]; event: "started" | "stopped" | "exited" }> = {
  start: { from: ["SUBMITTED", "PENDING"], event: "started" },
  // An agent confirms the stop of a run it was told to stop (a victim, within its grace).
  stopped: { from: ["PAUSED", "STOPPED"], event: "stopped" },
  exit: { from: ["RUNNING"], event: "exited" },
};

/** The `i`-th open run in the state the move needs (if any) reports it; a stop exits 143. */
export function agentMove(f: Fleet, move: AgentMove, i: number, exitCode = 0): void {
  const m = MOVES[move];
  const runs = [...f.s.runRows.values()].filter((r) => r.ended_at === null && m.from.includes(r.status));
  const run = pick(runs, i);
  if (run) reportRun(f, run.id, m.event, move === "stopped" ? 143 : move === "exit" ? exitCode : null);
}

/** Every rank of a run reports the same event, as its agents would. */
export function reportRun(
  f: Fleet,
  runId: string,
  event: "started" | "stopped" | "exited",
  code: number | null,
): void {
  const run = f.s.run(runId)!;
  for (const r of f.s.ranks(runId))
    f.decide({
      type: "run_event",
      input: {
        runId,
        epoch: run.epoch,
        rank: r.rank,
        event,
        exitCode: code,
        reason: null,
        infra: false,
        source: "agent",
      },
    });
}

export class Fleet {
  readonly s = new MemoryFleetState();
  now = T0;
  private seq = 0;
  readonly settings = { retryBaseMs: 30_000, lostGraceMs: 300_000 };

  constructor(o: { windows?: TimeWindow[]; id?: string; name?: string; kind?: string } = {}) {
    this.decide({
      type: "configure",
      config: {
        id: o.id ?? FLEET_ID,
        name: o.name ?? "test",
        kind: o.kind ?? "process",
        windows: o.windows ?? [],
        draining: false,
        drainNote: null,
      },
    });
  }

  /**
   * Each job's queue place as first seen: it never changes (a preempted job keeps it). A job that moves
   * here from another fleet takes a place at this fleet's end of the queue, its own from then on.
   */
  private readonly places = new Map<string, number>();

  /** A job left this fleet (re-routing): should it come back, it takes a new place. */
  forgetPlace(jobId: string): void {
    this.places.delete(jobId);
  }

  newId = (prefix: IdPrefix): string => `${prefix}_${String(++this.seq).padStart(10, "0")}`;

  decide<E extends FleetEvent>(event: E): Decision<FleetResults[E["type"]]> {
    return decide(this.s, event, { now: this.now, newId: this.newId, settings: this.settings });
  }

  /** An agent's node (hello) with `gpus` GPUs; returns its id. */
  agent(name: string, gpus: number, journal: JournalEntry[] = [], id = this.newId("nod")): string {
    this.decide({ type: "hello", nodeId: id, inventory: inventory(name, gpus), journal });
    return id;
  }

  /** A cluster agent (hello with its nodes); returns its id. Its nodes' ids are `<id>:<name>`. */
  clusterAgent(
    host: string,
    nodes: ClusterNodeInput[],
    journal: JournalEntry[] = [],
    id = this.newId("nod"),
  ) {
    this.decide({ type: "hello", nodeId: id, inventory: clusterInventory(host, nodes), journal });
    return id;
  }

  submit(o: SubmitOptions = {}): string {
    const jobId = o.jobId ?? this.newId("job");
    const r = this.trySubmit({ ...o, jobId });
    if (!r.ok) throw new Error(`submit: ${r.code} ${r.message}`);
    return jobId;
  }

  /** Confirms jobs queued unconfirmed, under the harness's usual quota (or `priority` as its priority). */
  confirm(jobIds: string[], priority = 10) {
    return this.decide({ type: "confirm_admissions", jobIds, quota: { ...TEST_QUOTA, priority } }).result;
  }

  withdraw(jobIds: string[]) {
    return this.decide({ type: "withdraw_admissions", jobIds }).result;
  }

  trySubmit(o: SubmitOptions & { jobId: string }) {
    const jobId = o.jobId;
    const r = this.decide({
      type: "submit",
      inputs: [
        {
          jobId,
          userId: o.user ?? ADA.userId,
          userName: o.user ?? ADA.name,
          spec: spec(o),
          priority: o.priority ?? 10,
          quota: {
            ...TEST_QUOTA,
            max_gpus: o.maxGpus ?? 10_000,
            max_priority_class: o.maxPriorityClass ?? "critical",
          },
          blobDigests: [],
          capsule: { "runner.pyz": `sha256:${"c".repeat(64)}` },
          launch: {
            entrypoint:
              o.launch === "python" || o.python
                ? {
                    kind: "python",
                    module: "charlm.train",
                    ...(o.processes ? { processes: o.processes } : {}),
                  }
                : { kind: "script", path: "train.sh", ...(o.processes ? { processes: o.processes } : {}) },
            image: o.image ?? null,
          },
          ...(o.unconfirmed ? { unconfirmed: true } : {}),
          ...(o.fleets
            ? {
                placement: o.fleets.map((fleet) => ({
                  fleet,
                  eligible: true,
                  reason: "test",
                  estimated_start: null,
                  chosen: fleet === config(this.s)?.name,
                })),
              }
            : {}),
        },
      ],
    }).result;
    return r.ok ? { ...r, value: { job: r.value.jobs[0]! } } : r;
  }

  act(jobId: string, action: JobAction, actor: Actor = ADA) {
    return this.decide({ type: "action", jobId, action, actor }).result;
  }

  job(jobId: string) {
    return this.s.job(jobId)!;
  }

  currentRun(jobId: string) {
    return this.s.run(this.job(jobId).current_run_id!)!;
  }

  /** A report about every rank of the job's current run. */
  report(jobId: string, event: RunEventInput["event"], o: Partial<RunEventInput> = {}) {
    const run = this.currentRun(jobId);
    return this.s.ranks(run.id).map(
      (r) =>
        this.decide({
          type: "run_event",
          input: {
            runId: run.id,
            epoch: run.epoch,
            rank: r.rank,
            event,
            exitCode: event === "succeeded" ? 0 : null,
            reason: null,
            infra: false,
            source: "agent",
            ...o,
          },
        }).result,
    );
  }

  /** Moves the clock and fires every rule timer that came due, as the DO's alarm does. */
  advance(ms: number): void {
    const end = this.now + ms;
    // Each timer fires at its own time, as the alarm fires it, and may arm another within the span (a
    // diagnosis plans a retry): the clock steps from one due time to the next.
    for (let at = this.s.nextTimerAt(); at !== null && at <= end; at = this.s.nextTimerAt()) {
      this.now = Math.max(this.now, at);
      for (const id of this.s.takeDueTimers(this.now)) {
        const target = timerTarget(id);
        if (RULE_TIMERS.includes(target.kind)) this.decide({ type: "timer", id });
      }
    }
    this.now = end;
  }

  /** The job transitions recorded in the outbox, in order, as "FROM→TO". */
  transitions(jobId: string): string[] {
    return this.s.outbox
      .filter((e) => e.kind === "event" && e.event.job_id === jobId)
      .map((e) => (e.kind === "event" ? `${e.event.from_status ?? "·"}→${e.event.to_status}` : ""));
  }

  /** The invariants the tier-2 tests assert through HTTP, checked over the whole state at once. */
  checkInvariants(): void {
    const nodes = new Map(this.s.nodes().map((n) => [n.id, n]));
    const allocs = this.s.allocations();
    // GPUs never double-booked (the memory store throws on it) nor beyond their node.
    for (const a of allocs) {
      const n = nodes.get(a.node_id);
      expect(n, `allocation on unknown node ${a.node_id}`).toBeDefined();
      expect(a.idx, `GPU ${a.idx} beyond node ${n?.name}`).toBeLessThan(n!.gpus);
    }
    // Every booking belongs to an open run that placed exactly that GPU.
    for (const a of allocs) {
      const run = this.s.run(a.run_id);
      expect(run?.ended_at, `GPU ${a.node_id}#${a.idx} held by a run that is over`).toBeNull();
    }
    for (const job of this.s.jobRows.values()) {
      const status = job.status as JobState;
      // Every QUEUED job says why it waits (after the pass that queued it).
      if (status === "QUEUED")
        expect(JSON.parse(job.pending_reasons).length, `${job.id} queued without a reason`).toBeGreaterThan(
          0,
        );
      // A job that holds GPUs has an open current run with all its GPUs booked.
      if (ALLOCATED_STATES.has(status)) {
        const run = job.current_run_id ? this.s.run(job.current_run_id) : null;
        expect(run, `${job.id} is ${status} without a run`).not.toBeNull();
        expect(run!.ended_at, `${job.id} is ${status} but its run was released`).toBeNull();
        expect(allocs.filter((a) => a.run_id === run!.id).length).toBe(run!.gpus);
      }
    }
    // No run lost: an open run is its job's current one while the job holds GPUs; otherwise it is
    // being stopped (a rank still running has a stop command, or sits on a lost node waiting for its grace).
    for (const run of this.s.runRows.values()) {
      if (run.ended_at !== null) continue;
      const job = this.s.job(run.job_id)!;
      const current = job.current_run_id === run.id && ALLOCATED_STATES.has(job.status as JobState);
      if (current) continue;
      for (const r of this.s.ranks(run.id)) {
        if (GONE_RANK_STATES.has(r.state)) continue;
        const node = nodes.get(r.node_id);
        // A stop command, sent or already acked: the agent is ending that workload.
        const stopping = [...this.s.commandRows.values()].some(
          (c) => c.run_id === run.id && c.rank === r.rank && c.kind === "stop",
        );
        const waits = node?.agent === 0 || node?.status === "lost" || stopping;
        expect(waits, `run ${run.id} rank ${r.rank} is ${r.state} with nothing to end it`).toBe(true);
      }
    }
    this.checkPreemption(allocs);
    // Every recorded transition is an edge of the table.
    for (const e of this.s.outbox) {
      // `rerouted` records a move between fleets, `anomaly` a live anomaly: neither changes a status.
      if (
        e.kind !== "event" ||
        e.event.from_status === null ||
        ["rerouted", "anomaly"].includes(e.event.edge)
      )
        continue;
      expect(
        findEdge(e.event.from_status as JobState, e.event.to_status as JobState),
        `${e.event.from_status}→${e.event.to_status}`,
      ).toBeDefined();
    }
  }

  /**
   * Preemption's invariants: GPUs held for a preemptor are used by nobody but its victims' runs (no
   * backfill), holds never overlap, only confirmed admissions preempt, a preempted run is never FAILED
   * (PAUSED, or STOPPED by its owner) and was preempted by a strictly higher class (no cycle), and a job's
   * queue place never moves.
   */
  private checkPreemption(allocs: readonly { node_id: string; idx: number; run_id: string }[]): void {
    const raw = this.s.meta(PREEMPTION_KEY);
    const holds = raw ? (JSON.parse(raw) as { holds: Record<string, Hold> }).holds : {};
    const heldBy = new Map<string, string>();
    for (const [jobId, h] of Object.entries(holds)) {
      const victimRuns = new Set(h.victims.map((v) => v.run));
      for (const p of h.placement) {
        for (const g of p.gpu_indices) {
          const key = `${p.node_id}#${g}`;
          expect(heldBy.get(key), `GPU ${key} held for two preemptors`).toBeUndefined();
          heldBy.set(key, jobId);
          const a = allocs.find((x) => x.node_id === p.node_id && x.idx === g);
          if (a)
            expect(victimRuns.has(a.run_id), `GPU ${key} held for ${jobId} taken by ${a.run_id}`).toBe(true);
        }
      }
      expect(this.s.job(jobId)?.status, `hold of ${jobId}, which no longer waits`).toBe("QUEUED");
      expect(this.s.job(jobId)?.unconfirmed, `${jobId} preempted before its admission was confirmed`).toBe(0);
    }
    const value = (name: string) => BUILTIN_PRIORITY_CLASSES.find((c) => c.name === name)?.value ?? 0;
    for (const e of this.s.outbox) {
      if (e.kind !== "event" || e.event.to_status !== "PAUSED") continue;
      const d = JSON.parse(e.event.detail) as {
        preempted?: boolean;
        class?: string;
        preemptor_class?: string;
        run_id?: string;
        cause?: string;
        team?: string | null;
        reclaiming_team?: string | null;
      };
      if (!d.preempted) continue;
      if (d.cause === "reclaim") {
        // A team took back its guarantee: only another team's run that borrowed beyond its own.
        expect(this.s.run(d.run_id!)?.borrowed, `${e.event.job_id} reclaimed but did not borrow`).toBe(1);
        expect(d.team, `${e.event.job_id} reclaimed by its own team`).not.toBe(d.reclaiming_team);
      } else
        expect(
          value(d.preemptor_class!),
          `${e.event.job_id} preempted by a class not above its own`,
        ).toBeGreaterThan(value(d.class!));
      // PAUSED, or STOPPED if its owner stopped it meanwhile: never FAILED.
      expect(["PAUSED", "STOPPED"], `preempted run ${d.run_id}`).toContain(this.s.run(d.run_id!)?.status);
    }
    for (const j of this.s.jobRows.values()) {
      const seen = this.places.get(j.id);
      if (seen === undefined) this.places.set(j.id, j.queue_seq);
      else expect(j.queue_seq, `${j.id} lost its queue place`).toBe(seen);
    }
  }
}
