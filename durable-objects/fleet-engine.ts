/**
 * The Fleet DO's engine, assembled from its layers (each a file named for its role):
 *   fleet-ledger.ts      statuses through the transition table, events, outbox, GPU release, views
 *   fleet-scheduling.ts  configuration, admin nodes, the scheduling pass and dispatch
 *   fleet-runs.ts        submit, user actions, run events from agents and runners
 *   fleet-agents.ts      agent hello and reconciliation, command acks, lost nodes
 * Every public method is synchronous and runs inside one `transactionSync` of the DO.
 */

export type { Welcome } from "./fleet-agents.js";
export { FleetAgents as FleetEngine } from "./fleet-agents.js";
export { type DrainBlocker, type DrainReport, jobResumable, WINDOWS_TIMER } from "./fleet-lifecycle.js";
export { type RunEventOutcome, STOP_GRACE_SECONDS } from "./fleet-runs.js";
export type * from "./fleet-types.js";
