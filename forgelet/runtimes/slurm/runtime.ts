/**
 * The Slurm runtime: forgelet on a login node runs each run as ONE Slurm batch job through slurmrestd.
 *
 * - The ranks of a run reach the agent as separate launches; they are gathered here and submitted
 *   together, pinned to the nodes the Fleet DO chose, so Slurm starts them at once and counts the same
 *   GPUs. A run of several pools is one heterogeneous job, a component per pool; any component that
 *   ends otherwise than COMPLETED ends the run, and what is left of the job is cancelled. Before submitting, an existing job named after the run is adopted (an agent restarted between
 *   submitting and recording it launches nothing twice).
 * - Run directories live on a shared directory every compute node sees at the same path; without one
 *   (pull mode), each step builds its rank's run directory on its node's disk with the capsule's pull.py,
 *   fetching every input by digest from the control plane with the run's token.
 * - Observation polls slurmrestd (one poll per job, shared by its ranks). A failed poll is "cannot see
 *   right now", never "gone": it is retried with backoff for as long as it takes.
 * - Stop is `DELETE …/job/{id}`: Slurm sends SIGTERM, waits its KillWait, then SIGKILL.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import PULL_SCRIPT from "../../../capsule/pull.py";
import type { ClusterNode } from "../../../contract/agent-frames.schema.js";
import { backoffDelay } from "../../../contract/backoff.js";
import { writeFileAtomic } from "../../../contract/node-files.js";
import { LaunchError, type RunExit, type RunSpec, type Runtime, type RuntimeRef } from "../../runtime.js";
import { clusterNodeOf, gpuShare, type NodeSize, RankGathering } from "../gather.js";
import { DEFAULT_NODE_DIR, envFile, pullPlan, RANK_ENV_FILE } from "../pull.js";
import type { SlurmApi, SlurmJobInfo } from "./api.js";
import {
  EXIT_FILE,
  renderSubmission,
  runIdOfJobName,
  type SlurmComponentPlan,
  slurmJobName,
} from "./render.js";
import { SlurmAuthError, SlurmRejected, SlurmUnavailable } from "./rest.js";
import { live, observe, type SlurmObservation } from "./states.js";

export interface SlurmRuntimeOptions {
  api: SlurmApi;
  /**
   * Where run directories go: a directory every compute node sees at the same path. Null: pull mode,
   * where the agent's own `workDir` is only its staging area and the steps fetch their inputs.
   */
  sharedDir: string | null;
  /** Pull mode: where each step builds its run directory on its node's disk. */
  nodeDir?: string;
  /** Pull mode: the agent's own run directories (on this host only). */
  workDir?: string;
  partition?: string | null;
  account?: string | null;
  qos?: string | null;
  /** PATH of the batch jobs on the compute nodes (default: forgelet's own). */
  path?: string;
  /** GPU series of nodes whose GRES has no type (`gpu:4`). */
  gpuSeries?: string;
  keepRuns?: boolean;
  /** How long the ranks of a run wait for each other before the launch fails (default 120 s). */
  gatherMs?: number;
  /** Time between polls of one job (default 2 s). */
  pollMs?: number;
  /** How long a failed component's siblings are read again for the cause of the end (default 15 s). */
  settleMs?: number;
  log?: (msg: string) => void;
}

