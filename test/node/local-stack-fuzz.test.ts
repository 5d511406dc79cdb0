/**
 * Its own control plane, not the project's shared one: it fuzzes the admin routes, and the requests they
 * accept change deployment-wide state (users' roles and quotas, profiles, the published capsule, fleets'
 * settings) that the other files rely on.
 *
 * Tier 3: the local stack (`npm start`: scripts/start.mjs → scripts/serve-worker.mjs → workerd, with its
 * local agent) never drops a request. The workerd route fuzz's requests (test/worker/fuzz-requests.ts: every
 * route's valid seed, fuzz-seeds.ts, mutated in every part) go over a few real kept-alive connections,
 * mixed with valid traffic and with bodies the Worker refuses before reading them (no token, oversized,
 * wrong content type), several at once. No answer is a 5xx, none is slower than 5 s, every refusal is coded
 * (fuzz-model.ts's expectCodedAnswer), and no connection is dropped under a request (a socket error fails
 * the test; nothing is sent again). The first two tests are the bug this guards against, exactly: an
 * early 401 to a POST with a body, then another POST on the same kept-alive connection, which wrangler's
 * dev proxy answered 503 "Your worker restarted mid-request" or lost; and the same with the body sent
 * after the 401 was decided, whose next request workerd itself loses unless the local entry reads the body
 * away (scripts/serve-worker.mjs says why).
 *
 * Replay: the run prints its seed; SF_SEED=<seed> generates the same requests again (on a fixture with
 * the same shape), SF_RUNS=<n> sends n requests per route (default 8).
 */
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import fc from "fast-check";
import { Agent, Client } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane.js";
import { createHubStub, type HubStub } from "../support/hf-hub-stub.js";
import { localStackFixture } from "../support/local-stack-fixture.js";
import {
  type Item,
  json,
  type Outcome,
  percentile,
  postSlowly,
  readResponse,
  sendAll,
  shuffled,
  tally,
  wireHeaders,
} from "../support/wire-traffic.js";
import { expectCodedAnswer, seedOf } from "../worker/fuzz-model.js";
import { requestArb, routesOf, wireRequest } from "../worker/fuzz-requests.js";
import { seedFor } from "../worker/fuzz-seeds.js";

/** Requests per route: SF_RUNS when set, else 8 (127 routes: about 1,000 fuzzed requests, under a minute). */
const RUNS = (() => {
  const n = Number(process.env.SF_RUNS);
  return Number.isInteger(n) && n > 0 ? n : 8;
})();
/** The fast-check seed every route's requests derive from; SF_SEED replays a printed one. */
const SEED = (() => {
  const n = Number(process.env.SF_SEED);
  return Number.isInteger(n) ? n : seedOf("local-stack-fuzz");
})();
/** The slowest answer allowed (ms): HEAD /v1/blobs/true once took 300 s behind wrangler's proxy. */
const SLOWEST_MS = 5_000;
/** Kept-alive connections the fuzz shares, and how many requests are in flight at once (more: they queue). */
const CONNECTIONS = 4;
const IN_FLIGHT = 6;

/**
 * worker/app.ts, loaded at run time: the route list is the Worker's own (createApp().routes, as the workerd
 * fuzz's registeredRoutes reads it), so a route added later is fuzzed here too. Imported by a name tsc does
 * not follow, because the Worker's sources type-check against workerd's types (tsconfig.worker.json), not
 * Node's; at run time they import under Node as they are.
 */
const WORKER_APP = "../../worker/app.js";
async function workerRoutes(): Promise<string[]> {
  const { createApp } = (await import(/* @vite-ignore */ WORKER_APP)) as {
    createApp: () => { routes: ReadonlyArray<{ method: string; path: string }> };
  };
  return routesOf(createApp());
}

let cp: ControlPlane;
let hub: Server;
let hubStub: HubStub;

