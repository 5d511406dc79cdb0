/**
 * The Fleet DO's agent WebSockets: a socket accepted (one per node), its frames turned into decisions and
 * answered, a socket gone or silent (its node lost), and an agent's credential renewed over its socket.
 * The object owns one instance and forwards its fetch upgrade, `webSocket*` handlers and timers here.
 */
import { mintAgentCredential, renewDueAt } from "../../contract/agent-credential.js";
import {
  AGENT_PROTOCOL_VERSION,
  AgentFrame,
  HEARTBEAT_PING,
  HEARTBEAT_PONG,
  MAX_FRAME_MESSAGE,
  parseFrame,
} from "../../contract/agent-frames.schema.js";
import { newId } from "../../contract/ids.js";
import { type DoEnv, doSettings } from "../env.js";
import { sendFrame } from "./commands.js";
import type { FleetEvent, FleetResults } from "./decide.js";
import { agentAdmitted } from "./node-admin.js";
import { fleetId } from "./rules/ledger.js";
import { attachment, type SocketAttachment } from "./socket-attachment.js";
import type { FleetStore } from "./store.js";
import { LIVENESS_TIMER, renewTimer } from "./timers.js";

/** Stop frames sent for a report about a run that is over give its workload this long. */
const OVER_STOP_GRACE_SECONDS = 10;
/** How long a rank that already reported success may take to exit by itself before it is stopped. */
const FINISH_SECONDS = 30;

export class AgentSockets {
  constructor(
    private readonly store: FleetStore,
    private readonly env: DoEnv,
    private readonly ctx: DurableObjectState,
    /** The object's decision in one SQL transaction (FleetDO.decide). */
    private readonly decide: <E extends FleetEvent>(event: E) => FleetResults[E["type"]],
    /** The object's step after any state change (FleetDO.afterChange). */
    private readonly afterChange: () => Promise<void>,
  ) {}

