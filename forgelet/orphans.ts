/** The agent's start-up sweep for workloads nothing claims any more (docs/agent-protocol.md "Credentials"). */
import type { Orphan } from "../contract/agent-frames.schema.js";
import type { Journal } from "./journal.js";
import type { Runtime } from "./runtime.js";

/**
 * Workloads the runtime holds with StarForge labels that no journal record claims (the journal was
 * lost or replaced; before the connection opens no launch is in progress). A host runtime's are this
 * node's alone: they are stopped and removed. A cluster's may belong to another agent fronting the same
 * cluster: they are only reported. Either way the hello tells the control plane.
 */
export async function sweepOrphans(
  runtime: Runtime,
  journal: Pick<Journal, "all">,
  log: (msg: string) => void,
): Promise<Orphan[]> {
  const orphans: Orphan[] = [];
  let held: Awaited<ReturnType<Runtime["list"]>>;
  try {
    held = await runtime.list();
  } catch (err) {
    log(
      `listing the runtime's workloads failed (${err instanceof Error ? err.message : String(err)}); no sweep`,
    );
    return orphans;
  }
  const records = journal.all();
  const refs = new Set(records.flatMap((r) => (r.ref ? [`${r.ref.kind}:${r.ref.id}`] : [])));
  const ranks = new Set(records.map((r) => `${r.run_id}#${r.rank}`));
  const host = !runtime.cluster;
  for (const w of held) {
    const runId = w.labels["starforge.run_id"] ?? "";
    const rank = w.labels["starforge.rank"] === undefined ? null : Number(w.labels["starforge.rank"]);
    if (refs.has(`${w.ref.kind}:${w.ref.id}`) || ranks.has(`${runId}#${rank}`)) continue;
    const epoch = w.labels["starforge.epoch"] === undefined ? null : Number(w.labels["starforge.epoch"]);
    const what = `${w.ref.kind} ${w.ref.id} (run ${runId || "?"}, rank ${rank ?? "?"})`;
    let action: Orphan["action"] = "reported";
    if (host) {
      try {
        await runtime.stop(w.ref, 10_000);
        action = "stopped";
      } catch (err) {
        log(`stopping orphan ${what} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    log(
      action === "stopped"
        ? `stopped orphan ${what}: no journal record claims it`
        : `found ${what}, which no journal record of this agent claims; left alone (a cluster may be shared)`,
    );
    orphans.push({
      run_id: runId.slice(0, 200),
      rank: Number.isInteger(rank) && rank! >= 0 ? rank : null,
      epoch: Number.isInteger(epoch) && epoch! >= 0 ? epoch : null,
      ref: w.ref.id.slice(0, 200),
      action,
    });
  }
  return orphans;
}
