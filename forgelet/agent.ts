/**
 * forgelet's brain: turns server frames into runtime actions and runtime outcomes into reports.
 *
 * - Launch is idempotent by (run, rank): a repeated launch re-reports what the journal says.
 * - Every report is re-sent until the server acks it (or refuses it with an error naming it).
 * - After a restart the journal is replayed: live workloads are watched again (reattached), and the
 *   hello tells the server what this node has, so both sides reconcile.
 * - Frames it does not understand are refused with a coded error; the agent stays up.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AGENT_PROTOCOL_VERSION,
  type AgentFrame,
  HEARTBEAT_PONG,
  type Inventory,
  type Orphan,
  parseFrame,
  ServerFrame,
} from "../contract/agent-frames.schema.js";
import { newId } from "../contract/ids.js";
import { writeFileAtomic } from "../contract/node-files.js";
import { BlobCache, BlobFetchError, DigestMismatchError } from "./blob-cache.js";
import { Connection } from "./connection.js";
import { gpusOf, gpusReleased } from "./gpu-release.js";
import { Journal, type JournalRecord } from "./journal.js";
import { materialize } from "./materialize.js";
import { sweepOrphans } from "./orphans.js";
import { LaunchError, type RunExit, type RunSpec, type Runtime, type RuntimeRef } from "./runtime.js";

type Report = Extract<AgentFrame, { type: "report" }>;
type Launch = Extract<ServerFrame, { type: "launch" }>;

/** A launch as the agent saves it: each secret's name kept, its value replaced by "" (never on disk). */
function withoutSecrets(f: Launch): Launch {
  const secrets = Object.fromEntries(Object.keys(f.request.secrets).map((k) => [k, ""]));
  return { ...f, request: { ...f.request, secrets } };
}
type Stop = Extract<ServerFrame, { type: "stop" }>;

export interface AgentOptions {
  server: string;
  credential: string;
  stateDir: string;
  runsDir: string;
  runtime: Runtime;
  inventory: Inventory;
  log: (msg: string) => void;
  resendMs?: number;
  backoffMaxMs?: number;
  /** Where the run directory appears inside the workload (containers mount it); default: same path. */
  runRootInside?: string;
  /** A cluster runtime's nodes are re-read this often (default 30 s) and sent when they change. */
  inventoryRefreshMs?: number;
}

export class Agent {
  readonly journal: Journal;
  private readonly blobs: BlobCache;
  private readonly conn: Connection;
  private readonly pending = new Map<string, Report>();
  private readonly watching = new Set<string>();
  private readonly specs = new Map<string, RunSpec>();
  /** Ranks that reported their own exit, given a moment to exit by themselves (stop.finish_seconds). */
  private readonly finishing = new Map<string, NodeJS.Timeout>();
  private resendTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  /** What this agent offers now (a cluster's nodes change; the hello and `inventory` frames carry it). */
  private inventory: Inventory;
  /** What the start-up sweep found, told to the control plane in every hello. */
  private orphans: Orphan[] = [];
  /** An `inventory` frame not yet acknowledged (re-sent with the reports). */
  private inventoryFrame: Extract<AgentFrame, { type: "inventory" }> | null = null;

  constructor(private readonly o: AgentOptions) {
    this.inventory = o.inventory;
    this.journal = new Journal(o.stateDir);
    this.blobs = new BlobCache(o.stateDir, o.server, o.credential);
    const url = `${o.server.replace(/^http/, "ws")}/v1/agents/connect`;
    this.conn = new Connection({
      url,
      credential: o.credential,
      log: o.log,
      backoffMaxMs: o.backoffMaxMs,
      onOpen: () => this.hello(),
      onText: (t) => void this.onText(t),
    });
  }

  async start(): Promise<void> {
    await this.o.runtime.preflight();
    // Reattach: anything the journal says was launched and is still alive is watched again.
    for (const r of this.journal.all()) {
      if (r.state === "launched" && r.ref) this.watch(r);
      if (r.state === "exited" && !r.final_acked) this.reportFinal(r);
      // Submitted to a cluster that still held it: wait for it again; else finish preparing it.
      if (r.state === "accepted") void (r.ref ? this.started(r, r.ref) : this.resumeAccepted(r));
    }
    this.orphans = await sweepOrphans(this.o.runtime, this.journal, this.o.log);
    this.conn.start();
    this.resendTimer = setInterval(() => this.resend(), this.o.resendMs ?? 3000);
    this.resendTimer.unref();
    if (this.o.runtime.cluster) {
      this.refreshTimer = setInterval(
        () => void this.refreshInventory(),
        this.o.inventoryRefreshMs ?? 30_000,
      );
      this.refreshTimer.unref();
    }
  }

