/**
 * A fuzz of placement specs through the real Worker (issue 28): random `resources.fleets` lists (unknown
 * names, duplicates, too many, not strings), random `fleet_selector`s (bad label keys and values, unknown
 * kinds, extra fields, labels no fleet has), mixed with `fleet`, over pools of hardware some fleets have and
 * some have not. Every answer is a 201 or a coded refusal (INVALID_SPEC, NO_ELIGIBLE_FLEET) with a message —
 * never a 5xx — and a refused submit leaves nothing behind: no row in any table a submit writes, nothing in
 * any fleet's queue. A 201 is placed on a fleet the spec names or selects.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN,
  api,
  createFleet,
  createUser,
  customSpec,
  registerNode,
  type SubmitFootprint,
  submitFootprint,
} from "./helpers.js";

const FLEETS = ["fz-eu", "fz-us", "fz-docker"] as const;
let user = "";

beforeAll(async () => {
  user = await createUser("fz-placer");
  await api(ADMIN, "PUT", "/v1/users/fz-placer/quota", { max_gpus: 10_000, max_jobs: 10_000 });
  await createFleet("fz-eu", { labels: { site: "eu" }, kind: "process" });
  await createFleet("fz-us", { labels: { site: "us" }, kind: "process" });
  await createFleet("fz-docker", { labels: { site: "eu", tier: "gold" } });
  for (const f of FLEETS) await registerNode(f, `${f}-n1`, 8);
});

const name = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FLEETS, "fz-nowhere") },
  { weight: 1, arbitrary: fc.constantFrom("", "A B", "x".repeat(70), 7 as unknown as string) },
);
const validLabels = fc.dictionary(
  fc.constantFrom("site", "tier", "region"),
  fc.constantFrom("eu", "us", "gold", "mars"),
  {
    maxKeys: 2,
  },
);
const badLabels = fc.dictionary(fc.constantFrom("Bad Key", "", "site"), fc.constantFrom("bad value!", ""), {
  minKeys: 1,
  maxKeys: 2,
});
const kinds = fc.uniqueArray(fc.constantFrom("process", "docker", "kuberay", "slurm"), {
  minLength: 1,
  maxLength: 4,
});
const placementArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  // Well-formed: a list of fleets (some unknown), or a selector (some matching nothing), or one fleet.
  { weight: 4, arbitrary: fc.record({ fleets: fc.uniqueArray(name, { minLength: 1, maxLength: 4 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({ fleet_selector: fc.record({ labels: validLabels, kinds }, { requiredKeys: [] }) }),
  },
  { weight: 1, arbitrary: fc.record({ fleet: fc.constantFrom(...FLEETS) }) },
  // Malformed: each must be refused as INVALID_SPEC.
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.record({ fleets: fc.array(name, { minLength: 0, maxLength: 18 }) }),
      fc.record({ fleet_selector: fc.record({ labels: badLabels }) }),
      fc.record({ fleet_selector: fc.record({ kinds: fc.constant(["mainframe"]) }) }),
      fc.record({ fleet_selector: fc.record({ labels: validLabels, extra: fc.constant(true) }) }),
      fc.record({ fleet: fc.constantFrom(...FLEETS), fleets: fc.constant(["fz-eu"]) }),
      fc.record({ fleets: fc.constant(["fz-eu", "fz-us"]), fleet_selector: fc.constant({}) }),
    ),
  },
);
const poolArb = fc.oneof(
  fc.record({
    series: fc.constantFrom("h200", "a100"),
    nodes: fc.constant(1),
    gpus: fc.constantFrom(1, 4, 8),
  }),
  fc.record({ series: fc.constant("h200"), nodes: fc.constant(2), gpus: fc.constant(8) }),
);

// The placement refusals, and those of a shape no profile has (refused the same way with any placement).
const CODES = new Set([
  "INVALID_SPEC",
  "NO_ELIGIBLE_FLEET",
  "FLEET_NOT_FOUND",
  "INVALID_PROFILE",
  "PROFILE_NOT_FOUND",
]);

describe("placement specs, fuzzed", () => {
  it("are placed on a fleet they name or select, or refused with a code, leaving nothing behind", async () => {
    const ids = new Map<string, string>();
    for (const f of FLEETS) ids.set((await api(ADMIN, "GET", `/v1/fleets/${f}`)).body.fleet.id as string, f);
    const samples = fc.sample(fc.tuple(placementArb, poolArb), { numRuns: 60, seed: 28 });
    let before: SubmitFootprint[] | null = null;
    const footprint = () => Promise.all(FLEETS.map((f) => submitFootprint(f)));
    for (const [placement, pool] of samples) {
      before ??= await footprint();
      const spec = await customSpec({
        fleet: "x",
        pools: [
          {
            name: "default",
            profile: pool.series,
            series: pool.series,
            nodes: pool.nodes,
            gpus_per_node: pool.gpus,
          },
        ],
      });
      const { fleet: _x, ...rest } = spec.resources;
      const body = { ...spec, resources: { ...rest, ...placement } };
      const r = await api(user, "POST", "/v1/jobs", body);
      const what = JSON.stringify({ placement, pool, answer: r.body });
      expect(r.status, what).toBeLessThan(500);
      if (r.status === 201) {
        const chosen = ids.get(r.body.job.fleet_id as string);
        expect(chosen, what).toBeDefined();
        if (Array.isArray(placement.fleets)) expect(placement.fleets, what).toContain(chosen);
        else if (placement.fleet) expect(chosen, what).toBe(placement.fleet);
        before = null; // a job was queued: the next refusal is measured from here
        continue;
      }
      expect(CODES.has(r.body.error?.code), what).toBe(true);
      expect(r.body.error.message.length, what).toBeGreaterThan(0);
      if (r.body.error.code === "NO_ELIGIBLE_FLEET")
        expect(Array.isArray(r.body.error.details?.candidates), what).toBe(true);
      expect(await footprint(), what).toEqual(before);
    }
  });
});
