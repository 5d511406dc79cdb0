/**
 * The route fuzz, shared by the fuzz-routes-*.property.test.ts files (one group of routes each, so each
 * file's Worker serves a few hundred requests: SELF.fetch slows with every request a file has made).
 * Every route the app registers (createApp().routes) is in exactly one group, so a route added later is
 * fuzzed too. Each gets generated requests: its valid request mutated (fields dropped, renamed, retyped,
 * out of range, huge, deeply nested), garbage bodies, wrong content types, odd headers and credentials,
 * odd path parameters and query strings. Every answer is below 500 and every refusal is coded; a refused
 * request leaves D1, the fleets' Durable Objects and the fixture run's Durable Object as they were. The
 * requests are fuzz-requests.ts's, which the local-stack fuzz (test/node) sends over real connections too.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../worker/app.js";
import { buildFixture } from "./fuzz-fixture.js";
import { expectCodedAnswer, type Fixture } from "./fuzz-model.js";
import { requestArb, routesOf } from "./fuzz-requests.js";
import { seedFor } from "./fuzz-seeds.js";
import {
  diagnosesSettled,
  expectConsistentFleet,
  fleetSnapshot,
  fuzzParams,
  fuzzRuns,
  ledgerSnapshot,
  runSnapshot,
  send,
} from "./fuzz-support.js";
import { ADMIN, api, installHubStub } from "./helpers.js";

/** A job's read-back routes (what its runs reported), fuzzed apart from the routes that change jobs. */
const readback = (p: string) =>
  /^\/v1\/jobs\/[^/]+\/(logs|metrics|hparams|hardware|events|environment|validation|artifacts)(\/|$)/.test(p);
/** The console's fleet and usage pages (and `/`, which redirects into the console). */
const consoleFleets = (p: string) => p === "/" || /^\/console\/(fleets|usage)(\/|$)/.test(p);

// Each file's requests slow its Worker down (see above), so no group is large: its last routes would run
// on a Worker slowed by every request before them.
const GROUPS = {
  ingest: (p: string) => p.startsWith("/v1/ingest/"),
  fleets: (p: string) => p.startsWith("/v1/fleets"),
  jobs: (p: string) => /^\/v1\/(jobs|blobs|capsule|agents|usage)(\/|$)/.test(p) && !readback(p),
  readback,
  webhooks: (p: string) => p.startsWith("/v1/webhooks"),
  teams: (p: string) => /^\/v1\/(teams|priority-classes)(\/|$)/.test(p),
  admin: (p: string) => /^\/v1\/(secrets|audit|admin|auth)(\/|$)/.test(p) || /^\/device(\/|$)/.test(p),
  console: (p: string) =>
    p === "/console" || (p.startsWith("/console/") && !p.startsWith("/console/admin") && !consoleFleets(p)),
  "console-fleets": consoleFleets,
  "console-admin": (p: string) => p.startsWith("/console/admin"),
};
export type RouteGroup = keyof typeof GROUPS | "rest";

function inGroup(group: RouteGroup, path: string): boolean {
  if (group !== "rest") return GROUPS[group](path);
  return !Object.values(GROUPS).some((g) => g(path));
}

/** The routes the app registers whose path passes `filter`, as `METHOD /path`. */
export function registeredRoutes(filter: (path: string) => boolean): string[] {
  return routesOf(createApp(), filter);
}

/** Fuzzes every route of `group`; `afterwards` runs once all of them are done (the fixture is up). */
export function fuzzRouteGroup(group: RouteGroup, afterwards?: (f: Fixture) => Promise<void>): void {
  const routes = registeredRoutes((p) => inGroup(group, p));
  const runs = fuzzRuns(16);
  let f: Fixture;

  beforeAll(async () => {
    installHubStub([
      { kind: "model", id: "fz/model" },
      { kind: "dataset", id: "fz/data" },
    ]);
    f = await buildFixture();
  }, 60_000);

  /** Everything a refused request could have left behind. */
  async function footprint() {
    await diagnosesSettled([f.main.id, f.side.id]);
    return {
      ledger: await ledgerSnapshot(),
      main: await fleetSnapshot(f.main.id),
      side: await fleetSnapshot(f.side.id),
      run: await runSnapshot(f.job.runId),
    };
  }

  describe(`fuzzed requests to the ${group} routes`, () => {
    it("has routes to fuzz", () => {
      expect(routes.length).toBeGreaterThan(0);
    });

    for (const route of routes) {
      it(
        `${route}: no 5xx, coded refusals, nothing left behind`,
        async () => {
          const seed = seedFor(f, route);
          await fc.assert(
            fc.asyncProperty(requestArb(f, route, seed), async (req) => {
              const before = await footprint();
              const res = await send(req, f.ids);
              expectCodedAnswer(`${req.method} ${req.path}?${req.query}`, req.method, res, seed.html);
              if (res.status >= 400) expect(await footprint(), `${res.status} ${res.text}`).toEqual(before);
            }),
            fuzzParams(route, runs),
          );
        },
        30_000 + runs * 2_000,
      );
    }
  });

  afterAll(async () => {
    // Nothing crashed for good: the Worker and both fleets still answer, and their books still add up.
    expect((await api(null, "GET", "/v1/health")).status).toBe(200);
    for (const fleet of [f.main, f.side]) {
      const r = await api(ADMIN, "GET", `/v1/fleets/${fleet.id}`);
      expect(r.status).toBe(200);
      expect(r.body.totals.allocated).toBeLessThanOrEqual(r.body.totals.gpus);
      await expectConsistentFleet(fleet.id);
    }
    await afterwards?.(f);
  }, 60_000);
}