  async stop(): Promise<void> {
    for (const t of this.finishing.values()) clearTimeout(t);
    this.finishing.clear();
    if (this.resendTimer) clearInterval(this.resendTimer);
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.conn.stop();
  }

  /** A cluster's nodes, read again; sent to the control plane when they changed. */
  async refreshInventory(): Promise<void> {
    let nodes: Inventory["nodes"];
    try {
      nodes = await this.o.runtime.cluster!.nodes();
    } catch (err) {
      this.o.log(
        `reading the cluster's nodes failed (${err instanceof Error ? err.message : String(err)}); keeping the last known`,
      );
      return;
    }
    if (JSON.stringify(nodes) === JSON.stringify(this.inventory.nodes)) return;
    this.inventory = { ...this.inventory, nodes };
    this.inventoryFrame = {
      v: AGENT_PROTOCOL_VERSION,
      type: "inventory",
      id: newId("frm"),
      inventory: this.inventory,
    };
    this.send(this.inventoryFrame);
  }

  /** Simulates a network drop (tests, `kill -USR1`): the socket closes and the agent reconnects. */
  dropConnection(): void {
    this.conn.drop();
  }

  // frames ----------------------------------------------------------------------

  private hello(): void {
    this.send({
      v: AGENT_PROTOCOL_VERSION,
      type: "hello",
      id: newId("frm"),
      inventory: this.inventory,
      journal: this.journal.entries(),
      orphans: this.orphans,
    });
    // The hello carries the newest inventory: an unacknowledged `inventory` frame is superseded.
    this.inventoryFrame = null;
    this.resend();
  }

  private async onText(text: string): Promise<void> {
    if (text === HEARTBEAT_PONG) return;
    const parsed = parseFrame(ServerFrame, text);
    if (!parsed.ok) {
      this.o.log(`refusing a frame: ${parsed.code}: ${parsed.message}`);
      this.send({
        v: AGENT_PROTOCOL_VERSION,
        type: "error",
        id: newId("frm"),
        ref: parsed.ref,
        code: parsed.code,
        message: parsed.message,
      });
      return;
    }
    const f = parsed.frame;
    try {
      switch (f.type) {
        case "welcome":
          this.conn.setHeartbeat(f.heartbeat_seconds);
          for (const s of f.stop)
            for (const r of this.journal.byRun(s.run_id))
              await this.stopRank(r, 10_000, "not expected by the control plane");
          break;
        case "launch":
          // Acked inside launch(), once the journal knows the rank (see there).
          await this.launch(f);
          break;
        case "stop":
          this.ack(f.id);
          await this.onStop(f);
          break;
        case "ack":
          this.onAck(f.ref);
          break;
        case "credential":
          this.renewCredential(f.credential, f.expires_at);
          this.ack(f.id);
          break;
        case "error":
          this.onError(f.ref, f.code, f.message);
          break;
      }
    } catch (err) {
      this.o.log(`handling ${f.type} failed: ${err instanceof Error ? err.stack : String(err)}`);
    }
  }

  /** A renewed node credential: saved (0600, atomically) before it is used, so a restart dials with it. */
  private renewCredential(credential: string, expiresAt: string): void {
    const file = join(this.o.stateDir, "credential.json");
    const saved = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
    writeFileAtomic(file, JSON.stringify({ ...saved, credential, expires_at: expiresAt }, null, 2), 0o600);
    this.conn.setCredential(credential);
    this.blobs.setCredential(credential);
    this.o.log(`node credential renewed; valid until ${expiresAt}`);
  }

  private ack(ref: string): void {
    this.send({ v: AGENT_PROTOCOL_VERSION, type: "ack", id: newId("frm"), ref });
  }

  private send(frame: AgentFrame): boolean {
    return this.conn.send(JSON.stringify(frame));
  }

  // launch ------------------------------------------------------------------------

