/**
 * Failure diagnosis's I/O (the rules are rules/diagnosis.ts): when a failed run's diagnosis is due, ask its
 * Run DO — which holds the ranks' logs — for the verdict over what this fleet saw, and decide it. If the
 * Run DO does not answer within DIAGNOSE_RPC_MS, the verdict rests on the exits and events alone, so every
 * failed run is diagnosed (and its webhook sent) within seconds whatever happens to its logs.
 */
import type { RunVerdict } from "../../contract/diagnosis-policy.js";
import type { DoEnv } from "../env.js";
import { runStub } from "../run/stub.js";
import type { FleetEvent, FleetResults } from "./decide.js";
import { diagnosisDue, runFacts } from "./rules/diagnosis.js";
import type { FleetStore } from "./store.js";
import { diagnoseTimer } from "./timers.js";

/** How long the Run DO gets to answer before the verdict goes without its logs. */
const DIAGNOSE_RPC_MS = 5_000;

export class Diagnoser {
  constructor(
    private readonly store: FleetStore,
    private readonly env: DoEnv,
    private readonly decide: <E extends FleetEvent>(event: E) => FleetResults[E["type"]],
  ) {}

  async diagnose(runId: string): Promise<void> {
    // Still waiting for the failing rank's agent (rules/diagnosis.ts): the rule re-arms the timer.
    if (!diagnosisDue(this.store, runId, Date.now())) {
      this.decide({ type: "timer", id: diagnoseTimer(runId) });
      return;
    }
    const facts = runFacts(this.store, runId);
    if (!facts) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const verdict = await Promise.race([
      runStub(this.env, runId).diagnose(facts) as Promise<RunVerdict>,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), DIAGNOSE_RPC_MS);
      }),
    ])
      .catch((err: unknown) => {
        console.error(`run ${runId}: its logs could not be read for its diagnosis`, err);
        return null;
      })
      .finally(() => {
        if (timer !== undefined) clearTimeout(timer);
      });
    // Without the logs: the rule's own verdict from the facts (the timer's tier-1 path).
    if (verdict) this.decide({ type: "diagnosed", runId, verdict });
    else this.decide({ type: "timer", id: diagnoseTimer(runId) });
  }
}