/** The HuggingFace Hub stand-in (test/support/hf-hub-stub.ts) on a loopback port: SF_HF_ENDPOINT. */
async function serveHub(stub: HubStub): Promise<Server> {
  const server = createServer((req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    stub
      .fetch(`http://127.0.0.1${req.url}`, { method: req.method, headers })
      .then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(req.method === "HEAD" ? undefined : Buffer.from(await answer.arrayBuffer()));
      })
      .catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return server;
}

beforeAll(async () => {
  hubStub = createHubStub([
    { kind: "model", id: "fz/model" },
    { kind: "dataset", id: "fz/data" },
  ]);
  hub = await serveHub(hubStub);
  const address = hub.address();
  const port = typeof address === "object" && address ? address.port : 0;
  cp = await startControlPlane({ vars: { SF_HF_ENDPOINT: `http://127.0.0.1:${port}` } });
}, 120_000);

afterAll(async () => {
  await cp?.stop();
  await new Promise<void>((ok) => (hub ? hub.close(() => ok()) : ok()));
});

// ---------------------------------------------------------------------------------------------------------

describe("the local stack (npm start) on kept-alive connections", () => {
  // The bug, exactly: POST /v1/ingest/hparams with a JSON body and no token is answered 401 before its body
  // is read; the next POST on the same kept-alive connection was answered 503 "Your worker restarted
  // mid-request" by wrangler's dev proxy, or lost with the connection.
  const ingestBody = JSON.stringify({ run_id: "run_x", params: { lr: 0.1, layers: [1, 2] } });
  const fleetBody = JSON.stringify({ name: "never-created", kind: "process" });

  it("answers 200 × [an early 401 to a POST with a body, then another POST] on one kept-alive connection", async () => {
    const client = new Client(cp.url, { pipelining: 1, keepAliveTimeout: 10_000 });
    let connects = 0;
    client.on("connect", () => connects++);
    const problems: string[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        for (const [path, body] of [
          ["/v1/ingest/hparams", ingestBody],
          ["/v1/fleets", fleetBody],
        ] as const) {
          try {
            const res = await client.request({ path, method: "POST", headers: json, body });
            const text = await res.body.text();
            if (res.statusCode !== 401)
              problems.push(`#${i} POST ${path} → ${res.statusCode} ${text.slice(0, 120)}`);
          } catch (err) {
            const e = err as { code?: string; message?: string };
            problems.push(`#${i} POST ${path}: ${e.code}: ${e.message}`);
          }
        }
      }
    } finally {
      await client.close();
    }
    expect(
      problems.length,
      `${problems.length} of 400 answers wrong:\n${problems.slice(0, 20).join("\n")}`,
    ).toBe(0);
    // All 400 answers on the one connection: none was closed under the next request.
    expect(connects).toBe(1);
  });

  it("answers the next request on a socket whose POST body came 100 ms after its headers (and its 401)", async () => {
    const socket = connect(Number(new URL(cp.url).port), "127.0.0.1");
    await new Promise<void>((ok, ko) => socket.once("connect", ok).once("error", ko));
    const answered: string[] = [];
    let problem = "";
    try {
      for (let i = 0; i < 20 && !problem; i++) {
        for (const [which, path, body] of [
          ["the first request", "/v1/ingest/hparams", ingestBody],
          ["the second request on the same socket", "/v1/fleets", fleetBody],
        ] as const) {
          const label = `#${i}, ${which}: POST ${path} (body 100 ms after the headers)`;
          try {
            const answer = readResponse(socket, 10_000);
            await postSlowly(cp.url, socket, path, body, 100);
            const res = await answer;
            if (res.status !== 401) problem = `${label} → ${res.status} ${res.body.slice(0, 120)}`;
            else answered.push(label);
          } catch (err) {
            problem = `${label}: ${(err as Error).message}`;
          }
          if (problem) break;
        }
      }
    } finally {
      socket.destroy();
    }
    expect(
      problem,
      `${problem}\n(answered before it: ${answered.length}, the last ${answered.at(-1) ?? "none"})`,
    ).toBe("");
    expect(answered).toHaveLength(40);
  });

  it(`answers ${RUNS} fuzzed requests to every route, mixed with valid traffic: no 5xx, no drop, none slower than 5 s, every refusal coded`, async () => {
    const fixture = localStackFixture(cp);
    const f = await fixture.buildFixture();
    const steady = await fixture.buildSteady();
    const routes = await workerRoutes();
    expect(routes.length).toBeGreaterThan(100);

    // Every route's generated requests: the workerd fuzz's, from one seed.
    let client = 0;
    const address = () => {
      client++;
      return `198.18.${(client >> 8) & 255}.${client & 255}`;
    };
    const fuzzed: Item[] = routes.flatMap((route) => {
      const seed = seedFor(f, route);
      const reqs = fc.sample(requestArb(f, route, seed), { seed: SEED ^ seedOf(route), numRuns: RUNS });
      return reqs.map((req): Item => {
        const w = wireRequest(req, f.ids);
        return { kind: "fuzz", route, ...w, headers: wireHeaders(w.headers, address()), html: seed.html };
      });
    });

    // Valid traffic, and bodies refused before they are read, from addresses of their own.
    const steadyAddress = "198.19.0.1";
    const asSteady = { authorization: `Bearer ${steady.operator}`, "cf-connecting-ip": steadyAddress };
    const runToken = { "x-starforge-token": steady.run.token, "cf-connecting-ip": steadyAddress };
    const noToken = { ...json, "cf-connecting-ip": steadyAddress };
    let step = 0;
    const valid = (i: number): Item => {
      switch (i % 4) {
        case 0:
          return {
            kind: "valid",
            route: "health",
            method: "GET",
            target: "/v1/health",
            headers: noToken,
            expect: [200],
          };
        case 1:
          return {
            kind: "valid",
            route: "jobs list",
            method: "GET",
            target: "/v1/jobs?limit=20",
            headers: asSteady,
            expect: [200],
          };
        case 2:
          return {
            kind: "valid",
            route: "submit",
            method: "POST",
            target: "/v1/jobs",
            headers: { ...asSteady, ...json },
            body: JSON.stringify({ ...steady.spec, metadata: { name: `steady-${i}`, labels: {} } }),
            expect: [201],
          };
        default:
          step++;
          return {
            kind: "valid",
            route: "ingest metrics",
            method: "POST",
            target: "/v1/ingest/metrics",
            headers: { ...runToken, ...json },
            body: JSON.stringify({
              run_id: steady.run.runId,
              points: [{ key: "train/loss", step, value: 1 / step }],
            }),
            expect: [200, 201, 202, 204],
          };
      }
    };
    const points = (n: number) =>
      JSON.stringify({
        run_id: steady.run.runId,
        points: Array.from({ length: n }, (_, s) => ({ key: "train/loss", step: s, value: 0.5 })),
      });
    const EARLY: Item[] = [
      {
        kind: "early",
        route: "ingest, JSON body, no token",
        method: "POST",
        target: "/v1/ingest/hparams",
        headers: noToken,
        body: JSON.stringify({ run_id: steady.run.runId, params: { lr: 0.1 } }),
        expect: [401],
      },
      {
        kind: "early",
        route: "ingest, 1 MB JSON body, no token",
        method: "POST",
        target: "/v1/ingest/metrics",
        headers: noToken,
        body: points(20_000),
        expect: [401],
      },
      {
        kind: "early",
        route: "fleet create, JSON body, no auth",
        method: "POST",
        target: "/v1/fleets",
        headers: noToken,
        body: JSON.stringify({ name: "never-created", kind: "process" }),
        expect: [401],
      },
      {
        kind: "early",
        route: "ingest, text/plain body, no token",
        method: "POST",
        target: "/v1/ingest/logs",
        headers: { "content-type": "text/plain", "cf-connecting-ip": steadyAddress },
        body: "a line\nanother\n".repeat(1_000),
        expect: [401],
      },
      {
        kind: "early",
        route: "submit, 2 MiB body (oversized)",
        method: "POST",
        target: "/v1/jobs",
        headers: { ...asSteady, ...json },
        body: JSON.stringify({ ...steady.spec, hyperparams: { pad: "x".repeat(2 * 1024 * 1024) } }),
        expect: [413],
      },
      {
        kind: "early",
        route: "ingest, 17 MiB body (oversized)",
        method: "POST",
        target: "/v1/ingest/logs",
        headers: { ...runToken, ...json },
        body: JSON.stringify({ run_id: steady.run.runId, chunks: ["x".repeat(17 * 1024 * 1024)], seq: 0 }),
        expect: [413],
      },
      {
        kind: "early",
        route: "submit, form body (wrong content type)",
        method: "POST",
        target: "/v1/jobs",
        headers: { ...asSteady, "content-type": "application/x-www-form-urlencoded" },
        body: "name=steady&fleet=fz-steady",
        expect: [400],
      },
      {
        kind: "early",
        route: "HEAD /v1/blobs/true",
        method: "HEAD",
        target: "/v1/blobs/true",
        headers: asSteady,
      },
    ];
    // A valid submit whose admission asks the Hub (stand-in) about its model and dataset.
    const hubSubmit = (i: number): Item => ({
      kind: "valid",
      route: "submit with a Hub model",
      method: "POST",
      target: "/v1/jobs",
      headers: { ...asSteady, ...json },
      body: JSON.stringify({
        ...steady.spec,
        metadata: { name: `steady-hub-${i}`, labels: {} },
        model: { hf_repo: "fz/model", revision: "main" },
        data: { hf_dataset: "fz/data" },
      }),
      expect: [201],
    });
    // A live log tail (an event stream that never ends by itself): cut off after its headers.
    const liveTail: Item = {
      kind: "valid",
      route: "live log tail",
      method: "GET",
      target: `/v1/jobs/${steady.run.jobId}/logs?run=${steady.run.runId}&follow=1`,
      headers: asSteady,
      expect: [200],
      stream: true,
    };
    // The mix: the fuzzed requests in a seeded order, a valid request after every third, an early-refused
    // one after every twentieth, a submit that asks the Hub after every hundredth.
    const mix: Item[] = [];
    let valids = 0;
    let early = 0;
    for (const [i, item] of shuffled(fuzzed, SEED).entries()) {
      mix.push(item);
      if (i % 3 === 2) mix.push(valid(valids++));
      if (i % 20 === 19) mix.push(EARLY[early++ % EARLY.length]!);
      if (i % 100 === 99) mix.push(hubSubmit(i));
      if (i % 50 === 49) mix.push(liveTail);
    }

    const dispatcher = new Agent({
      connections: CONNECTIONS,
      pipelining: 1,
      // undici's default: an idle connection is closed by this side, before the server would.
      keepAliveTimeout: 4_000,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const disconnects: string[] = [];
    let connects = 0;
    dispatcher.on("connect", () => connects++);
    dispatcher.on("disconnect", (_origin, _targets, err) => {
      const e = err as { code?: string; message?: string };
      disconnects.push(`${e.code}: ${e.message}`);
    });
    const started = Date.now();
    let outcomes: Outcome[];
    try {
      outcomes = await sendAll(cp.url, dispatcher, mix, IN_FLIGHT);
    } finally {
      await dispatcher.close();
    }
    const seconds = (Date.now() - started) / 1000;

    // Every answer, judged: all problems collected, then shown together.
    const failures: string[] = [];
    const show = (o: Outcome) =>
      `${o.item.method} ${o.item.target.slice(0, 160)} [${o.item.kind}: ${o.item.route}] → ${
        o.error ?? `${o.answer!.status} ${JSON.stringify(o.answer!.text.slice(0, 200))}`
      } (${Math.round(o.ms)} ms)`;
    for (const o of outcomes) {
      if (o.error) {
        failures.push(`dropped: ${show(o)}`);
        continue;
      }
      if (o.ms > SLOWEST_MS) failures.push(`slower than ${SLOWEST_MS} ms: ${show(o)}`);
      if (o.item.expect && !o.item.expect.includes(o.answer!.status))
        failures.push(`expected ${o.item.expect.join("/")}: ${show(o)}`);
      try {
        expectCodedAnswer(`${o.item.method} ${o.item.target}`, o.item.method, o.answer!, o.item.html);
      } catch (err) {
        failures.push(
          `${o.answer!.status >= 500 ? "5xx" : "uncoded"}: ${show(o)}\n    ${(err as Error).message.split("\n")[0]}`,
        );
      }
    }
    // A connection the server closed is one the next request could have been written to: none may be.
    // Every close is this side's, and explained: undici does not reuse a connection after a HEAD answer
    // (workerd sends it without a length) nor after `Connection: close`; an event stream cut off
    // ("aborted"); an idle connection; the pool's own close at the end. Anything else ("other side
    // closed", ECONNRESET, a reset nothing explains) fails.
    const heads = outcomes.filter((o) => o.answer && o.item.method === "HEAD").length;
    const explained: Record<string, number> = {
      "UND_ERR_INFO: reset": heads + outcomes.filter((o) => o.close).length,
      "UND_ERR_INFO: aborted": outcomes.filter((o) => o.cut).length,
      "UND_ERR_INFO: socket idle timeout": Number.POSITIVE_INFINITY,
      "UND_ERR_DESTROYED: The client is destroyed": Number.POSITIVE_INFINITY,
    };
    for (const [d, n] of tally(disconnects)) {
      const allowed = explained[d] ?? 0;
      if (n > allowed) failures.push(`${n - allowed} connection(s) closed, unexplained: ${d}`);
    }
    for (const o of outcomes)
      if (o.item.stream && o.answer && !o.cut) failures.push(`not an event stream: ${show(o)}`);

    const times = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    const statuses = new Map<number, number>();
    for (const o of outcomes)
      if (o.answer) statuses.set(o.answer.status, (statuses.get(o.answer.status) ?? 0) + 1);
    const covered = new Map<string, number>();
    for (const o of outcomes)
      if (o.item.kind === "fuzz" && o.answer) covered.set(o.item.route, (covered.get(o.item.route) ?? 0) + 1);
    const summary = [
      `seed ${SEED} (replay: SF_SEED=${SEED}${process.env.SF_RUNS ? ` SF_RUNS=${RUNS}` : ""})`,
      `${outcomes.length} requests (${fuzzed.length} fuzzed over ${routes.length} routes, ${RUNS} each; ${
        mix.filter((i) => i.kind === "valid").length
      } valid; ${mix.filter((i) => i.kind === "early").length} refused early) in ${seconds.toFixed(1)} s`,
      `answer time: max ${Math.round(times.at(-1) ?? 0)} ms, p99 ${Math.round(percentile(times, 99))} ms, p50 ${Math.round(percentile(times, 50))} ms`,
      `connections opened ${connects}, closed ${disconnects.length} (${[...tally(disconnects)].map(([d, n]) => `${n}× ${d}`).join("; ")}); answers saying Connection: close ${outcomes.filter((o) => o.close).length}, event streams cut ${outcomes.filter((o) => o.cut).length}`,
      `statuses: ${[...statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(" ")}`,
    ].join("\n  ");
    console.log(`local-stack fuzz:\n  ${summary}`);
    expect(
      failures.length,
      `${failures.length} failures; ${summary}\n${failures.slice(0, 40).join("\n")}`,
    ).toBe(0);
    // Every registered route was sent, each RUNS times (none was lost on the way).
    expect(
      routes.filter((r) => covered.get(r) !== RUNS),
      summary,
    ).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(1_000);
    // The Hub stand-in was asked (the submits' models and datasets): the preflight ran against it.
    expect(hubStub.requests.length, summary).toBeGreaterThan(0);
  });
});
