/**
 * The Fleet engine's one entry point: `decide(ledger, event, context)`. Every event the Fleet DO
 * handles — an RPC call, an agent frame, a timer — is one `FleetEvent`; the rules (fleet/rules/*) read
 * the ledger and change it only through effects, which the ledger applies as they are emitted (inside
 * the DO's single SQL transaction; in memory in tests). The decision returns the event's result and the
 * list of effects, in order. No I/O: time and ids come from the context.
 */
import type { Inventory, JournalEntry, Orphan } from "../../contract/agent-frames.schema.js";
import type { Quota, RegisterNodeBody } from "../../contract/api.schema.js";
import type { RunVerdict } from "../../contract/diagnosis-policy.js";
import type { Result } from "../../contract/errors.js";
import type {
  Actor,
  DrainReport,
  FleetConfig,
  JobAction,
  JobDetail,
  NodeView,
  RunEventInput,
  RunEventOutcome,
  SubmitInput,
} from "../../contract/fleet.schema.js";
import type { PlacementCandidate } from "../../contract/placement.js";
import type { PriorityClass } from "../../contract/priority-classes.js";
import type { FleetBudgets, FleetTeams } from "../../contract/teams.js";
import {
  ackCommand,
  hello,
  inventory,
  launchFailed,
  lostGraceOver,
  nodeLost,
  refusedCommand,
  type Welcome,
} from "./rules/agents.js";
import { type AnomalyOutcome, type AnomalyReport, runAnomaly } from "./rules/anomaly.js";
import { setBudgets } from "./rules/budgets.js";
import { setPriorityClasses } from "./rules/classes.js";
import { applyDiagnosis, diagnoseFromFacts } from "./rules/diagnosis.js";
import { runEvent } from "./rules/events.js";
import type { Handoff } from "./rules/handoff-state.js";
import { config, resumeResolved } from "./rules/ledger.js";
import { drain, drainReport, undrain } from "./rules/lifecycle.js";
import { type NodeAction, type NodeAdminReport, nodeAction } from "./rules/nodes.js";
import { checkpointed, holdExpired } from "./rules/preempt.js";
import {
  acceptMove,
  handoffDone,
  handoffOut,
  type MoveAnswer,
  type MoveOffer,
  placementTimedOut,
} from "./rules/reroute.js";
import { retryDue } from "./rules/retry.js";
import {
  action,
  confirmAdmissions,
  maxRuntimeOver,
  settleAdmissions,
  submit,
  withdrawAdmissions,
} from "./rules/runs.js";
import { configure, registerNode, schedule, scheduleSubmitted, setQuota } from "./rules/schedule.js";
import { setTeams } from "./rules/teams.js";
import type { FleetEffect, Ledger } from "./state.js";
import { timerTarget } from "./timers.js";
import { type DecideContext, Tx } from "./tx.js";

