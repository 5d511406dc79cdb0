/**
 * Tier 1: placement's pure parts (contract/placement.ts): which fleets a selector names, why a fleet could
 * never run a job, when a fleet could start it, and which candidate is chosen; and the capacity summary a
 * Fleet DO publishes (fleet/capacity.ts), read from the engine's state.
 */
import { describe, expect, it } from "vitest";
import { placementOf } from "../../cli/impl/submit/spec.js";
import {
  chooseFleet,
  estimateStart,
  type FleetCapacity,
  FleetSelector,
  neverFits,
  parseSelectorText,
  planReroutes,
  type RerouteTarget,
  type SeriesCapacity,
  selects,
} from "../../contract/placement.js";
import { capacitySummary } from "../../durable-objects/fleet/capacity.js";
import { Fleet, T0 } from "./fleet-harness.js";

const series = (o: Partial<SeriesCapacity>): SeriesCapacity => ({
  nodes: 2,
  max_node_gpus: 8,
  total: 16,
  free: 0,
  free_max_node: 0,
  queued_gpus: 0,
  next_free_at: null,
  ...o,
});
const cap = (h200: Partial<SeriesCapacity>): FleetCapacity => ({ at: T0, series: { h200: series(h200) } });
const ONE_NODE_8 = [{ series: "h200", nodes: 1, per_node: 8 }];

describe("fleet selectors", () => {
  it("match every label given and one of the kinds; {} matches every fleet", () => {
    const eu = { kind: "docker", labels: { site: "eu", region: "fra" } };
    expect(selects(FleetSelector.parse({}), eu)).toBe(true);
    expect(selects(FleetSelector.parse({ labels: { site: "eu" } }), eu)).toBe(true);
    expect(selects(FleetSelector.parse({ labels: { site: "eu", region: "ams" } }), eu)).toBe(false);
    expect(selects(FleetSelector.parse({ kinds: ["slurm", "docker"] }), eu)).toBe(true);
    expect(selects(FleetSelector.parse({ kinds: ["slurm"] }), eu)).toBe(false);
  });

  it("parse from the CLI's KEY=VALUE list, and refuse what is not one", () => {
    expect(parseSelectorText("site=eu, region=fra")).toEqual({ site: "eu", region: "fra" });
    expect(() => parseSelectorText("site")).toThrow('"site" is not KEY=VALUE');
    expect(FleetSelector.safeParse({ labels: { "Bad Key": "x" } }).success).toBe(false);
    expect(FleetSelector.safeParse({ labels: {}, extra: 1 }).success).toBe(false);
  });
});

describe("estimates and the choice", () => {
  it("says why a fleet could never run a job, from its nodes", () => {
    expect(neverFits(cap({}), [{ series: "a100", nodes: 1, per_node: 1 }])).toBe("it has no a100 nodes");
    expect(neverFits(cap({ max_node_gpus: 4 }), ONE_NODE_8)).toBe(
      "its biggest h200 node has 4 GPUs; this job needs 8 per node",
    );
    expect(neverFits(cap({ nodes: 1 }), [{ series: "h200", nodes: 2, per_node: 8 }])).toBe(
      "it has 1 h200 node; this job needs 2",
    );
    expect(neverFits(cap({}), ONE_NODE_8)).toBeNull();
  });

  it("starts now where the GPUs are free on one node, else when the first run ends by its limit, else unknown", () => {
    expect(estimateStart(cap({ free: 8, free_max_node: 8 }), ONE_NODE_8).at).toBe(0);
    // 8 free, but spread over two nodes: a one-node job does not fit now.
    expect(estimateStart(cap({ free: 8, free_max_node: 4 }), ONE_NODE_8).at).toBeNull();
    const later = estimateStart(cap({ next_free_at: T0 + 60_000, queued_gpus: 8 }), ONE_NODE_8);
    expect(later).toEqual({
      at: T0 + 60_000,
      basis: `full until ${new Date(T0 + 60_000).toISOString()} (h200: 0/16 free, 8 queued)`,
    });
    expect(estimateStart(null, ONE_NODE_8)).toEqual({
      at: null,
      basis: "the fleet has published no capacity yet",
    });
    expect(estimateStart(cap({ total: 0 }), ONE_NODE_8).basis).toBe("no connected h200 GPUs");
  });

  it("waits for a closed window: free GPUs start when it opens, busy ones not before a run ends and it opens", () => {
    const opens = T0 + 3_600_000;
    expect(estimateStart(cap({ free: 8, free_max_node: 8, opens_at: opens }), ONE_NODE_8)).toEqual({
      at: opens,
      basis: `its window is closed until ${new Date(opens).toISOString()} (h200: 8/16 free, 0 queued, its window opens ${new Date(opens).toISOString()})`,
    });
    expect(estimateStart(cap({ next_free_at: T0 + 60_000, opens_at: opens }), ONE_NODE_8).at).toBe(opens);
    expect(estimateStart(cap({ next_free_at: opens + 1, opens_at: opens }), ONE_NODE_8).at).toBe(opens + 1);
    expect(estimateStart(cap({ opens_at: opens }), ONE_NODE_8).at).toBeNull();
  });

  it("publishes when a closed window of a series opens", () => {
    const f = new Fleet({ windows: [{ days: [1], start: "09:00", end: "10:00", tz: "UTC" }] });
    f.agent("n1", 8);
    // T0 is Tuesday 1 Dec 2026 10:00 UTC: the next Monday 09:00 is 6 days and 23 hours on.
    expect(capacitySummary(f.s, T0).series.h200?.opens_at).toBe(Date.UTC(2026, 11, 7, 9, 0, 0));
    expect(capacitySummary(new Fleet().s, T0).series.h200).toBeUndefined();
  });

  it("chooses a fleet that starts it now (the most free first), else the earliest start, else the least queued", () => {
    const c = (name: string, capacity: FleetCapacity) => ({
      name,
      capacity,
      estimate: estimateStart(capacity, ONE_NODE_8),
    });
    const now8 = c("now8", cap({ free: 8, free_max_node: 8 }));
    const now16 = c("now16", cap({ free: 16, free_max_node: 8 }));
    const soon = c("soon", cap({ next_free_at: T0 + 1_000 }));
    const later = c("later", cap({ next_free_at: T0 + 9_000 }));
    const busy = c("busy", cap({ queued_gpus: 64 }));
    const idle = c("idle", cap({ queued_gpus: 8 }));
    expect(chooseFleet([now8, soon, now16], ONE_NODE_8)?.name).toBe("now16");
    expect(chooseFleet([later, busy, soon], ONE_NODE_8)?.name).toBe("soon");
    expect(chooseFleet([busy, idle], ONE_NODE_8)?.name).toBe("idle");
    // Ties keep the candidates' order.
    expect(chooseFleet([idle, { ...idle, name: "idle2" }], ONE_NODE_8)?.name).toBe("idle");
    expect(chooseFleet([], ONE_NODE_8)).toBeUndefined();
  });
});

