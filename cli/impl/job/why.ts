/**
 * `sf job why ID`: why a job is where it is. While it waits, each pending reason; for a job placed over
 * several fleets, every candidate fleet, whether it could run the job, its estimated start and why it was
 * or was not chosen (the `admitted` event's placement, docs/scheduling.md "Placement over several fleets"),
 * then every move it made between them while it waited (its `rerouted` events), and a placement timeout's
 * verdict.
 */
import type { Command } from "commander";
import {
  admittedPlacement,
  type PlacementCandidate,
  reroutesOf,
  rerouteWhy,
} from "../../../contract/placement.js";
import { authedApi } from "../../context.js";
import { c, emit, print, status } from "../../output.js";
import { colorTable } from "./format.js";
import { getJob } from "./show.js";

function startText(c: PlacementCandidate): string {
  if (!c.eligible) return "never";
  if (c.estimated_start === 0) return "now";
  return c.estimated_start === null ? "unknown" : new Date(c.estimated_start).toISOString();
}

export async function why(cmd: Command, id: string): Promise<void> {
  const d = await getJob(authedApi(cmd), id);
  const j = d.job;
  const placement = admittedPlacement(d.events);
  const reroutes = reroutesOf(d.events);
  const verdict = d.events.findLast((e) => e.edge === "placement_timeout");
  emit({ job: j.id, status: j.status, pending_reasons: j.pending_reasons, placement, reroutes }, () => {
    print(`${c.bold(j.id)}  ${j.name}  ${status(j.status)}  ${c.dim(`fleet ${j.fleet_id}`)}`);
    if (verdict) {
      const reason = (verdict.detail as { reason?: string } | null)?.reason ?? "no fleet started it in time";
      print(`${c.red("failed:")} ${reason} ${c.dim("[NO_ELIGIBLE_FLEET]")}`);
    } else if (j.status === "QUEUED") {
      if (j.pending_reasons.length === 0) print(`${c.yellow("waiting:")} for the next scheduling pass`);
      for (const r of j.pending_reasons)
        print(`${c.yellow("waiting:")} ${r.message} ${c.dim(`[${r.code}]`)}`);
    } else print(c.dim(`not waiting: ${j.status.toLowerCase()}`));
    if (!placement) {
      print(c.dim("it named one fleet: no other was considered"));
      return;
    }
    print();
    print(c.bold("Placement (when it was submitted)"));
    colorTable(
      placement.map((p) => ({
        fleet: p.fleet,
        chosen: p.chosen ? "yes" : "",
        "could run": p.eligible ? "yes" : "no",
        starts: startText(p),
        why: p.reason,
      })),
      ["fleet", "chosen", "could run", "starts", "why"],
    );
    if (reroutes.length === 0) return;
    print();
    print(c.bold("Moves while it waited"));
    colorTable(
      reroutes.map((r) => ({ at: r.ts, from: r.from, to: r.to, why: `${rerouteWhy(r.why)}: ${r.basis}` })),
      ["at", "from", "to", "why"],
    );
  });
}