export type FleetEvent =
  | { type: "configure"; config: FleetConfig }
  | { type: "set_quota"; userId: string; quota: Quota }
  /** The priority classes changed (an admin set one): the next decision uses them. */
  | { type: "set_priority_classes"; classes: PriorityClass[] }
  /** The teams changed (an admin set a member or a quota): the next decision uses them. */
  | { type: "set_teams"; teams: FleetTeams }
  /** The Worker metered the team budgets: the teams whose budget is spent now. */
  | { type: "set_budgets"; budgets: FleetBudgets }
  | { type: "drain"; note: string | null }
  | { type: "undrain" }
  /** One admitted job, or a job array's (queued all or none). */
  | { type: "submit"; inputs: SubmitInput[] }
  /**
   * The user's object asks about reservations it has no report of (rules/runs.ts settleAdmissions); with
   * its quota, a job still unconfirmed here is confirmed (the reservation it asks about exists).
   */
  | { type: "settle_admissions"; jobIds: string[]; quota?: Quota }
  /** Jobs queued unconfirmed whose reservation was taken (rules/runs.ts confirmAdmissions). */
  | { type: "confirm_admissions"; jobIds: string[]; quota: Quota }
  /** Jobs queued unconfirmed whose reservation was refused or never made (rules/runs.ts withdrawAdmissions). */
  | { type: "withdraw_admissions"; jobIds: string[] }
  | { type: "action"; jobId: string; action: JobAction; actor: Actor; reason?: string }
  | { type: "register_node"; input: RegisterNodeBody }
  | { type: "run_event"; input: RunEventInput }
  | { type: "hello"; nodeId: string; inventory: Inventory; journal: JournalEntry[]; orphans?: Orphan[] }
  /** A cluster agent's refreshed inventory (its nodes' GPUs and states). */
  | { type: "inventory"; nodeId: string; inventory: Inventory }
  | { type: "ack"; nodeId: string; commandId: string }
  | { type: "refused"; nodeId: string; commandId: string; code: string; message: string }
  | { type: "node_lost"; nodeId: string }
  /** A launch command could not become a LaunchRequest (no capsule, no signing key…). */
  | { type: "launch_failed"; runId: string; rank: number; reason: string }
  /** A command frame went out on the agent's socket. */
  | { type: "sent"; commandId: string }
  /** The checkpoint a run continues from was resolved (JSON of ResumeFrom | null). */
  | { type: "resume_resolved"; runId: string; body: string }
  /** A run's runner registered a stored checkpoint (its step, if it said). */
  | { type: "checkpointed"; runId: string; step: number | null }
  /** A timer row came due: `schedule`, `windows`, `retry:<job>`, `lost:<node>`. */
  | { type: "timer"; id: string }
  /** An admin cordons, uncordons, drains, revokes or removes a node (by id or name). */
  | { type: "node_admin"; node: string; action: NodeAction; actor: string; note: string | null }
  /** Re-routing (rules/reroute.ts): this fleet freezes a queued job to offer it to another. */
  | { type: "handoff_out"; jobId: string; handoff: Omit<Handoff, "at"> }
  /** Another fleet offers one of its queued jobs. */
  | { type: "accept_move"; offer: MoveOffer }
  /** The fleet this one offered a job to answered. */
  | { type: "handoff_done"; jobId: string; moveId: string; answer: MoveAnswer }
  /** A job's placement timeout ended (the adapter adds the other candidates' reasons from D1). */
  | { type: "placement_timeout"; jobId: string; others: PlacementCandidate[] }
  /** A failed run's verdict (the adapter read its logs from its Run DO: fleet/diagnoser.ts). */
  | { type: "diagnosed"; runId: string; verdict: RunVerdict }
  /** A running run's live anomaly (its Run DO saw a NaN loss or a hang: run/monitor.ts). */
  | { type: "anomaly"; runId: string; anomaly: AnomalyReport };

/** What each event answers. */
export interface FleetResults {
  configure: undefined;
  set_quota: undefined;
  set_priority_classes: undefined;
  set_teams: undefined;
  set_budgets: undefined;
  drain: DrainReport;
  undrain: DrainReport;
  submit: Result<{ jobs: JobDetail[] }>;
  settle_admissions: Record<string, { status: string; version: number } | null>;
  confirm_admissions: string[];
  withdraw_admissions: string[];
  action: Result<JobDetail>;
  register_node: Result<NodeView>;
  run_event: RunEventOutcome;
  hello: Welcome;
  inventory: undefined;
  ack: boolean;
  refused: undefined;
  node_lost: undefined;
  launch_failed: undefined;
  sent: undefined;
  resume_resolved: undefined;
  checkpointed: undefined;
  timer: undefined;
  node_admin: Result<NodeAdminReport>;
  handoff_out: MoveOffer | null;
  accept_move: MoveAnswer;
  handoff_done: undefined;
  placement_timeout: undefined;
  diagnosed: undefined;
  anomaly: AnomalyOutcome;
}

export interface Decision<T> {
  result: T;
  effects: FleetEffect[];
}

export function decide<E extends FleetEvent>(
  ledger: Ledger,
  event: E,
  ctx: DecideContext,
): Decision<FleetResults[E["type"]]> {
  // Cleared first, so a decision that throws (its transaction rolls back) leaves the next one a full pass.
  const steady = ledger.steady;
  ledger.steady = false;
  const t = new Tx(ledger, ctx, (tx, job) => (job ? scheduleSubmitted(tx, job) : schedule(tx)), steady);
  const result = apply(t, event) as FleetResults[E["type"]];
  // A decision that changed nothing (no effect: every write is one) leaves the fleet as steady as it was.
  ledger.steady = t.passed || (steady && (KEEPS_STEADY.has(event.type) || t.effects.length === 0));
  return { result, effects: t.effects };
}

