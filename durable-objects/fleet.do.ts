/**
 * Fleet Durable Object: one per fleet, the single writer of its scheduling state, and the end of every
 * agent's WebSocket. This class is an adapter: RPC calls, socket frames and alarms become synchronous
 * FleetEngine operations inside `transactionSync`; afterwards it flushes the outbox to D1 and sends
 * agents their pending commands. Order: constructor → RPC → fetch → webSocket* → alarm → helpers.
 */
import { DurableObject } from "cloudflare:workers";
import {
  AGENT_PROTOCOL_VERSION,
  AgentFrame,
  HEARTBEAT_PING,
  HEARTBEAT_PONG,
  parseFrame,
  type ServerFrame,
} from "../contract/agent-frames.schema.js";
import type { Quota, RegisterNodeBody } from "../contract/api.schema.js";
import { backoffDelay } from "../contract/backoff.js";
import type { Result } from "../contract/errors.js";
import { newId } from "../contract/ids.js";
import type { AppEnv } from "../worker/env.js";
import {
  type Actor,
  type DrainReport,
  type FleetConfig,
  FleetEngine,
  type FleetInspect,
  type JobAction,
  type JobDetail,
  type NodeView,
  type RunEventInput,
  type RunEventOutcome,
  type SubmitInput,
  WINDOWS_TIMER,
} from "./fleet-engine.js";
import { buildLaunchRequest } from "./fleet-launch.js";
import { type CommandRow, FleetStore } from "./fleet-store.js";
import { drainOutbox } from "./outbox.js";
import { pokeDueWebhooks } from "./webhook-poke.js";

const OUTBOX_TIMER = "outbox";
const SCHEDULE_TIMER = "schedule";
const COMMANDS_TIMER = "commands";
const LIVENESS_TIMER = "liveness";
const LOST_PREFIX = "lost:";
const RETRY_PREFIX = "retry:";
const MAX_RETRY_MS = 300_000;

interface SocketAttachment {
  nodeId: string;
  lastSeen: number;
}