  private async launch(f: Launch): Promise<void> {
    const req = f.request;
    const known = this.journal.get(req.run_id, f.rank);
    if (known) {
      // Idempotent: the same launch again (a re-send) only re-reports where it stands.
      this.ack(f.id);
      if (known.state === "exited") this.reportFinal(known);
      else this.report(known, known.state === "launched" ? "launched" : "accepted");
      return;
    }
    const runDir = join(this.o.runsDir, `${req.run_id}-r${f.rank}`);
    const rec: JournalRecord = {
      run_id: req.run_id,
      job_id: req.job_id,
      epoch: req.epoch,
      rank: f.rank,
      state: "accepted",
      exit_code: null,
      reason: null,
      infra: false,
      run_dir: runDir,
      ref: null,
      stop_requested: false,
      final_acked: false,
    };
    this.journal.put(rec);
    try {
      // Kept (0600, it holds the run's token) so a restart while preparing can finish the launch. The
      // job's secrets are never written to disk: the saved copy names them only.
      writeFileAtomic(join(runDir, ".starforge", "launch.json"), JSON.stringify(withoutSecrets(f)), 0o600);
    } catch (err) {
      // The run directory cannot be made (a file in the way, a full or read-only disk): nothing can
      // start, and the control plane must hear so rather than wait for this rank forever.
      this.ack(f.id);
      const why = err instanceof Error ? err.message : String(err);
      return this.finish(rec, "launch_failed", null, `preparing the run failed: ${why}`, true);
    }
    // Acked only now: an agent killed before this point has no record of the rank, and the control
    // plane (which re-sends unacked commands) sends the launch again instead of waiting for it forever.
    this.ack(f.id);
    this.report(rec, "accepted");
    await this.prepareAndStart(rec, f);
  }

  /** The agent restarted between accepting a launch and starting it: finish what it began. */
  private async resumeAccepted(rec: JournalRecord): Promise<void> {
    const file = join(rec.run_dir, ".starforge", "launch.json");
    if (!existsSync(file)) {
      return this.finish(
        rec,
        "launch_failed",
        null,
        "the agent restarted while preparing this run; nothing was started",
        true,
      );
    }
    const parsed = parseFrame(ServerFrame, readFileSync(file, "utf8"));
    if (!parsed.ok || parsed.frame.type !== "launch") {
      return this.finish(
        rec,
        "launch_failed",
        null,
        "the saved launch request is unreadable; nothing was started",
        true,
      );
    }
    const withheld = Object.keys(parsed.frame.request.secrets);
    if (withheld.length > 0) {
      // Its secrets were only ever in this agent's memory: the control plane launches it again.
      return this.finish(
        rec,
        "launch_failed",
        null,
        `the agent restarted while preparing this run; its secrets (${withheld.join(", ")}) are never kept on disk, so it is launched again`,
        true,
      );
    }
    await this.prepareAndStart(rec, parsed.frame);
  }

  private async prepareAndStart(rec: JournalRecord, f: Launch): Promise<void> {
    const req = f.request;
    const runDir = rec.run_dir;
    let spec: RunSpec;
    try {
      spec = await materialize(req, f.rank, runDir, this.blobs, {
        runRootInside: this.o.runtime.runRootOf?.(req.run_id, f.rank) ?? this.o.runRootInside,
        advertiseAddr: this.advertiseAddrOf(req, f.rank),
      });
    } catch (err) {
      const reason =
        err instanceof DigestMismatchError || err instanceof BlobFetchError
          ? `${err.message}; nothing was run`
          : `preparing the run failed: ${err instanceof Error ? err.message : String(err)}`;
      return this.finish(rec, "launch_failed", null, reason, true);
    }
    this.specs.set(keyOf(rec), spec);
    if (this.journal.get(rec.run_id, rec.rank)?.stop_requested) {
      return this.finish(rec, "stopped", null, "stopped before it started", false);
    }
    // A cluster runs every node's GPUs itself (and its indices are per node, not this host's).
    if (!this.o.runtime.cluster) {
      await gpusReleased(
        this.journal,
        rec,
        spec.gpuIndices,
        (o) => gpusOf(o, this.specs.get(keyOf(o))?.gpuIndices),
        this.o.log,
      );
    }
    if (this.journal.get(rec.run_id, rec.rank)?.stop_requested) {
      return this.finish(rec, "stopped", null, "stopped before it started", false);
    }
    let ref: RuntimeRef;
    try {
      ref = await this.o.runtime.launch(spec);
    } catch (err) {
      if (this.journal.get(rec.run_id, rec.rank)?.stop_requested) {
        return this.finish(rec, "stopped", null, "stopped before it started", false);
      }
      const infra = err instanceof LaunchError ? err.infra : true;
      return this.finish(rec, "launch_failed", null, err instanceof Error ? err.message : String(err), infra);
    }
    // Recorded at once: a restart from here on finds the workload again instead of starting another.
    const submitted = this.journal.update(rec.run_id, rec.rank, { ref })!;
    if (submitted.stop_requested) await this.o.runtime.stop(ref, 10_000);
    await this.started(submitted, ref);
  }

