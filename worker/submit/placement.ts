/**
 * A job that names several fleets, or a selector of them, is placed on the one that starts it soonest
 * (docs/scheduling.md "Placement"): the candidates are the fleets it names or selects; a candidate that
 * could never take it (draining, no such hardware, an image or shape its runtime refuses) says why; the
 * rest are ranked by the capacity summary each Fleet DO publishes to D1 (contract/placement.ts). The
 * summaries are read once a second per isolate at most, never from a Fleet DO on the submit's path.
 */
import type { JobSpec } from "../../contract/jobspec.schema.js";
import {
  chooseFleet,
  estimateStart,
  FleetCapacity,
  neverFits,
  type PlacementCandidate,
  type SeriesNeed,
  type StartEstimate,
  selects,
} from "../../contract/placement.js";
import type { Db } from "../../d1/client.js";
import { AppError } from "../errors.js";
import { type PlacementFleet, placementFleets } from "../services/config-cache.js";
import type { FleetRow } from "../services/fleets.service.js";

/** One candidate as `sf job why` and the refusal show it. */
export type CandidateView = PlacementCandidate;

export interface Placed {
  fleet: FleetRow;
  candidates: CandidateView[];
}

/** Whether a spec asks to be placed (names several fleets or a selector) rather than naming one fleet. */
export function placesItself(spec: JobSpec): boolean {
  return spec.resources.fleets !== undefined || spec.resources.fleet_selector !== undefined;
}

export function seriesNeeds(spec: JobSpec): SeriesNeed[] {
  return spec.resources.pools.map((p) => ({ series: p.series, nodes: p.nodes, per_node: p.gpus_per_node }));
}

/**
 * Places a job: `fits(fleet)` throws (an AppError) where the fleet's own checks refuse the spec (its image
 * allowlist, its runtime's shape). Refuses with NO_ELIGIBLE_FLEET, every candidate's reason listed, when
 * none could take it.
 */
export async function placeJob(
  d: Db,
  spec: JobSpec,
  fits: (fleet: FleetRow) => void,
  /** The fleet to choose if it is eligible (a job array's later jobs: where its first went). */
  prefer?: string,
  now = Date.now(),
): Promise<Placed> {
  const all = await placementFleets(d, now);
  const byName = new Map(all.map((f) => [f.name, f]));
  const needs = seriesNeeds(spec);
  const named = spec.resources.fleets;
  const views: CandidateView[] = [];
  const eligible: Array<{ fleet: PlacementFleet; capacity: FleetCapacity | null; estimate: StartEstimate }> =
    [];
  const candidates = named
    ? named.map((name) => ({ name, fleet: byName.get(name) }))
    : all
        .filter((f) =>
          selects(spec.resources.fleet_selector!, {
            kind: f.kind,
            labels: JSON.parse(f.labels) as Record<string, string>,
          }),
        )
        .map((f) => ({ name: f.name, fleet: f }));
  for (const { name, fleet } of candidates) {
    const refuse = (reason: string) =>
      views.push({ fleet: name, eligible: false, reason, estimated_start: null, chosen: false });
    if (!fleet) {
      refuse("no such fleet");
      continue;
    }
    if (fleet.draining) {
      refuse(`draining: ${fleet.drainNote ?? "maintenance"}`);
      continue;
    }
    const capacity = fleet.capacity ? FleetCapacity.parse(JSON.parse(fleet.capacity)) : null;
    const never = neverFits(capacity, needs);
    if (never) {
      refuse(never);
      continue;
    }
    try {
      fits(fleet);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refuse(`${err.message} (${err.code})`);
      continue;
    }
    const estimate = estimateStart(capacity, needs);
    eligible.push({ fleet, capacity, estimate });
    views.push({
      fleet: name,
      eligible: true,
      reason: estimate.basis,
      estimated_start: estimate.at,
      chosen: false,
    });
  }
  const chosen = eligible.find((e) => e.fleet.name === prefer) ?? chooseFleet(eligible, needs);
  if (!chosen) {
    const what = named ? `the fleets it names (${named.join(", ")})` : "the fleets its selector matches";
    throw new AppError(
      "NO_ELIGIBLE_FLEET",
      views.length === 0
        ? "no fleet matches the job's fleet selector"
        : `none of ${what} could run this job: ${views.map((v) => `${v.fleet}: ${v.reason}`).join("; ")}`,
      { candidates: views },
    );
  }
  for (const v of views) v.chosen = v.fleet === chosen.fleet.name;
  return { fleet: chosen.fleet, candidates: views };
}
