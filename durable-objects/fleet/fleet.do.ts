/**
 * Fleet Durable Object: one per fleet, the single writer of its scheduling state, and the end of every
 * agent's WebSocket. This class is an adapter: an RPC call, a socket frame or a timer becomes one
 * `FleetEvent`, decided by the pure rules (fleet/decide.ts) inside one `transactionSync` in which the
 * store applies their effects; afterwards it flushes the outbox to D1 and sends agents their pending
 * commands. Its agent sockets (frames, liveness, credential renewal) are fleet/agent-sockets.ts. Order:
 * constructor → RPC → fetch → webSocket* → alarm → helpers.
 */
import { DurableObject } from "cloudflare:workers";
import { HEARTBEAT_PING, HEARTBEAT_PONG } from "../../contract/agent-frames.schema.js";
import type { Quota, RegisterNodeBody } from "../../contract/api.schema.js";
import type { Result } from "../../contract/errors.js";
import type {
  Actor,
  DrainReport,
  DryRunJob,
  FleetConfig,
  FleetInspect,
  JobAction,
  JobDetail,
  NodeView,
  RunEventInput,
  RunEventOutcome,
  RunView,
  SubmitInput,
} from "../../contract/fleet.schema.js";
import { newId } from "../../contract/ids.js";
import type { StopNotice } from "../../contract/ingest.schema.js";
import type { PriorityClass } from "../../contract/priority-classes.js";
import type { FleetBudgets, FleetTeams } from "../../contract/teams.js";
import { type DoEnv, doSettings } from "../env.js";
import { fromWire, type Settled, serveWire, type Wire } from "../group-commit.js";
import { type Rpc, stubOf } from "../rpc.js";
import type { FleetWatch, Watch } from "../run/monitor.js";
import type { ConfirmInput, FleetAdmissions, JobVersions } from "../user/types.js";
import { AgentSockets } from "./agent-sockets.js";
import { CommandSender } from "./commands.js";
import { currentDrainReport, decide, type FleetEvent, type FleetResults } from "./decide.js";
import { Diagnoser } from "./diagnoser.js";
import { DRY_RUN, dryRunAnswer } from "./dry-run.js";
import { OutboxFlusher } from "./flusher.js";
import { noticeKey, priorRunKey } from "./keys.js";
import { agentAdmitted } from "./node-admin.js";
import { Rerouter } from "./rerouter.js";
import { type AnomalyOutcome, type AnomalyReport, runWatch } from "./rules/anomaly.js";
import { movedTo } from "./rules/handoff-state.js";
import type { NodeAction, NodeAdminReport } from "./rules/nodes.js";
import { type MoveAnswer, type MoveOffer, priorRuns } from "./rules/reroute.js";
import { type FleetStats, fleetStats } from "./stats-store.js";
import { FleetStore } from "./store.js";
import { COMMANDS_TIMER, LIVENESS_TIMER, OUTBOX_TIMER, timerTarget } from "./timers.js";
import { UnconfirmedAdmissions } from "./unconfirmed.js";
import { inspect, jobDetail, runView } from "./views.js";

export class FleetDO extends DurableObject<DoEnv> implements FleetAdmissions, FleetWatch {
  private readonly store: FleetStore;
  private readonly outbox: OutboxFlusher;
  private readonly commands: CommandSender;
  private readonly unconfirmed: UnconfirmedAdmissions;
  private readonly sockets: AgentSockets;
  private readonly rerouter: Rerouter;
  private readonly diagnoser: Diagnoser;
  /** The alarm as this instance last set it (undefined: not known; the runtime clears it when it fires). */
  private alarmAt: number | null | undefined = undefined;