  /**
   * The runtime has the workload: once it runs (a cluster may first hold it in its queue, reported as
   * `waiting` with the cluster's reason), it is `launched` and watched to its end.
   */
  private async started(rec: JournalRecord, ref: RuntimeRef): Promise<void> {
    if (this.o.runtime.waitStarted) {
      try {
        await this.o.runtime.waitStarted(ref, this.specOf(rec), (reason) => {
          const cur = this.journal.get(rec.run_id, rec.rank);
          if (cur?.state === "accepted" && !cur.stop_requested) this.report(cur, "waiting", reason);
        });
      } catch (err) {
        this.o.log(`waiting for run ${rec.run_id} rank ${rec.rank} to start failed: ${String(err)}`);
      }
    }
    const cur = this.journal.get(rec.run_id, rec.rank);
    if (!cur || cur.state === "exited") return;
    const launched = this.journal.update(rec.run_id, rec.rank, { state: "launched", ref })!;
    // Stopped while it waited: it never ran; the watcher reports `stopped` once it is gone.
    if (!launched.stop_requested) this.report(launched, "launched");
    this.watch(launched);
  }

  /** Where this rank's peers reach it: its cluster node's address, else this agent's own. */
  private advertiseAddrOf(req: Launch["request"], rank: number): string | undefined {
    const nodeId = req.placement.find((p) => p.rank === rank)?.node_id;
    const node = this.inventory.nodes?.find((n) => nodeId?.endsWith(`:${n.name}`));
    return node?.advertise_addr ?? this.inventory.advertise_addr;
  }

  /** Waits for a workload to end (also one started before this agent process) and reports it. */
  private watch(rec: JournalRecord): void {
    const k = keyOf(rec);
    if (this.watching.has(k) || !rec.ref) return;
    this.watching.add(k);
    const ref = rec.ref;
    void this.o.runtime
      .wait(ref, this.specOf(rec))
      .then(async (exit: RunExit) => {
        const cur = this.journal.get(rec.run_id, rec.rank);
        if (!cur) return;
        const event = cur.stop_requested ? "stopped" : "exited";
        await this.finish(cur, event, exit.exitCode, exit.reason, exit.infra);
      })
      .catch((err: unknown) => this.o.log(`watching ${k} failed: ${String(err)}`))
      .finally(() => this.watching.delete(k));
  }

  private specOf(rec: JournalRecord): RunSpec {
    return (
      this.specs.get(keyOf(rec)) ?? {
        runId: rec.run_id,
        jobId: rec.job_id,
        epoch: rec.epoch,
        rank: rec.rank,
        runDir: rec.run_dir,
        env: {},
        secrets: {},
        image: null,
        gpuIndices: [],
        resources: {},
        labels: {},
      }
    );
  }

  private async finish(
    rec: JournalRecord,
    event: "exited" | "stopped" | "launch_failed",
    exitCode: number | null,
    reason: string,
    infra: boolean,
  ): Promise<void> {
    const done = this.journal.update(rec.run_id, rec.rank, {
      state: "exited",
      exit_code: exitCode,
      reason,
      infra,
    })!;
    this.o.log(`run ${rec.run_id} rank ${rec.rank}: ${event} (${reason})`);
    this.reportFinal(done, event);
  }

  // stop --------------------------------------------------------------------------

  private async onStop(f: Stop): Promise<void> {
    const rec = this.journal.get(f.run_id, f.rank);
    if (!rec) {
      // Nothing here for that run: say so, so the control plane can release its GPUs.
      const ghost: JournalRecord = {
        run_id: f.run_id,
        job_id: "",
        epoch: f.epoch,
        rank: f.rank,
        state: "exited",
        exit_code: null,
        reason: "not running on this node",
        infra: false,
        run_dir: "",
        ref: null,
        stop_requested: true,
        final_acked: false,
      };
      this.report(ghost, "stopped");
      return;
    }
    if (f.finish_seconds && rec.state !== "exited") {
      // Its runner already reported the end: the workload is finishing. Stop it only if it lingers.
      const key = keyOf(rec);
      if (this.finishing.has(key)) return;
      this.o.log(
        `run ${rec.run_id} rank ${rec.rank} already reported its end; it has ${f.finish_seconds}s to exit`,
      );
      const timer = setTimeout(() => {
        this.finishing.delete(key);
        const cur = this.journal.get(f.run_id, f.rank);
        if (!cur || cur.state === "exited") return;
        void this.stopRank(
          cur,
          f.grace_seconds * 1000,
          `${f.reason}; still running ${f.finish_seconds}s after it reported its end`,
        ).catch((err) => this.o.log(`stopping run ${f.run_id} rank ${f.rank} failed: ${String(err)}`));
      }, f.finish_seconds * 1000);
      timer.unref();
      this.finishing.set(key, timer);
      return;
    }
    await this.stopRank(rec, f.grace_seconds * 1000, f.reason);
  }