describe("the capacity a Fleet DO publishes", () => {
  it("counts nodes, free GPUs, the largest free on a node, queued GPUs and the first time limit", () => {
    const f = new Fleet();
    f.agent("gpu-a", 8);
    f.agent("gpu-b", 4);
    expect(capacitySummary(f.s, f.now).series.h200).toEqual({
      nodes: 2,
      max_node_gpus: 8,
      total: 12,
      free: 12,
      free_max_node: 8,
      queued_gpus: 0,
      next_free_at: null,
    });
    f.submit({ gpus: 8, maxRuntimeSeconds: 600 });
    f.submit({ gpus: 8 });
    const after = capacitySummary(f.s, f.now).series.h200!;
    expect(after).toMatchObject({ total: 12, free: 4, free_max_node: 4, queued_gpus: 8 });
    expect(after.next_free_at).toBe(f.now + 600_000);
  });
});

describe("sf submit's --fleet and --fleet-selector", () => {
  it("name one fleet, several, or a selector; never a fleet and a selector together", () => {
    expect(placementOf("lab", undefined)).toEqual({ fleet: "lab" });
    expect(placementOf("lab, hpc", undefined)).toEqual({ fleets: ["lab", "hpc"] });
    expect(placementOf(undefined, undefined)).toEqual({});
    expect(placementOf(undefined, "site=eu,region=fra")).toEqual({
      fleet_selector: { labels: { site: "eu", region: "fra" } },
    });
    expect(placementOf(undefined, "any")).toEqual({ fleet_selector: { labels: {} } });
    expect(() => placementOf("lab", "site=eu")).toThrow("give --fleet or --fleet-selector, not both");
    expect(() => placementOf(undefined, "site")).toThrow(/--fleet-selector: "site" is not KEY=VALUE/);
  });
});

describe("re-routing plans", () => {
  const target = (name: string, h200: Partial<SeriesCapacity> | null, draining = false): RerouteTarget => ({
    id: `flt_${name}`,
    name,
    draining,
    capacity: h200 ? cap(h200) : null,
  });
  const targets = (...ts: RerouteTarget[]) => new Map(ts.map((t) => [t.name, t]));
  const job = (id: string, fleets: string[], per_node = 8) => ({
    id,
    fleets,
    needs: [{ series: "h200", nodes: 1, per_node }],
  });
  const full = { nodes: 1, max_node_gpus: 8, total: 8, free: 0, free_max_node: 0 };
  const free = (n: number) => ({ nodes: 1, max_node_gpus: 8, total: 8, free: n, free_max_node: n });

  it("offers a waiting job to the candidate that starts it now, the most free first, never to itself", () => {
    const ts = targets(
      target("a", full),
      target("b", free(8)),
      target("c", { ...free(8), nodes: 2, total: 16, free: 16 }),
    );
    expect(planReroutes([job("j1", ["a", "b", "c"])], "a", ts, false)).toEqual([
      expect.objectContaining({
        jobId: "j1",
        to: { id: "flt_c", name: "c" },
        why: "starts_sooner",
        mustStart: true,
      }),
    ]);
    // Nobody can start it now: it stays (a fleet that must wait is no better than where it waits).
    expect(
      planReroutes([job("j1", ["a", "b"])], "a", targets(target("a", full), target("b", full)), false),
    ).toEqual([]);
  });

  it("does not offer two jobs the same free GPUs, and skips draining fleets and fleets the job does not name", () => {
    const ts = targets(
      target("a", full),
      target("b", free(8)),
      target("d", free(8), true),
      target("e", free(8)),
    );
    const plan = planReroutes([job("j1", ["a", "b", "d"]), job("j2", ["a", "b", "d"])], "a", ts, false);
    expect(plan.map((m) => [m.jobId, m.to.name])).toEqual([["j1", "b"]]);
  });

  it("when the site is lost, offers every waiting job to the candidate that starts it soonest, even if it must wait", () => {
    const ts = targets(
      target("a", free(8)),
      target("b", { ...full, next_free_at: T0 + 3_600_000 }),
      target("c", { ...full, next_free_at: T0 + 60_000 }),
      target("n", { nodes: 1, max_node_gpus: 4, total: 4, free: 4, free_max_node: 4 }),
    );
    const plan = planReroutes([job("j1", ["a", "b", "c", "n"])], "a", ts, true);
    expect(plan).toEqual([
      expect.objectContaining({
        jobId: "j1",
        to: { id: "flt_c", name: "c" },
        why: "site_lost",
        mustStart: false,
      }),
    ]);
  });
});
