/**
 * Commands to agents: every connected agent is sent its unacknowledged commands (launch, stop) as frames,
 * a launch built from its run's context, the secrets it names and the checkpoint it resumes from. The
 * Fleet DO owns one instance and calls `push` after every change; what sending decides (a command sent, a
 * launch that cannot be built, a resume resolved) goes through the object's own `decide`.
 */
import { AGENT_PROTOCOL_VERSION, type ServerFrame } from "../../contract/agent-frames.schema.js";
import type { ResumeFrom } from "../../contract/launch-request.schema.js";
import { type DoEnv, doSettings } from "../env.js";
import type { FleetEvent, FleetResults } from "./decide.js";
import { buildLaunchRequest, findResume, openLaunchSecrets } from "./launch.js";
import type { CommandRow } from "./rows.js";
import { launchContext } from "./rules/agents.js";
import { priorRuns } from "./rules/reroute.js";
import type { FleetStore } from "./store.js";
import { COMMANDS_TIMER } from "./timers.js";

/** Sends one frame on an agent's socket; a socket that cannot take it is the liveness check's to notice. */
export function sendFrame(ws: WebSocket, frame: ServerFrame): void {
  try {
    ws.send(JSON.stringify(frame));
  } catch (err) {
    console.warn("send to agent failed", err);
  }
}

export class CommandSender {
  constructor(
    private readonly store: FleetStore,
    private readonly env: DoEnv,
    private readonly ctx: DurableObjectState,
    /** The object's decision in one SQL transaction (FleetDO.decide). */
    private readonly decide: <E extends FleetEvent>(event: E) => FleetResults[E["type"]],
  ) {}

  /**
   * Sends every connected agent its unacknowledged commands (new ones, and old ones due a re-send). Driven
   * by the open commands, not by the sockets: a fleet of a thousand idle agents costs nothing here.
   */
  async push(): Promise<void> {
    const nodes = this.store.openCommandNodes();
    if (nodes.length === 0) return;
    const now = Date.now();
    const resendMs = doSettings(this.env).commandResendMs;
    // A job whose admission is not confirmed yet keeps its GPUs but starts nothing: its launch waits.
    const unconfirmed = this.store.unconfirmedJobs();
    for (const nodeId of nodes) {
      // A cluster agent carries the commands of every node it fronts.
      const agentId = this.store.node(nodeId)?.agent_id ?? nodeId;
      const ws = this.ctx.getWebSockets(`agent:${agentId}`).find((s) => s.readyState === WebSocket.OPEN);
      if (!ws) continue;
      for (const cmd of this.store.openCommands(nodeId)) {
        if (cmd.sent_at !== null && now - cmd.sent_at < resendMs) continue;
        if (unconfirmed.size > 0 && unconfirmed.has(this.store.run(cmd.run_id)?.job_id ?? "")) continue;
        const frame = await this.frame(cmd);
        if (!frame) continue;
        sendFrame(ws, frame);
        this.decide({ type: "sent", commandId: cmd.id });
      }
    }
    if (this.store.hasOpenCommands()) this.store.setTimer(COMMANDS_TIMER, now + resendMs);
  }

  private async frame(cmd: CommandRow): Promise<ServerFrame | null> {
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
    const ctx = launchContext(this.store, cmd.run_id);
    if (!ctx) {
      this.decide({ type: "ack", nodeId: cmd.node_id, commandId: cmd.id });
      return null;
    }
    const settings = doSettings(this.env);
    const secrets = await openLaunchSecrets(this.env, settings, ctx);
    if (!secrets.ok) {
      this.decide({ type: "launch_failed", runId: ctx.run.id, rank: cmd.rank, reason: secrets.reason });
      return null;
    }
    const built = await buildLaunchRequest(settings, ctx, await this.resumeOf(ctx.run), secrets.secrets);
    if (!built.ok) {
      this.decide({ type: "launch_failed", runId: ctx.run.id, rank: cmd.rank, reason: built.reason });
      return null;
    }
    return { v: AGENT_PROTOCOL_VERSION, type: "launch", id: cmd.id, rank: cmd.rank, request: built.request };
  }

  /**
   * Where a run continues from: resolved once (asking the Run DOs of the job's earlier runs), then kept,
   * so every rank and re-sent launch carry the same checkpoint and the ledger learns it.
   */
  private async resumeOf(run: { id: string; job_id: string; attempt: number }): Promise<ResumeFrom | null> {
    let known = this.store.runResume(run.id);
    if (known === undefined) {
      // Its runs here, and those it had in other fleets before it moved here (re-routing).
      const earlier = [...priorRuns(this.store, run.job_id), ...this.store.runsOfJob(run.job_id)].filter(
        (r) => r.attempt < run.attempt,
      );
      const found = await findResume(this.env, earlier);
      // Two ranks may resolve concurrently (the await above lets other events in): the first one wins.
      this.decide({ type: "resume_resolved", runId: run.id, body: JSON.stringify(found) });
      known = this.store.runResume(run.id);
    }
    return JSON.parse(known ?? "null") as ResumeFrom | null;
  }
}