  /**
   * Accepts an admitted agent's socket (the caller checked the upgrade and the node): it replaces the
   * node's old one, and the liveness check and the credential's renewal are armed. Returns the client end.
   */
  accept(nodeId: string, expiresHeader: string | null): WebSocket {
    const exp = Number(expiresHeader);
    const credentialExpiresAt = Number.isFinite(exp) && exp > 0 ? exp : null;
    // One connection per node: a reconnecting agent replaces its old socket.
    for (const old of this.ctx.getWebSockets(`agent:${nodeId}`))
      old.close(4000, "replaced by a newer connection");
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server, [`agent:${nodeId}`]);
    server.serializeAttachment({
      nodeId,
      lastSeen: Date.now(),
      credentialExpiresAt,
    } satisfies SocketAttachment);
    this.store.setTimer(LIVENESS_TIMER, Date.now() + this.livenessMs());
    this.armRenewal(nodeId, credentialExpiresAt);
    return client;
  }

  /** One frame from an agent: decided, answered on its socket, then the object's after-change step. */
  async message(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const att = attachment(ws);
    if (!att) return ws.close(4002, "unknown connection");
    ws.serializeAttachment({ ...att, lastSeen: Date.now() } satisfies SocketAttachment);
    if (typeof message !== "string")
      return this.sendError(ws, null, "MALFORMED_FRAME", "frames are JSON text");
    if (message === HEARTBEAT_PING) return ws.send(HEARTBEAT_PONG);
    const parsed = parseFrame(AgentFrame, message);
    if (!parsed.ok) return this.sendError(ws, parsed.ref, parsed.code, parsed.message);
    const frame = parsed.frame;
    switch (frame.type) {
      case "hello": {
        const welcome = this.decide({
          type: "hello",
          nodeId: att.nodeId,
          inventory: frame.inventory,
          journal: frame.journal,
          orphans: frame.orphans,
        });
        sendFrame(ws, {
          v: AGENT_PROTOCOL_VERSION,
          type: "welcome",
          id: newId("frm"),
          node_id: att.nodeId,
          fleet_id: this.store.meta("fleet_id") ?? "",
          expected: welcome.expected,
          stop: welcome.stop,
          heartbeat_seconds: doSettings(this.env).heartbeatMs / 1000,
        });
        break;
      }
      case "inventory":
        this.decide({ type: "inventory", nodeId: att.nodeId, inventory: frame.inventory });
        sendFrame(ws, { v: AGENT_PROTOCOL_VERSION, type: "ack", id: newId("frm"), ref: frame.id });
        break;
      case "ack":
        this.decide({ type: "ack", nodeId: att.nodeId, commandId: frame.ref });
        break;
      case "report": {
        const outcome = this.decide({
          type: "run_event",
          input: {
            runId: frame.run_id,
            epoch: frame.epoch,
            rank: frame.rank,
            event: frame.event,
            exitCode: frame.exit_code,
            reason: frame.reason,
            infra: frame.infra,
            source: "agent",
            agentId: att.nodeId,
          },
        });
        if (outcome.kind === "stale_epoch" || outcome.kind === "unknown_run") {
          const code = outcome.kind === "stale_epoch" ? "STALE_EPOCH" : "UNKNOWN_RUN";
          this.sendError(ws, frame.id, code, `${code} for ${frame.run_id} epoch ${frame.epoch}`);
        } else {
          sendFrame(ws, { v: AGENT_PROTOCOL_VERSION, type: "ack", id: newId("frm"), ref: frame.id });
        }
        if (outcome.stopWorkload && frame.event !== "exited" && frame.event !== "stopped") {
          sendFrame(ws, {
            v: AGENT_PROTOCOL_VERSION,
            type: "stop",
            id: newId("frm"),
            run_id: frame.run_id,
            epoch: frame.epoch,
            rank: frame.rank,
            grace_seconds: OVER_STOP_GRACE_SECONDS,
            ...("finishing" in outcome && outcome.finishing ? { finish_seconds: FINISH_SECONDS } : {}),
            reason: "this run is over on the control plane",
          });
        }
        break;
      }
      case "error":
        console.warn(`agent ${att.nodeId} refused ${frame.ref ?? "a frame"}: ${frame.code} ${frame.message}`);
        if (frame.ref) {
          this.decide({
            type: "refused",
            nodeId: att.nodeId,
            commandId: frame.ref,
            code: frame.code,
            message: frame.message,
          });
        }
        break;
    }
    await this.afterChange();
  }

  /** A socket closed or failed: its node is lost unless another socket of it is still open. */
  gone(ws: WebSocket): void {
    const att = attachment(ws);
    if (!att) return;
    const others = this.ctx
      .getWebSockets(`agent:${att.nodeId}`)
      .filter((w) => w !== ws && w.readyState === WebSocket.OPEN);
    if (others.length === 0) this.decide({ type: "node_lost", nodeId: att.nodeId });
    void this.afterChange();
  }

  /** Closes an agent's sockets (an admin revoked or removed its node); its credential is not renewed. */
  disconnect(nodeId: string, reason: string): void {
    this.store.deleteTimer(renewTimer(nodeId));
    for (const ws of this.ctx.getWebSockets(`agent:${nodeId}`)) ws.close(4003, reason);
  }

  /** Nodes with an open socket now. */
  connected(): number {
    const open = this.ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN);
    return new Set(open.map((ws) => attachment(ws)?.nodeId).filter((id) => id !== undefined)).size;
  }

  /**
   * How often silent sockets are looked for: every three heartbeats, so the object (which the runtime's
   * ping auto-response does not wake) wakes for liveness a third as often as agents ping.
   */
  livenessMs(): number {
    return 3 * doSettings(this.env).heartbeatMs;
  }

  /** Closes sockets silent for three heartbeats (no ping answered by the runtime, no frame). */
  checkLiveness(now: number): void {
    for (const ws of this.ctx.getWebSockets()) {
      const att = attachment(ws);
      if (!att) continue;
      const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
      if (now - Math.max(pinged, att.lastSeen) > this.livenessMs()) {
        ws.close(4001, "heartbeat timeout");
        this.decide({ type: "node_lost", nodeId: att.nodeId });
      }
    }
    if (this.ctx.getWebSockets().length > 0) this.store.setTimer(LIVENESS_TIMER, now + this.livenessMs());
  }

  /**
   * Sends a connected agent a new credential over its socket (it stores it and dials with it from then
   * on); the socket stays up. An agent not connected now is renewed when it next connects, if its
   * credential has not expired by then.
   */
  async renewCredential(nodeId: string): Promise<void> {
    const ws = this.ctx.getWebSockets(`agent:${nodeId}`).find((s) => s.readyState === WebSocket.OPEN);
    const att = ws ? attachment(ws) : null;
    const fleet = fleetId(this.store);
    const settings = doSettings(this.env);
    if (!ws || !att || !fleet || !settings.jwtSecret || !agentAdmitted(this.store, nodeId)) return;
    const ttl = Math.round(settings.credentialMs / 1000);
    const { credential, expiresAt } = await mintAgentCredential(settings.jwtSecret, nodeId, fleet, ttl);
    sendFrame(ws, {
      v: AGENT_PROTOCOL_VERSION,
      type: "credential",
      id: newId("frm"),
      credential,
      expires_at: new Date(expiresAt).toISOString(),
    });
    ws.serializeAttachment({ ...att, credentialExpiresAt: expiresAt } satisfies SocketAttachment);
    this.armRenewal(nodeId, expiresAt);
  }

  private sendError(ws: WebSocket, ref: string | null, code: string, message: string): void {
    // Messages quote the frame (its run id has no length limit): cut to what an error frame may carry.
    const text = message.slice(0, MAX_FRAME_MESSAGE);
    sendFrame(ws, { v: AGENT_PROTOCOL_VERSION, type: "error", id: newId("frm"), ref, code, message: text });
  }

  /** The renewal of an agent's credential: due once a third of its lifetime is left (now, if it has none). */
  private armRenewal(nodeId: string, expiresAt: number | null): void {
    const due = renewDueAt(expiresAt, doSettings(this.env).credentialMs);
    this.store.deleteTimer(renewTimer(nodeId));
    this.store.setTimer(renewTimer(nodeId), Math.max(Date.now(), due));
  }
}