export class FleetDO extends DurableObject<AppEnv> {
  private readonly store: FleetStore;
  private readonly engine: FleetEngine;
  private flushing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.store = new FleetStore(ctx.storage.sql);
    this.engine = new FleetEngine(this.store);
    // Heartbeats are answered by the runtime without waking this object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT_PING, HEARTBEAT_PONG));
    void ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
      this.store.setMeta("retry_base_ms", String((Number(env.SF_RETRY_BACKOFF_SECONDS) || 30) * 1000));
      // After a restart, anything written but not yet flushed or sent is picked up by the alarm.
      const now = Date.now();
      if (this.store.outboxSize() > 0) this.store.setTimer(OUTBOX_TIMER, now);
      if (this.store.hasOpenCommands()) this.store.setTimer(COMMANDS_TIMER, now);
      if (ctx.getWebSockets().length > 0) this.store.setTimer(LIVENESS_TIMER, now + this.livenessMs());
      await this.armAlarm();
    });
  }

  // RPC -------------------------------------------------------------------------

  async configure(cfg: FleetConfig): Promise<void> {
    this.tx(() => this.engine.configure(cfg, Date.now()));
    await this.afterChange();
  }

  async setQuota(userId: string, quota: Quota): Promise<void> {
    this.tx(() => this.engine.setQuota(userId, quota, Date.now()));
    await this.afterChange();
  }

  /** Maintenance drain on (idempotent) or off; the report lists what it paused and what blocks it. */
  async setDrain(draining: boolean, note: string | null): Promise<DrainReport> {
    const now = Date.now();
    const report = this.tx(() => (draining ? this.engine.drain(note, now) : this.engine.undrain(now)));
    await this.afterChange();
    return report;
  }

  /** The drain's current report (blockers shrink as paused runs confirm their stop). */
  async drainStatus(): Promise<DrainReport | null> {
    const cfg = this.engine.config();
    return cfg ? this.engine.drainReport(cfg, []) : null;
  }

  async submit(input: SubmitInput): Promise<Result<{ job: JobDetail }>> {
    const r = this.tx(() => this.engine.submit(input, Date.now()));
    await this.afterChange();
    return r;
  }

  async jobAction(
    jobId: string,
    action: JobAction,
    actor: Actor,
    reason?: string,
  ): Promise<Result<JobDetail>> {
    const r = this.tx(() => this.engine.action(jobId, action, actor, reason, Date.now()));
    await this.afterChange();
    return r;
  }

  async registerNode(input: RegisterNodeBody): Promise<Result<NodeView>> {
    const r = this.tx(() => this.engine.registerNode(input, Date.now()));
    await this.afterChange();
    return r;
  }

  /** A lifecycle report from a run's runner (through ingest). */
  async runEvent(input: RunEventInput): Promise<RunEventOutcome> {
    const r = this.tx(() => this.engine.runEvent(input, Date.now()));
    await this.afterChange();
    return r;
  }

  async getJob(jobId: string): Promise<JobDetail | null> {
    return this.engine.jobDetail(jobId);
  }

  async inspect(): Promise<FleetInspect> {
    return this.engine.inspect();
  }

  /** Whether this fleet scheduled the run (agents may fetch its checkpoints). */
  async hasRun(runId: string): Promise<boolean> {
    return this.store.run(runId) !== null;
  }

  async jobStatuses(): Promise<Array<{ id: string; status: string }>> {
    return this.engine.jobStatuses();
  }

  /** Entries written but not yet in D1 (operations and tests). */
  async outboxSize(): Promise<number> {
    return this.store.outboxSize();
  }

  // fetch: only the agent socket upgrade, forwarded by the Worker after it checked the credential ---------

  override async fetch(request: Request): Promise<Response> {
    const nodeId = request.headers.get("x-sf-node-id");
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket" || !nodeId) {
      return new Response("expected an agent WebSocket upgrade", { status: 426 });
    }
    // One connection per node: a reconnecting agent replaces its old socket.
    for (const old of this.ctx.getWebSockets(`agent:${nodeId}`))
      old.close(4000, "replaced by a newer connection");
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server, [`agent:${nodeId}`]);
    server.serializeAttachment({ nodeId, lastSeen: Date.now() } satisfies SocketAttachment);
    this.store.setTimer(LIVENESS_TIMER, Date.now() + this.livenessMs());
    await this.armAlarm();
    return new Response(null, { status: 101, webSocket: client });
  }

  // agent sockets ---------------------------------------------------------------

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const att = ws.deserializeAttachment() as SocketAttachment;
    ws.serializeAttachment({ ...att, lastSeen: Date.now() } satisfies SocketAttachment);
    if (typeof message !== "string") {
      return this.send(ws, {
        v: 1,
        type: "error",
        id: newId("frm"),
        ref: null,
        code: "MALFORMED_FRAME",
        message: "frames are JSON text",
      });
    }
    if (message === HEARTBEAT_PING) return ws.send(HEARTBEAT_PONG);
    const parsed = parseFrame(AgentFrame, message);
    if (!parsed.ok) {
      return this.send(ws, {
        v: 1,
        type: "error",
        id: newId("frm"),
        ref: parsed.ref,
        code: parsed.code,
        message: parsed.message,
      });
    }
    const frame = parsed.frame;
    const now = Date.now();
    switch (frame.type) {
      case "hello": {
        const welcome = this.tx(() => this.engine.hello(att.nodeId, frame.inventory, frame.journal, now));
        this.send(ws, {
          v: 1,
          type: "welcome",
          id: newId("frm"),
          node_id: att.nodeId,
          fleet_id: this.store.getMeta("fleet_id") ?? "",
          expected: welcome.expected,
          stop: welcome.stop,
          heartbeat_seconds: this.heartbeatMs() / 1000,
        });
        break;
      }
      case "ack":
        this.tx(() => this.engine.ackCommand(att.nodeId, frame.ref, now));
        break;
      case "report": {
        const outcome = this.tx(() =>
          this.engine.runEvent(
            {
              runId: frame.run_id,
              epoch: frame.epoch,
              rank: frame.rank,
              event: frame.event,
              exitCode: frame.exit_code,
              reason: frame.reason,
              infra: frame.infra,
              source: "agent",
            },
            now,
          ),
        );
        if (outcome.kind === "stale_epoch" || outcome.kind === "unknown_run") {
          const code = outcome.kind === "stale_epoch" ? "STALE_EPOCH" : "UNKNOWN_RUN";
          this.send(ws, {
            v: 1,
            type: "error",
            id: newId("frm"),
            ref: frame.id,
            code,
            message: `${code} for ${frame.run_id} epoch ${frame.epoch}`,
          });
        } else {
          this.send(ws, { v: 1, type: "ack", id: newId("frm"), ref: frame.id });
        }
        if (outcome.stopWorkload && frame.event !== "exited" && frame.event !== "stopped") {
          this.send(ws, {
            v: 1,
            type: "stop",
            id: newId("frm"),
            run_id: frame.run_id,
            epoch: frame.epoch,
            rank: frame.rank,
            grace_seconds: 10,
            reason: "this run is over on the control plane",
          });
        }
        break;
      }
      case "error":
        console.warn(`agent ${att.nodeId} refused ${frame.ref ?? "a frame"}: ${frame.code} ${frame.message}`);
        if (frame.ref)
          this.tx(() => this.refusedCommand(att.nodeId, frame.ref!, frame.code, frame.message, now));
        break;
    }
    await this.afterChange();
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.socketGone(ws);
    try {
      ws.close(code === 1005 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.socketGone(ws);
  }

  // alarm -----------------------------------------------------------------------

  override async alarm(): Promise<void> {
    try {
      const now = Date.now();
      for (const t of this.store.dueTimers(now)) {
        this.store.deleteTimer(t.id);
        if (t.id === SCHEDULE_TIMER || t.id === WINDOWS_TIMER) this.tx(() => this.engine.schedule(now));
        if (t.id === LIVENESS_TIMER) this.checkLiveness(now);
        if (t.id === OUTBOX_TIMER) await this.flush(t.attempts);
        if (t.id.startsWith(RETRY_PREFIX)) {
          const jobId = t.id.slice(RETRY_PREFIX.length);
          this.tx(() => this.engine.retryDue(jobId, now));
        }
        if (t.id.startsWith(LOST_PREFIX)) {
          const nodeId = t.id.slice(LOST_PREFIX.length);
          this.tx(() => this.engine.lostGraceOver(nodeId, this.lostGraceMs(), now));
        }
      }
      await this.afterChange();
    } finally {
      await this.armAlarm();
    }
  }

  // helpers ---------------------------------------------------------------------

  /** Runs one decision as a single SQL transaction. */
  private tx<T>(fn: () => T): T {
    return this.ctx.storage.transactionSync(fn);
  }

  /** After any state change: persist to D1, hand agents their commands, point the alarm at what is next. */
  private async afterChange(): Promise<void> {
    await this.flush();
    await this.pushCommands();
    await this.armAlarm();
  }

  private heartbeatMs(): number {
    return (Number(this.env.SF_AGENT_HEARTBEAT_SECONDS) || 10) * 1000;
  }

  /**
   * How often silent sockets are looked for: every three heartbeats, so the object (which the runtime's
   * ping auto-response does not wake) wakes for liveness a third as often as agents ping.
   */
  private livenessMs(): number {
    return 3 * this.heartbeatMs();
  }

  /** How long a lost agent's runs keep RUNNING before they fail as infrastructure failures. */
  private lostGraceMs(): number {
    return (Number(this.env.SF_AGENT_LOST_GRACE_SECONDS) || 300) * 1000;
  }

  private resendMs(): number {
    return (Number(this.env.SF_COMMAND_RESEND_SECONDS) || 5) * 1000;
  }

  private send(ws: WebSocket, frame: ServerFrame): void {
    try {
      ws.send(JSON.stringify(frame));
    } catch (err) {
      console.warn("send to agent failed", err);
    }
  }

  private socketGone(ws: WebSocket): void {
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    if (!att) return;
    const others = this.ctx
      .getWebSockets(`agent:${att.nodeId}`)
      .filter((w) => w !== ws && w.readyState === WebSocket.OPEN);
    if (others.length === 0) this.tx(() => this.engine.nodeLost(att.nodeId, Date.now(), this.lostGraceMs()));
    void this.afterChange();
  }

  /** Closes sockets silent for three heartbeats (no ping answered by the runtime, no frame). */
  private checkLiveness(now: number): void {
    const sockets = this.ctx.getWebSockets();
    for (const ws of sockets) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (!att) continue;
      const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
      if (now - Math.max(pinged, att.lastSeen) > 3 * this.heartbeatMs()) {
        ws.close(4001, "heartbeat timeout");
        this.tx(() => this.engine.nodeLost(att.nodeId, now, this.lostGraceMs()));
      }
    }
    if (this.ctx.getWebSockets().length > 0) this.store.setTimer(LIVENESS_TIMER, now + this.livenessMs());
  }

  /** The agent refused a command: a refused launch fails that rank as an infrastructure failure. */
  private refusedCommand(nodeId: string, ref: string, code: string, message: string, now: number): void {
    const cmd = this.store.command(ref);
    if (!cmd || cmd.node_id !== nodeId) return;
    this.store.ackCommand(cmd.id, now);
    if (cmd.kind !== "launch") return;
    const run = this.store.run(cmd.run_id);
    if (!run) return;
    this.launchFailed(run, cmd.rank, `agent refused the launch: ${code}: ${message}`, now);
  }

  /** A rank that could not be launched: an infrastructure failure of the run (call inside tx). */
  private launchFailed(run: { id: string; epoch: number }, rank: number, reason: string, now: number): void {
    this.engine.runEvent(
      {
        runId: run.id,
        epoch: run.epoch,
        rank,
        event: "launch_failed",
        exitCode: null,
        reason,
        infra: true,
        source: "agent",
      },
      now,
    );
  }

  /** Sends every connected agent its unacknowledged commands (new ones, and old ones due a re-send). */
  private async pushCommands(): Promise<void> {
    const now = Date.now();
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (!att || ws.readyState !== WebSocket.OPEN) continue;
      for (const cmd of this.engine.openCommands(att.nodeId)) {
        if (cmd.sent_at !== null && now - cmd.sent_at < this.resendMs()) continue;
        const frame = await this.commandFrame(cmd, now);
        if (!frame) continue;
        this.send(ws, frame);
        this.tx(() => this.engine.markSent(cmd.id, now));
      }
    }
    if (this.store.hasOpenCommands()) this.store.setTimer(COMMANDS_TIMER, now + this.resendMs());
  }

  private async commandFrame(cmd: CommandRow, now: number): Promise<ServerFrame | null> {
    if (cmd.kind === "stop") {
      const p = JSON.parse(cmd.payload) as { epoch: number; grace_seconds: number; reason: string };
      return {
        v: AGENT_PROTOCOL_VERSION,
        type: "stop",
        id: cmd.id,
        run_id: cmd.run_id,
        rank: cmd.rank,
        epoch: p.epoch,
        grace_seconds: p.grace_seconds,
        reason: p.reason,
      };
    }
    const ctx = this.engine.launchContext(cmd);
    if (!ctx) {
      this.tx(() => this.store.ackCommand(cmd.id, now));
      return null;
    }
    const resolved = this.store.runResume(ctx.run.id) !== undefined;
    const built = await buildLaunchRequest(this.env, this.store, ctx);
    if (!built.ok) {
      this.tx(() => this.launchFailed(ctx.run, cmd.rank, built.reason, now));
      return null;
    }
    // The first build resolved where this run continues from: the ledger (and `sf job status`) learn it.
    if (!resolved) this.tx(() => this.engine.resumeResolved(ctx.run.id, now));
    const request = built.request;
    return { v: AGENT_PROTOCOL_VERSION, type: "launch", id: cmd.id, rank: cmd.rank, request };
  }

  /**
   * Flushes the outbox to D1. Concurrent callers share one flush. A failure leaves the entries in place
   * and arms a retry timer with exponential backoff; the caller's request still succeeds because the
   * state is durable in this object.
   */
  private async flush(attempts = 0): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      try {
        const flushed = await drainOutbox(this.store, this.env.DB);
        // Webhook deliveries the flush created are sent by their owners' dispatchers, never on this path.
        if (flushed > 0) this.ctx.waitUntil(pokeDueWebhooks(this.env));
      } catch (err) {
        const base = Number(this.env.SF_OUTBOX_RETRY_SECONDS) * 1000 || 2000;
        const delay = backoffDelay(attempts, { baseMs: base, capMs: MAX_RETRY_MS, jitter: "none" });
        console.error(`fleet outbox flush failed (attempt ${attempts + 1}); retrying in ${delay} ms`, err);
        this.store.setTimer(OUTBOX_TIMER, Date.now() + delay, attempts + 1);
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private async armAlarm(): Promise<void> {
    const due = this.store.nextTimerDue();
    if (due === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(due);
  }
}