  private async stopRank(rec: JournalRecord, graceMs: number, why: string): Promise<void> {
    const cur = this.journal.update(rec.run_id, rec.rank, { stop_requested: true })!;
    this.o.log(`stopping run ${rec.run_id} rank ${rec.rank}: ${why}`);
    if (cur.state === "exited") return this.reportFinal(cur);
    if (cur.state === "launched" && cur.ref) {
      await this.o.runtime.stop(cur.ref, graceMs);
      // The watcher reports `stopped` when the workload is gone.
      if (!this.watching.has(keyOf(cur))) this.watch(cur);
    } else if (cur.ref) {
      // Submitted, still in the cluster's queue: cancelled there; started() then watches it end.
      await this.o.runtime.stop(cur.ref, graceMs);
    } else {
      // Still inside the runtime's launch (waiting for the run's other ranks): end that wait now.
      this.o.runtime.abort?.(cur.run_id, cur.rank);
    }
    // Still preparing (accepted): launch() sees stop_requested and reports `stopped` instead of starting.
  }

  // reports -----------------------------------------------------------------------

  private report(rec: JournalRecord, event: Report["event"], reason?: string): void {
    const frame: Report = {
      v: AGENT_PROTOCOL_VERSION,
      type: "report",
      id: newId("frm"),
      run_id: rec.run_id,
      epoch: rec.epoch,
      rank: rec.rank,
      event,
      exit_code: rec.exit_code,
      reason: reason ?? rec.reason,
      infra: rec.infra,
      ts: new Date().toISOString(),
    };
    // A newer report about the same rank supersedes an older unacknowledged one.
    for (const [id, p] of this.pending)
      if (p.run_id === rec.run_id && p.rank === rec.rank) this.pending.delete(id);
    this.pending.set(frame.id, frame);
    this.send(frame);
  }

  private reportFinal(rec: JournalRecord, event?: "exited" | "stopped" | "launch_failed"): void {
    const ev =
      event ?? (rec.stop_requested ? "stopped" : rec.ref === null && rec.infra ? "launch_failed" : "exited");
    this.report(rec, ev);
  }

  private resend(): void {
    for (const f of this.pending.values()) this.send(f);
    if (this.inventoryFrame) this.send(this.inventoryFrame);
  }

  private onAck(ref: string): void {
    if (this.inventoryFrame?.id === ref) this.inventoryFrame = null;
    const f = this.pending.get(ref);
    if (!f) return;
    this.pending.delete(ref);
    if (f.event === "exited" || f.event === "stopped" || f.event === "launch_failed") void this.settle(f);
  }

  private onError(ref: string | null, code: string, message: string): void {
    this.o.log(`control plane error ${code}${ref ? ` for ${ref}` : ""}: ${message}`);
    if (!ref) return;
    const f = this.pending.get(ref);
    if (!f) return;
    this.pending.delete(ref);
    // A refused report (stale epoch, unknown run) means this workload is not ours to run: end it.
    const rec = this.journal.get(f.run_id, f.rank);
    if (rec && rec.state !== "exited") void this.stopRank(rec, 10_000, `${code}: ${message}`);
    else void this.settle(f);
  }

  /** The final report was acknowledged: clean the run up and forget it. */
  private async settle(f: Report): Promise<void> {
    const rec = this.journal.get(f.run_id, f.rank);
    if (!rec) return;
    this.journal.update(rec.run_id, rec.rank, { final_acked: true });
    await this.o.runtime
      .cleanup(rec.ref, this.specOf(rec))
      .catch((err: unknown) => this.o.log(`cleanup of ${f.run_id} failed: ${String(err)}`));
    this.specs.delete(keyOf(rec));
    this.journal.delete(rec.run_id, rec.rank);
  }
}

function keyOf(r: { run_id: string; rank: number }): string {
  return `${r.run_id}#${r.rank}`;
}