/**
 * Events that change nothing scheduling reads, or (submit) queue a job that was decided on its own.
 * Every other event ends the steady state until its own or the next full pass.
 */
const KEEPS_STEADY = new Set<FleetEvent["type"]>([
  "submit",
  "sent",
  // A checkpoint changes which running job preemption prefers, not what a full pass places (one that ends
  // an exemption runs a full pass).
  "checkpointed",
  // A confirmation changes what scheduling reads only with another quota (then a full pass runs); a
  // withdrawal frees GPUs and runs a full pass.
  "confirm_admissions",
  "withdraw_admissions",
]);

function apply(t: Tx, e: FleetEvent): FleetResults[FleetEvent["type"]] {
  switch (e.type) {
    case "configure":
      configure(t, e.config);
      return undefined;
    case "set_quota":
      setQuota(t, e.userId, e.quota);
      return undefined;
    case "set_priority_classes":
      setPriorityClasses(t, e.classes);
      return undefined;
    case "set_teams":
      setTeams(t, e.teams);
      return undefined;
    case "set_budgets":
      setBudgets(t, e.budgets);
      return undefined;
    case "drain":
      return drain(t, e.note);
    case "undrain":
      return undrain(t);
    case "submit":
      return submit(t, e.inputs);
    case "settle_admissions":
      if (e.quota) confirmAdmissions(t, e.jobIds, e.quota);
      return settleAdmissions(t, e.jobIds);
    case "confirm_admissions":
      return confirmAdmissions(t, e.jobIds, e.quota);
    case "withdraw_admissions":
      return withdrawAdmissions(t, e.jobIds);
    case "action":
      return action(t, e.jobId, e.action, e.actor, e.reason);
    case "register_node":
      return registerNode(t, e.input);
    case "run_event":
      return runEvent(t, e.input);
    case "hello":
      return hello(t, e.nodeId, e.inventory, e.journal, e.orphans ?? []);
    case "inventory":
      inventory(t, e.nodeId, e.inventory);
      return undefined;
    case "ack":
      return ackCommand(t, e.nodeId, e.commandId);
    case "refused":
      refusedCommand(t, e.nodeId, e.commandId, e.code, e.message);
      return undefined;
    case "node_lost":
      nodeLost(t, e.nodeId);
      return undefined;
    case "launch_failed":
      launchFailed(t, e.runId, e.rank, e.reason);
      return undefined;
    case "sent":
      if (t.s.command(e.commandId)) t.put({ kind: "sent", id: e.commandId, at: t.now });
      return undefined;
    case "resume_resolved":
      resumeResolved(t, e.runId, e.body);
      return undefined;
    case "checkpointed":
      checkpointed(t, e.runId, e.step);
      return undefined;
    case "timer":
      timerDue(t, e.id);
      return undefined;
    case "node_admin":
      return nodeAction(t, e.node, e.action, e.actor, e.note);
    case "handoff_out":
      return handoffOut(t, e.jobId, e.handoff);
    case "accept_move":
      return acceptMove(t, e.offer);
    case "handoff_done":
      handoffDone(t, e.jobId, e.moveId, e.answer);
      return undefined;
    case "placement_timeout":
      placementTimedOut(t, e.jobId, e.others);
      return undefined;
    case "diagnosed":
      applyDiagnosis(t, e.runId, e.verdict);
      return undefined;
    case "anomaly":
      return runAnomaly(t, e.runId, e.anomaly);
  }
}

/** A rule's timer came due (the adapter consumed its row first; the rule may arm it again). */
function timerDue(t: Tx, id: string): void {
  const target = timerTarget(id);
  if (target.kind === "schedule") t.schedule();
  else if (target.kind === "retry") retryDue(t, target.jobId);
  else if (target.kind === "lost") lostGraceOver(t, target.nodeId);
  else if (target.kind === "hold") holdExpired(t, target.jobId);
  else if (target.kind === "placement") placementTimedOut(t, target.jobId, []);
  else if (target.kind === "preempt_wait") t.schedule();
  else if (target.kind === "runtime") maxRuntimeOver(t, target.runId);
  else if (target.kind === "diagnose") diagnoseFromFacts(t, target.runId);
}

/** The drain's current report, or null before the fleet is configured (a read: no effects). */
export function currentDrainReport(ledger: Ledger): DrainReport | null {
  const cfg = config(ledger);
  return cfg ? drainReport(ledger, cfg, []) : null;
}