/** Errors that mean "slurmrestd cannot answer right now" (restarting, overloaded, token being renewed). */
function transient(err: unknown): boolean {
  return err instanceof SlurmUnavailable || err instanceof SlurmAuthError;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SlurmRuntime implements Runtime {
  readonly kind = "slurm" as const;
  readonly cluster = { nodes: () => this.nodes() };
  private readonly gathering: RankGathering<RuntimeRef>;
  private readonly polls = new Map<number, { at: number; answer: Promise<SlurmJobInfo | null> }>();
  /** Each node's CPUs, memory and GPUs, as last read: a job asks for its share of them. */
  private readonly sizes = new Map<string, NodeSize>();
  private readonly log: (msg: string) => void;

  constructor(private readonly o: SlurmRuntimeOptions) {
    this.log = o.log ?? (() => {});
    this.gathering = new RankGathering("Slurm", o.gatherMs ?? 120_000);
  }

  async preflight(): Promise<void> {
    let nodes: ClusterNode[];
    try {
      nodes = await this.nodes();
    } catch (err) {
      throw new Error(`the Slurm runtime cannot work: ${describe(err)}`);
    }
    if (nodes.length === 0) {
      throw new Error(
        `slurmrestd lists no node with GPUs${this.o.partition ? ` in partition ${this.o.partition}` : ""}; check the GRES (gres.conf, Gres= in slurm.conf)`,
      );
    }
    const dir = this.o.sharedDir ?? this.o.workDir;
    if (!dir) return;
    try {
      mkdirSync(dir, { recursive: true });
      const probe = join(dir, `.forgelet-probe-${process.pid}`);
      writeFileSync(probe, "ok");
      rmSync(probe, { force: true });
    } catch (err) {
      throw new Error(
        this.o.sharedDir
          ? `the shared directory ${dir} is not writable here: ${describe(err)} (--shared-dir must be a directory every compute node sees at the same path)`
          : `the work directory ${dir} is not writable here: ${describe(err)}`,
      );
    }
  }

  /** Pull mode: each rank's run directory is on its node's own disk. */
  runRootOf(runId: string, rank: number): string | undefined {
    return this.o.sharedDir ? undefined : `${this.o.nodeDir ?? DEFAULT_NODE_DIR}/${runId}-r${rank}`;
  }

  /** The cluster's GPU nodes as fleet nodes (only those of --partition, when given). */
  async nodes(): Promise<ClusterNode[]> {
    const all = await this.o.api.nodes();
    for (const n of all) this.sizes.set(n.name, { cpus: n.cpus, memoryMb: n.memoryMb, gpus: n.gpus });
    return all
      .filter((n) => n.gpus > 0 && (!this.o.partition || n.partitions.includes(this.o.partition)))
      .map((n) => ({
        name: n.name,
        gpu_series: (n.gpuType ?? this.o.gpuSeries ?? "gpu").toLowerCase(),
        gpus: Math.min(n.gpus, 64),
        state: n.state,
        reason: [n.state === "ready" ? "" : n.slurmState, n.reason].filter(Boolean).join(": ").slice(0, 500),
        cpus: n.cpus,
        memory_mb: n.memoryMb,
        labels: { "slurm.partitions": n.partitions.join(",").slice(0, 200) },
        advertise_addr: n.address,
      }));
  }

  // launch ----------------------------------------------------------------------

  /** Resolves with the run's Slurm job once every rank of the run reached this agent and it is submitted. */
  async launch(spec: RunSpec): Promise<RuntimeRef> {
    if (!spec.placement?.length) throw new LaunchError("the launch names no placement", true);
    if (this.o.sharedDir) writeFileAtomic(join(spec.runDir, RANK_ENV_FILE), envFile(spec.env), 0o600);
    // Submitted before (this agent restarted between submitting and recording it): that job, even ended.
    const existing = await this.retrying(`looking for run ${spec.runId}'s Slurm job`, () =>
      this.findJob(spec.runId, spec.epoch),
    );
    if (existing) return { kind: "slurm", id: String(existing.id) };
    return this.gathering.join(spec, (specs) => this.submit(specs));
  }

  abort(runId: string, rank: number): boolean {
    return this.gathering.abort(runId, rank);
  }

  /** Runs `call`, waiting out a slurmrestd that cannot answer right now (bounded); other errors pass. */
  private async retrying<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!transient(err) || attempt >= 8) throw new LaunchError(`${what} failed: ${describe(err)}`, true);
        if (attempt === 0) this.log(`${what} failed (${describe(err)}); retrying`);
        await sleep(backoffDelay(attempt, { baseMs: 1000, capMs: 15_000, jitter: "none" }));
      }
    }
  }

  private async submit(specs: RunSpec[]): Promise<RuntimeRef> {
    const first = specs[0]!;
    let sub: ReturnType<typeof renderSubmission>;
    try {
      sub = renderSubmission({
        runId: first.runId,
        jobId: first.jobId,
        attempt: first.attempt ?? 1,
        epoch: first.epoch,
        components: this.components(specs),
        maxRuntimeSeconds: first.maxRuntimeSeconds ?? null,
        partition: this.o.partition ?? null,
        account: this.o.account ?? null,
        qos: this.o.qos ?? null,
        path: this.o.path ?? process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
        secrets: first.secrets ?? {},
        pull: this.o.sharedDir
          ? null
          : { plan: pullPlan(specs), script: PULL_SCRIPT, keep: this.o.keepRuns === true },
      });
    } catch (err) {
      throw new LaunchError(describe(err), false);
    }
    // A slurmrestd that cannot answer right now gets a few tries; Slurm's refusal is final.
    for (let attempt = 0; ; attempt++) {
      try {
        const again = await this.findJob(first.runId, first.epoch);
        if (again) return { kind: "slurm", id: String(again.id) };
        const id = await this.o.api.submit(sub);
        const on = sub.components.map((c) => c.nodelist.join(",")).join(" + ");
        const het = sub.components.length > 1 ? "heterogeneous " : "";
        this.log(`run ${first.runId}: submitted as ${het}Slurm job ${id} on ${on}`);
        return { kind: "slurm", id: String(id) };
      } catch (err) {
        if (err instanceof SlurmRejected) throw new LaunchError(err.message, false);
        if (!transient(err) || attempt >= 5)
          throw new LaunchError(`submitting to Slurm failed: ${describe(err)}`, true);
        this.log(`run ${first.runId}: submitting to Slurm failed (${describe(err)}); retrying`);
        await sleep(backoffDelay(attempt, { baseMs: 1000, capMs: 15_000, jitter: "none" }));
      }
    }
  }

  /**
   * The ranks by pool, a component each, in the order of their first rank (rank 0's first), each with its
   * GPUs per node and its share of its nodes.
   */
  private components(specs: RunSpec[]): SlurmComponentPlan[] {
    const first = specs[0]!;
    const placement = [...first.placement!].sort((a, b) => a.rank - b.rank);
    const byPool = new Map<string, SlurmComponentPlan>();
    for (const p of placement) {
      const pool = p.pool ?? "";
      const rank = {
        rank: p.rank,
        node: clusterNodeOf(p.nodeId),
        runDir: this.runRootOf(first.runId, p.rank) ?? specs.find((s) => s.rank === p.rank)?.runDir ?? "",
      };
      const c = byPool.get(pool);
      if (!c) byPool.set(pool, { pool, ranks: [rank], gpusPerNode: p.gpus });
      else if (c.gpusPerNode === p.gpus) c.ranks.push(rank);
      else {
        throw new Error(
          `run ${first.runId} asks for different GPU counts per node within pool ${pool || "(unnamed)"} (${c.gpusPerNode}, ${p.gpus}); a Slurm component has one GRES request`,
        );
      }
    }
    return [...byPool.values()].map((c) => ({
      ...c,
      ...this.shareOf(
        c.ranks.map((r) => r.node),
        c.gpusPerNode,
      ),
    }));
  }

  /** The run's share of its nodes (gather.ts); Slurm asks for at least one CPU per task. */
  private shareOf(
    nodes: string[],
    gpus: number,
  ): { cpusPerTask: number | null; memoryPerNodeMb: number | null } {
    const share = gpuShare(
      nodes.map((n) => this.sizes.get(n)),
      gpus,
    );
    if (!share) return { cpusPerTask: null, memoryPerNodeMb: null };
    return {
      cpusPerTask: Math.max(1, share.cpus),
      memoryPerNodeMb: share.memoryMb > 0 ? share.memoryMb : null,
    };
  }

  /**
   * The job of this run and epoch, if one was submitted (by this agent or one before it): a live one
   * first, else one that already ended (its end is then what the agent reports; it is never run again).
   */
  private async findJob(runId: string, epoch: number): Promise<SlurmJobInfo | null> {
    const ours = (await this.o.api.jobs()).filter(
      (j) => j.name === slurmJobName(runId) && j.comment.split(" ").includes(`epoch=${epoch}`),
    );
    return ours.find(live) ?? ours.sort((a, b) => b.id - a.id)[0] ?? null;
  }

  // observe ---------------------------------------------------------------------

  /** One poll per job at a time: the ranks of a run share it. */
  private poll(id: number): Promise<SlurmJobInfo | null> {
    const now = Date.now();
    const cached = this.polls.get(id);
    if (cached && now - cached.at < (this.o.pollMs ?? 2000) / 2) return cached.answer;
    const answer = this.o.api.job(id);
    this.polls.set(id, { at: now, answer });
    answer.catch(() => this.polls.delete(id));
    return answer;
  }

  /** Polls until `done` says so; a failed poll is retried with backoff, never taken as an answer. */
  private async follow(
    id: number,
    done: (job: SlurmJobInfo | null, seen: SlurmObservation | null) => boolean,
  ): Promise<SlurmJobInfo | null> {
    let failures = 0;
    for (;;) {
      let job: SlurmJobInfo | null;
      try {
        job = await this.poll(id);
        if (failures > 0) this.log(`Slurm job ${id}: slurmrestd answers again`);
        failures = 0;
      } catch (err) {
        if (failures === 0)
          this.log(`Slurm job ${id}: cannot observe it right now (${describe(err)}); retrying`);
        await sleep(backoffDelay(failures++, { baseMs: 1000, capMs: 30_000, jitter: "none" }));
        continue;
      }
      if (done(job, job ? observe(job) : null)) return job;
      await sleep(this.o.pollMs ?? 2000);
    }
  }

  async waitStarted(ref: RuntimeRef, _spec: RunSpec, onWaiting: (reason: string) => void): Promise<void> {
    let said = "";
    await this.follow(Number(ref.id), (job, seen) => {
      if (!job || !seen || seen.phase !== "waiting") return true;
      if (seen.reason !== said) {
        said = seen.reason;
        onWaiting(seen.reason);
      }
      return false;
    });
  }

  async wait(ref: RuntimeRef, spec: RunSpec): Promise<RunExit> {
    const id = Number(ref.id);
    let ran = false;
    let requeued: SlurmObservation | null = null;
    const followed = await this.follow(id, (j, seen) => {
      if (seen?.phase === "running") ran = true;
      // Slurm put a job that ran back in its queue (a node failed, a preemption; JobRequeue=1): it would
      // start again behind the control plane's back. It is cancelled; the retry budget decides instead.
      if (ran && seen?.phase === "waiting") requeued = seen;
      return !j || seen?.phase === "ended" || requeued !== null;
    });
    const job = followed && (await this.settle(id, followed));
    if (requeued !== null) {
      const r = requeued as SlurmObservation;
      await this.stop(ref, 0).catch(() => {});
      return {
        exitCode: null,
        reason: `Slurm requeued job ${id} (${r.state}${r.reason ? `: ${r.reason}` : ""}); cancelled, so the control plane retries it`,
        infra: true,
      };
    }
    // A component ended otherwise than COMPLETED while the others still run (Slurm does not always end
    // them: a step whose tasks there exited 0 leaves the rest running): the run is over, and nothing of
    // it may stay behind. Cancelled alongside the report, not before it: the cause is reported first.
    if (job && live(job)) void this.stop(ref, 0).catch(() => {});
    const own = readExit(spec.runDir);
    if (!job) {
      // Purged from slurmctld's memory (MinJobAge) while nobody watched: the rank's own record decides.
      return own === null
        ? {
            exitCode: null,
            reason: `Slurm no longer knows job ${id}, and rank ${spec.rank} left no exit code`,
            infra: true,
          }
        : { exitCode: own, reason: own === 0 ? "exited 0" : `exited with code ${own}`, infra: false };
    }
    const seen = observe(job);
    if (seen.state === "COMPLETED") return { exitCode: own ?? 0, reason: seen.reason, infra: false };
    // Any other end is a failure, even when a process exited 0 (a node lost after its rank finished,
    // a training that checkpointed and exited 0 on the time limit's SIGTERM): never report 0 for it.
    const code = [own, seen.exitCode].find((c) => c !== null && c !== 0) ?? null;
    return { exitCode: code, reason: seen.reason, infra: seen.infra };
  }

  /**
   * A component of a heterogeneous job failed while another is still ending: that one's end may be the
   * cause (cancelled, its node lost) and this FAILED its consequence (their step was killed). It is read
   * again for a few seconds, so the cause is what the run reports.
   */
  private async settle(id: number, job: SlurmJobInfo): Promise<SlurmJobInfo> {
    const until = Date.now() + (this.o.settleMs ?? 15_000);
    let cur = job;
    while (live(cur) && observe(cur).phase === "ended" && !observe(cur).infra && Date.now() < until) {
      await sleep(this.o.pollMs ?? 2000);
      try {
        const next = await this.poll(id);
        if (!next) break;
        cur = next;
      } catch {
        // Cannot read it right now: what was seen stands.
      }
    }
    return cur;
  }

  async alive(ref: RuntimeRef): Promise<boolean> {
    const job = await this.o.api.job(Number(ref.id));
    return job !== null && live(job);
  }

  /**
   * Cancels the job (all its ranks). Slurm gives the grace itself (SIGTERM, KillWait, SIGKILL); a
   * slurmrestd that cannot answer is asked again until it does or the job is gone.
   */
  async stop(ref: RuntimeRef, _graceMs: number): Promise<void> {
    const id = Number(ref.id);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.o.api.cancel(id);
        return;
      } catch (err) {
        if (attempt >= 30) throw new Error(`cancelling Slurm job ${id} failed: ${describe(err)}`);
        if (attempt === 0) this.log(`cancelling Slurm job ${id} failed (${describe(err)}); retrying`);
        await sleep(backoffDelay(attempt, { baseMs: 1000, capMs: 15_000, jitter: "none" }));
      }
    }
  }

  async cleanup(ref: RuntimeRef | null, spec: RunSpec): Promise<void> {
    if (ref && (await this.alive(ref).catch(() => false))) await this.stop(ref, 0);
    this.polls.delete(Number(ref?.id));
    if (!this.o.keepRuns) rmSync(spec.runDir, { recursive: true, force: true });
  }

  /** Every live Slurm job of ours (named after its run). */
  async list(): Promise<Array<{ ref: RuntimeRef; labels: Record<string, string> }>> {
    const jobs = await this.o.api.jobs();
    return jobs
      .filter((j) => runIdOfJobName(j.name) !== null && live(j))
      .map((j) => ({
        ref: { kind: "slurm" as const, id: String(j.id) },
        labels: { "starforge.run_id": runIdOfJobName(j.name)! },
      }));
  }
}

/** The exit code a rank's step recorded (render.ts), or null when it recorded none. */
function readExit(runDir: string): number | null {
  try {
    const n = Number(readFileSync(join(runDir, EXIT_FILE), "utf8").trim());
    return Number.isInteger(n) ? n : null;
  } catch {
    return null;
  }
}