  constructor(ctx: DurableObjectState, env: DoEnv) {
    super(ctx, env);
    this.store = new FleetStore(ctx.storage.sql);
    this.outbox = new OutboxFlusher(this.store, env, ctx, () => this.armAlarm());
    this.commands = new CommandSender(this.store, env, ctx, (event) => this.decide(event));
    this.unconfirmed = new UnconfirmedAdmissions(
      this.store,
      env,
      (event) => this.decide(event),
      () => this.afterChange(),
    );
    this.sockets = new AgentSockets(
      this.store,
      env,
      ctx,
      (event) => this.decide(event),
      () => this.afterChange(),
    );
    this.rerouter = new Rerouter(this.store, env, (event) => this.decide(event));
    this.diagnoser = new Diagnoser(this.store, env, (event) => this.decide(event));
    // Heartbeats are answered by the runtime without waking this object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT_PING, HEARTBEAT_PONG));
    void ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
      // After a restart, anything written but not yet flushed or sent is picked up by the alarm.
      const now = Date.now();
      if (!this.store.outboxEmpty()) this.store.setTimer(OUTBOX_TIMER, now);
      if (this.store.hasOpenCommands()) this.store.setTimer(COMMANDS_TIMER, now);
      if (ctx.getWebSockets().length > 0)
        this.store.setTimer(LIVENESS_TIMER, now + this.sockets.livenessMs());
      if (this.store.unconfirmedJobs().size > 0) this.unconfirmed.armSettle(now);
      await this.armAlarm();
    });
  }

  // RPC -------------------------------------------------------------------------

  async configure(cfg: FleetConfig): Promise<void> {
    this.decide({ type: "configure", config: cfg });
    await this.afterAction();
  }

  async setQuota(userId: string, quota: Quota): Promise<void> {
    this.decide({ type: "set_quota", userId, quota });
    await this.afterAction();
  }

  /** The priority classes as an admin left them (the whole list): the next decision uses them. */
  async setPriorityClasses(classes: PriorityClass[]): Promise<void> {
    this.decide({ type: "set_priority_classes", classes });
    await this.afterAction();
  }

  /** The teams, members and this fleet's team quotas as an admin left them: the next decision uses them. */
  async setTeams(teams: FleetTeams): Promise<void> {
    this.decide({ type: "set_teams", teams });
    await this.afterAction();
  }

  /** The teams whose GPU-hour budget is spent now (the Worker meters them): the next decision uses it. */
  async setBudgets(budgets: FleetBudgets): Promise<void> {
    this.decide({ type: "set_budgets", budgets });
    await this.afterAction();
  }

  /**
   * What queueing `inputs` would do now (POST /v1/jobs?dry_run=1): the submit is decided as any, in a
   * transaction that is then rolled back, so nothing is queued, stopped or written, and no agent hears
   * of it. Refusals are those of a real submit.
   */
  async dryRun(inputs: SubmitInput[]): Promise<Result<{ jobs: DryRunJob[] }>> {
    const steady = this.store.steady;
    let answer: Result<{ jobs: DryRunJob[] }> | null = null;
    try {
      this.store.transaction(this.ctx.storage, () => {
        answer = dryRunAnswer(this.store, this.decideNow({ type: "submit", inputs }));
        throw DRY_RUN;
      });
    } catch (err) {
      if (err !== DRY_RUN) throw err;
    } finally {
      // The pass that ran was undone: what the fleet knew of its own steadiness before still holds.
      this.store.steady = steady;
    }
    return answer!;
  }

  /** Run `runId`'s runner registered a stored checkpoint (POST /v1/ingest/artifact, kind checkpoint). */
  async checkpointed(runId: string, step: number | null): Promise<void> {
    this.decide({ type: "checkpointed", runId, step });
    await this.afterChange();
  }

  /** What run `runId`'s job asks of its live watch (its Run DO asks once: run/monitor.ts), or null. */
  async watchOf(runId: string): Promise<Watch | null> {
    return runWatch(this.store, runId);
  }

  /** A running run's live anomaly, from its Run DO (rules/anomaly.ts): recorded once, and acted on. */
  async runAnomaly(runId: string, anomaly: AnomalyReport): Promise<AnomalyOutcome> {
    const outcome = this.decide({ type: "anomaly", runId, anomaly });
    await this.afterChange();
    return outcome;
  }

  /** Why and by when run `runId` is being stopped (GET /v1/ingest/notice), or null: nobody asked it to. */
  async stopNotice(runId: string): Promise<StopNotice | null> {
    const raw = this.store.meta(noticeKey(runId));
    return raw ? (JSON.parse(raw) as StopNotice) : null;
  }

  /** Maintenance drain on (idempotent) or off; the report lists what it paused and what blocks it. */
  async setDrain(draining: boolean, note: string | null): Promise<DrainReport> {
    const report = this.decide(draining ? { type: "drain", note } : { type: "undrain" });
    await this.afterAction();
    return report;
  }

  /** The drain's current report (blockers shrink as paused runs confirm their stop). */
  async drainStatus(): Promise<DrainReport | null> {
    return currentDrainReport(this.store);
  }

  /**
   * Queues admitted jobs: each request's (one job, or a job array's, all or none) decided on its own, in
   * order. A batch of requests (group commit, durable-objects/group-commit.ts) is decided in this turn, so
   * they share one storage commit and one flush; one answer each. The answers leave once the jobs are
   * committed here (the output gate); D1 hears of them after it, in a batch shared with other changes.
   */
  async submitBatch(
    batch: Wire<SubmitInput[][]>,
    confirms?: Wire<ConfirmInput[]>,
  ): Promise<Wire<Settled<Result<{ jobs: JobDetail[] }>>[]>> {
    // Confirmations of earlier admissions ride along with the next call to this fleet (submit.ts).
    if (confirms) this.unconfirmed.confirm(fromWire(confirms));
    let unconfirmed = false;
    const out = await serveWire(batch, (inputs) => {
      unconfirmed ||= inputs.some((i) => i.unconfirmed);
      return this.decide({ type: "submit", inputs });
    });
    if (unconfirmed) {
      this.unconfirmed.queued(Date.now());
    }
    await this.afterChange();
    return out;
  }

  /** Confirmations no call carried in time (submit.ts sends them alone after a moment). */
  async confirmAdmissions(confirms: Wire<ConfirmInput[]>): Promise<void> {
    this.unconfirmed.confirm(fromWire(confirms));
    await this.afterChange();
  }

  /** Jobs queued unconfirmed whose reservation was refused: removed as if never queued. */
  async withdrawAdmissions(jobIds: string[]): Promise<string[]> {
    const r = this.decide({ type: "withdraw_admissions", jobIds });
    await this.afterChange();
    return r;
  }

  /**
   * The user's object asks about reservations it never had a report of: each job queued here answers with
   * its status and version, and a job id never queued answers null and is never queued from now on.
   */
  async settleAdmissions(jobIds: string[], quota?: Quota): Promise<JobVersions> {
    const r = this.decide({ type: "settle_admissions", jobIds, ...(quota ? { quota } : {}) });
    await this.afterChange();
    return r;
  }

  /** Of the jobs named with a version, those this fleet holds at a newer one: their status and version. */
  async jobsMoved(known: Array<[jobId: string, version: number]>): Promise<JobVersions> {
    return Object.fromEntries(this.store.jobsMoved(known));
  }

  /**
   * Read-your-writes: flushes what is waiting for D1 now. True once D1 holds every change made here
   * before this call; false when D1 refused (the caller answers 503 rather than a stale read).
   */
  async projected(confirm?: ConfirmInput): Promise<boolean> {
    if (confirm) {
      // A reader's own admissions, confirmed first: its user's object said they are reserved. Nobody
      // else's unconfirmed admissions are this reader's to wait for (their users heard of them first).
      if (confirm.jobIds.length > 0) {
        this.unconfirmed.confirm([confirm]);
        await this.afterChange();
      }
    } else {
      // Every change made before this call: admissions queued unconfirmed a moment ago included, whose
      // confirmations are on their way (within milliseconds). Only those: under load new ones keep
      // coming. Older ones are stuck (their submit's isolate went away): the settle timer resolves them.
      await this.unconfirmed.confirmedSoFar();
    }
    return this.outbox.projected();
  }

  async jobAction(
    jobId: string,
    action: JobAction,
    actor: Actor,
    reason?: string,
  ): Promise<Result<JobDetail>> {
    // A job that moved to another fleet (re-routing) is acted on there: D1 may name this fleet a moment.
    const to = !this.store.jobExists(jobId) ? movedTo(this.store, jobId) : null;
    if (to) return this.other(to).jobAction(jobId, action, actor, reason);
    const r = this.decide({ type: "action", jobId, action, actor, reason });
    await this.afterAction();
    return r;
  }

  /**
   * An admin cordons, uncordons, drains, revokes or removes a node. A revoked or removed agent's socket
   * is closed at once (and it is refused from then on, see fetch).
   */
  async administerNode(
    node: string,
    action: NodeAction,
    actor: string,
    note: string | null,
  ): Promise<Result<NodeAdminReport>> {
    const r = this.decide({ type: "node_admin", node, action, actor, note });
    if (r.ok) {
      for (const id of r.value.disconnect) this.sockets.disconnect(id, `node ${action}d by an admin`);
    }
    await this.afterAction();
    return r;
  }

  /** Whether the agent of `nodeId` may use agent routes: enrolled here and neither revoked nor removed. */
  async agentAdmitted(nodeId: string): Promise<boolean> {
    return agentAdmitted(this.store, nodeId);
  }

  async registerNode(input: RegisterNodeBody): Promise<Result<NodeView>> {
    const r = this.decide({ type: "register_node", input });
    await this.afterAction();
    return r;
  }

  /** A lifecycle report from a run's runner (through ingest). */
  async runEvent(input: RunEventInput): Promise<RunEventOutcome> {
    const r = this.decide({ type: "run_event", input });
    await this.afterChange();
    return r;
  }

  /** A job as this fleet holds it; one that moved to another fleet (re-routing) is read there. */
  async getJob(jobId: string): Promise<JobDetail | null> {
    const job = jobDetail(this.store, jobId);
    if (job) return job;
    const to = movedTo(this.store, jobId);
    return to ? this.other(to).getJob(jobId) : null;
  }

  /**
   * Another fleet offers one of its waiting jobs (re-routing, rules/reroute.ts): queued here under the
   * same id, or refused with why. Repeating an offer gets the same answer.
   */
  async acceptMove(offer: MoveOffer): Promise<MoveAnswer> {
    const r = this.decide({ type: "accept_move", offer });
    await this.afterChange();
    return r;
  }

  async inspect(): Promise<FleetInspect> {
    return inspect(this.store);
  }

  /** One run as the Worker shows it (the rendezvous checks its epoch, world and whether it is over). */
  async run(runId: string): Promise<RunView | null> {
    const r = this.store.run(runId);
    return r ? runView(r, this.store.runResume(r.id)) : null;
  }

  /**
   * What a run's workload may fetch itself (pull mode: a Slurm step or a pod that cannot see the agent's
   * disk): its job's capsule files, and the runs of its job (their checkpoints). Null: no such run.
   */
  async pullRights(runId: string): Promise<{ jobId: string; capsule: string[]; runs: string[] } | null> {
    const run = this.store.run(runId);
    const job = run ? this.store.job(run.job_id) : null;
    if (!run || !job) return null;
    const capsule = job.capsule ? Object.values(JSON.parse(job.capsule) as Record<string, string>) : [];
    const runs = [...priorRuns(this.store, job.id), ...this.store.runsOfJob(job.id)].map((r) => r.id);
    return { jobId: job.id, capsule, runs };
  }

  /**
   * Whether this fleet scheduled the run, or the run is an earlier one of a job that moved here (agents
   * may fetch its checkpoints: the job resumes from them).
   */
  async hasRun(runId: string): Promise<boolean> {
    return this.store.run(runId) !== null || this.store.meta(priorRunKey(runId)) !== null;
  }

  async jobStatuses(): Promise<Array<{ id: string; status: string }>> {
    return this.store.jobStatuses();
  }

  /** Entries written but not yet in D1 (operations and tests). */
  async outboxSize(): Promise<number> {
    return this.store.outboxSize();
  }

  /** Read-only figures for GET /v1/admin/metrics: jobs by status, agents, GPUs, the outbox's lag. */
  async stats(): Promise<FleetStats> {
    return fleetStats(this.store.sql, this.sockets.connected(), Date.now());
  }

  // fetch: only the agent socket upgrade, forwarded by the Worker after it checked the credential ---------

  override async fetch(request: Request): Promise<Response> {
    const nodeId = request.headers.get("x-sf-node-id");
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket" || !nodeId) {
      return new Response("expected an agent WebSocket upgrade", { status: 426 });
    }
    if (!agentAdmitted(this.store, nodeId)) {
      const error = {
        code: "NODE_REVOKED",
        message: `an admin revoked or removed node ${nodeId}; enroll the machine again with a new token from \`sf admin fleet enroll-token\``,
      };
      return Response.json({ error }, { status: 401 });
    }
    const client = this.sockets.accept(nodeId, request.headers.get("x-sf-credential-expires-at"));
    await this.armAlarm();
    return new Response(null, { status: 101, webSocket: client });
  }

  // agent sockets ---------------------------------------------------------------

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.sockets.message(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.sockets.gone(ws);
    try {
      ws.close(code === 1005 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.sockets.gone(ws);
  }

  // alarm -----------------------------------------------------------------------

  override async alarm(): Promise<void> {
    this.alarmAt = undefined;
    try {
      const now = Date.now();
      for (const t of this.store.dueTimers(now)) {
        this.store.deleteTimer(t.id);
        const target = timerTarget(t.id);
        if (target.kind === "liveness") this.sockets.checkLiveness(now);
        else if (target.kind === "renew") await this.sockets.renewCredential(target.nodeId);
        else if (target.kind === "outbox") await this.outbox.flush(t.attempts);
        else if (target.kind === "unconfirmed") await this.unconfirmed.settle(now);
        else if (target.kind === "reroute") await this.rerouter.check(now);
        else if (target.kind === "placement") await this.rerouter.timedOut(target.jobId);
        else if (target.kind === "diagnose") await this.diagnoser.diagnose(target.runId);
        else if (target.kind !== "commands" && target.kind !== "unknown")
          this.decide({ type: "timer", id: t.id });
        // `commands`: afterChange below sends what is due a re-send.
      }
      await this.afterChange();
    } finally {
      await this.armAlarm();
    }
  }

  // helpers ---------------------------------------------------------------------

  /** Another fleet's object (a job that moved there is read and acted on there). */
  private other(fleetId: string): Rpc<FleetDO> {
    return stubOf<FleetDO>(this.env.FLEET, fleetId);
  }

  /** Decides one event in one SQL transaction: the store applies the rules' effects as they come. */
  private decide<E extends FleetEvent>(event: E): FleetResults[E["type"]] {
    return this.store.transaction(this.ctx.storage, () => this.decideNow(event));
  }

  /** One decision inside the caller's transaction. */
  private decideNow<E extends FleetEvent>(event: E): FleetResults[E["type"]] {
    const settings = doSettings(this.env);
    return decide(this.store, event, {
      now: Date.now(),
      newId,
      settings: {
        retryBaseMs: settings.retryBackoffMs,
        lostGraceMs: settings.lostGraceMs,
        diagnosisSettleMs: settings.diagnosisSettleMs,
      },
    }).result;
  }

  /**
   * After any state change: hand agents their commands, point the alarm at what is next, and have the
   * change reach D1 and the users' objects soon, off the caller's path (fleet/flusher.ts).
   */
  private async afterChange(): Promise<void> {
    this.outbox.afterChange();
    await this.commands.push();
    await this.armAlarm();
  }

  /**
   * After a user's or an admin's action (a stop, a drain, a node registered or administered, the fleet's
   * configuration or a quota): as afterChange, and the answer waits for D1 to hold it, as every change did
   * before admissions moved off D1; the caller's next read of any route sees it. A flush D1 refuses still
   * answers (the change is durable here, and the retry carries it).
   */
  private async afterAction(): Promise<void> {
    await this.afterChange();
    await this.outbox.projected();
  }

  /** Points the alarm at the earliest timer; a call that would not move it does not touch it. */
  private async armAlarm(): Promise<void> {
    const due = this.store.nextTimerDue();
    if (due === this.alarmAt) return;
    this.alarmAt = due;
    if (due === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(due);
  }
}
