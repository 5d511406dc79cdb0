/**
 * Never two workloads on one GPU: before a rank starts, the agent waits (bounded) while another workload
 * of this agent still runs on any of its GPU indices — typically one the control plane gave up on (lost
 * past its grace) that is being stopped now, whose GPUs were already given to the retry.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerFrame } from "../contract/agent-frames.schema.js";
import type { Journal, JournalRecord } from "./journal.js";

type Launch = Extract<ServerFrame, { type: "launch" }>;

/** How long a launch waits for a workload being stopped to release its GPUs (stop grace + margin). */
export const GPU_RELEASE_WAIT_MS = 45_000;

/**
 * The GPU indices a journaled rank was given: `known` when this process launched it, else from its saved
 * launch request (`.starforge/launch.json` in its run directory); none when neither is there.
 */
export function gpusOf(rec: JournalRecord, known: readonly number[] | undefined): readonly number[] {
  if (known) return known;
  try {
    const f = JSON.parse(readFileSync(join(rec.run_dir, ".starforge", "launch.json"), "utf8")) as Launch;
    return f.request.placement.find((p) => p.rank === rec.rank)?.gpu_indices ?? [];
  } catch {
    return [];
  }
}

/** Waits until no other launched rank of `journal` holds one of `gpus`, or GPU_RELEASE_WAIT_MS passed. */
export async function gpusReleased(
  journal: Journal,
  rec: JournalRecord,
  gpus: readonly number[],
  gpusOfRank: (r: JournalRecord) => readonly number[],
  log: (msg: string) => void,
): Promise<void> {
  if (gpus.length === 0) return;
  const deadline = Date.now() + GPU_RELEASE_WAIT_MS;
  let said = false;
  for (;;) {
    const busy = journal
      .all()
      .filter(
        (o) =>
          (o.run_id !== rec.run_id || o.rank !== rec.rank) &&
          o.state === "launched" &&
          gpusOfRank(o).some((g) => gpus.includes(g)),
      );
    if (busy.length === 0) return;
    const who = busy.map((o) => `${o.run_id} rank ${o.rank}`).join(", ");
    if (Date.now() > deadline) {
      log(`run ${rec.run_id} rank ${rec.rank}: GPUs ${gpus.join(",")} still used by ${who}; starting anyway`);
      return;
    }
    if (!said) {
      log(`run ${rec.run_id} rank ${rec.rank}: waiting for ${who} to release GPUs ${gpus.join(",")}`);
      said = true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
