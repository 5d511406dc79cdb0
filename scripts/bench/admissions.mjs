// Admissions into one fleet, as `sf submit` makes them (a JobSpec and a fresh Idempotency-Key per
// request), at several client concurrencies and queue depths, on workerd without wrangler's proxy
// (scripts/bench/workerd.mjs). Baselines measured in the same run, at the same concurrency: a no-op route,
// a no-op Durable Object RPC, a chain of two DO RPCs that each write the JobSpec as one row (the floor of
// an admission: the user's object, then the fleet's) and a one-row D1 write on the same workerd, and
// Slurm's `sbatch --hold`. Also: the D1 transactions per admission (the fleets' own counter), the
// projection lag (201 → the job's row in D1, polled straight from D1), and a 1,000-job array against
// `sbatch --array=0-999`.
//
// Each fleet has two admin-registered 8-GPU nodes, so its first 16 jobs start and every later one waits
// for capacity: the queue a busy fleet has. "Depth" is how many jobs wait in the fleet when a point starts.
// The baselines and the empty-fleet admissions are measured `rounds` times, interleaved, and each is
// reported as its median round (load.mjs medianPoint).
import { jsonClient } from "./latency.mjs";
import { closedLoop, median, medianPoint, request, round } from "./load.mjs";
import { benchUser, charlmSpec, submitRequest } from "./setup.mjs";
import { sbatchArray, sbatchRate, slurmVersion } from "./slurm.mjs";
import { startWorkerd } from "./workerd.mjs";

const log = (m) => process.stderr.write(`bench: ${m}\n`);

/** Requests each measured path (the admissions, every baseline) gets before the first point. */
const WARMUP = 2_000;

/** The sum of metric `name`'s samples whose labels contain `labels` (GET /v1/admin/metrics). */
async function metricSum(w, name, labels = "") {
  const res = await fetch(`${w.url}/v1/admin/metrics`, {
    headers: { authorization: `Bearer ${w.adminToken}` },
  });
  const text = await res.text();
  let n = 0;
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, "gm")))
    if (m[1].includes(labels)) n += Number(m[2]);
  return n;
}

/** D1 batches all fleets' outboxes wrote so far. */
const d1Batches = (w) => metricSum(w, "starforge_outbox_d1_batches_total");

/**
 * Calls the submits into fleet `name` made to its object, per job admitted there (group commit: under
 * 1 when submits shared calls). The counters reach D1 about half a second after the answers.
 */
async function fleetCallsPerAdmission(w, name, expected) {
  const fleet = `fleet="${name}"`;
  let admitted = 0;
  for (let i = 0; i < 50 && admitted < expected; i++) {
    await new Promise((r) => setTimeout(r, 100));
    admitted = await metricSum(w, "starforge_admissions_total", fleet);
  }
  const calls = await metricSum(w, "starforge_fleet_submit_calls_total", fleet);
  return admitted > 0 ? round(calls / admitted, 3) : null;
}

/**
 * Seconds until D1 holds `expected` jobs of fleet `name`: the projection of a point's admissions. Under
 * saturation the local workerd runs no timers (docs/operations.md), so the outbox's flush waits for the
 * load to end; adding this time to the point's gives the rate with the projection paid for.
 */
async function converged(w, name, expected) {
  const t0 = process.hrtime.bigint();
  const count = "SELECT COUNT(*) AS n FROM jobs WHERE fleet_id = (SELECT id FROM fleets WHERE name = ?)";
  for (;;) {
    const { n } = await w.db.first(count, name);
    if (n >= expected) return Number(process.hrtime.bigint() - t0) / 1e9;
    if (Number(process.hrtime.bigint() - t0) > 60e9)
      throw new Error(`D1 holds ${n} of ${expected} jobs of ${name} after 60 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
};

export async function benchAdmissions({
  concurrencies,
  depths,
  requests,
  baselineRequests,
  slurmRequests,
  lagSamples = 200,
  arraySize = 1000,
  rounds = 3,
}) {
  const w = await startWorkerd();
  const api = jsonClient(w.url);
  try {
    // One submitter per concurrency (a quota allows at most 100,000 jobs; the whole run admits more).
    const quota = { max_gpus: 16, max_jobs: 100_000, daily_gpu_hours: 1_000_000 };
    let user = await benchUser(api, w.adminToken, quota, "bench-warm");
    let fleets = 0;
    const newFleet = async () => {
      const name = `bench-${++fleets}`;
      await api(w.adminToken, "POST", "/v1/fleets", { name, kind: "process" });
      for (const n of ["n1", "n2"]) {
        await api(w.adminToken, "POST", `/v1/fleets/${name}/nodes`, {
          name: `${name}-${n}`,
          series: "h200",
          gpus: 8,
        });
      }
      return name;
    };
    const body = (fleet) => JSON.stringify(charlmSpec(user.charlmDigest, fleet));
    let keys = 0;
    const submits = (fleet, concurrency, total) => {
      const b = body(fleet);
      return closedLoop({
        url: `${w.url}/v1/jobs`,
        concurrency,
        total,
        expect: 201,
        make: () => submitRequest(user.token, b, `bench-${++keys}`),
      });
    };

    // Warm-up, on a fleet of its own: every code path compiled and every cache filled, for the admissions
    // and for each baseline. 200 submits were not enough: the first of three rounds at 1 client then ran
    // ~10 % below the third, the two-write chain's too (the runtime optimises hot code after many calls).
    const warm = await newFleet();
    const noopBody = body(warm);
    await submits(warm, 1, WARMUP);
    await submits(warm, 8, WARMUP);
    await closedLoop({ url: `${w.noopUrl}/noop`, concurrency: 1, total: WARMUP, make: () => ({}) });
    for (const path of ["/noop-do", "/chain2", "/noop-d1"])
      await closedLoop({
        url: `${w.noopUrl}${path}`,
        concurrency: 1,
        total: WARMUP,
        expect: 201,
        make: () => ({ method: "POST", body: noopBody }),
      });
    const baselines = { noop_route: {}, noop_do: {}, chain2: {}, noop_d1: {}, slurm: {} };
    const d1 = {};
    const fleetCalls = {};
    const slurm = slurmVersion();
    const admissions = {};
    for (const depth of depths) admissions[depth] = {};

    /** A fresh fleet with `depth` jobs waiting (and its first 16 running), and how many jobs it holds. */
    const filledFleet = async (depth) => {
      const fleet = await newFleet();
      if (depth > 0) {
        log(`  filling a fleet's queue to ${depth} jobs`);
        await submits(fleet, 32, depth + 16);
      }
      return { fleet, depth, held: depth > 0 ? depth + 16 : 0 };
    };

    /** One point of admissions into `f` (a fleet from filledFleet, which it then holds `requests` more). */
    const admissionPoint = async (c, f) => {
      const depthAtStart = f.held === 0 ? 0 : f.held - 16;
      const batchesBefore = await d1Batches(w);
      const point = await submits(f.fleet, c, requests);
      f.held += requests;
      const projectedS = await converged(w, f.fleet, f.held);
      // Settle: what the point admitted reaches D1, then count the batches it took.
      await new Promise((r) => setTimeout(r, 300));
      return {
        ...point,
        depth_at_start: depthAtStart,
        // The same admissions, with the time until D1 held them all (the projection paid for).
        projected_rate: round(requests / (point.seconds + projectedS)),
        d1_per_admission: round(((await d1Batches(w)) - batchesBefore) / requests, 3),
        ...(f.depth === 0
          ? { fleet_calls_per_admission: await fleetCallsPerAdmission(w, f.fleet, requests) }
          : {}),
      };
    };

    /** A point of POSTs of a JobSpec-sized body to a baseline route of the no-op worker. */
    const noopPost = (path, concurrency, total) =>
      closedLoop({
        url: `${w.noopUrl}${path}`,
        concurrency,
        total,
        expect: 201,
        make: () => ({ method: "POST", body: noopBody }),
      });

    for (const c of concurrencies) {
      log(`admissions at concurrency ${c}`);
      user = await benchUser(api, w.adminToken, quota, `bench-c${c}`);
      // The baselines and the admissions into an empty fleet, interleaved, `rounds` times: each figure is
      // its median round, so a ratio compares two medians of the same minutes.
      const samples = { noop_route: [], noop_do: [], chain2: [], noop_d1: [], admissions: [] };
      for (let r = 0; r < rounds; r++) {
        samples.noop_route.push(
          await closedLoop({
            url: `${w.noopUrl}/noop`,
            concurrency: c,
            total: baselineRequests,
            make: () => ({}),
          }),
        );
        samples.noop_do.push(await noopPost("/noop-do", c, baselineRequests));
        samples.chain2.push(await noopPost("/chain2", c, baselineRequests));
        samples.noop_d1.push(await noopPost("/noop-d1", c, Math.min(baselineRequests, requests * 2)));
        samples.admissions.push(await admissionPoint(c, await filledFleet(0)));
        log(
          `  round ${r + 1}: ${samples.admissions.at(-1).rate}/s (chain of two writes: ${samples.chain2.at(-1).rate}/s)`,
        );
      }
      for (const k of ["noop_route", "noop_do", "chain2", "noop_d1"])
        baselines[k][c] = medianPoint(samples[k]);
      admissions[0][c] = medianPoint(samples.admissions);
      d1[c] = median(samples.admissions.map((p) => p.d1_per_admission));
      fleetCalls[c] = median(samples.admissions.map((p) => p.fleet_calls_per_admission ?? Number.NaN));
      // A deep queue: one fleet filled once, then `rounds` points into it (each starts a point deeper), the
      // median round reported as for an empty fleet.
      for (const depth of depths.filter((d) => d > 0)) {
        const f = await filledFleet(depth);
        const points = [];
        for (let r = 0; r < rounds; r++) points.push(await admissionPoint(c, f));
        admissions[depth][c] = medianPoint(points);
        log(`  depth ${depth}: ${admissions[depth][c].rate}/s (p50 ${admissions[depth][c].p50_ms} ms)`);
      }
    }
    // Projection lag: one submit at a time, then D1 polled until the job's row is there.
    log(`projection lag (${lagSamples} submits)`);
    const lagFleet = await newFleet();
    const lagBody = body(lagFleet);
    const agent = new (await import("node:http")).Agent({ keepAlive: true });
    const lags = [];
    for (let i = 0; i < lagSamples; i++) {
      const r = await request(agent, `${w.url}/v1/jobs`, {
        ...submitRequest(user.token, lagBody),
        keepBody: true,
      });
      if (r.status !== 201) throw new Error(`lag submit: ${r.status} ${r.body}`);
      const answered = process.hrtime.bigint();
      const id = JSON.parse(r.body).job.id;
      while (!(await w.db.first("SELECT 1 AS x FROM jobs WHERE id = ?", id)))
        await new Promise((ok) => setImmediate(ok));
      lags.push(Number(process.hrtime.bigint() - answered) / 1e6);
    }
    agent.destroy();
    const projection = {
      samples: lags.length,
      p50_ms: round(percentile(lags, 50)),
      p99_ms: round(percentile(lags, 99)),
      max_ms: round(Math.max(...lags)),
    };

    // A job array of `arraySize`, admitted in one request, all or none.
    log(`a ${arraySize}-job array`);
    const arrayFleet = await newFleet();
    const spec = charlmSpec(user.charlmDigest, arrayFleet);
    const arrayBody = JSON.stringify({
      jobs: Array.from({ length: arraySize }, (_, i) => ({
        ...spec,
        metadata: { ...spec.metadata, name: `arr-${i}` },
      })),
    });
    const arrayAgent = new (await import("node:http")).Agent({ keepAlive: true });
    const arr = await request(arrayAgent, `${w.url}/v1/jobs`, {
      ...submitRequest(user.token, arrayBody),
      keepBody: true,
    });
    arrayAgent.destroy();
    if (arr.status !== 201) throw new Error(`job array: ${arr.status} ${arr.body.slice(0, 500)}`);
    const array = { jobs: JSON.parse(arr.body).jobs.length, ms: round(arr.ms), slurm: null };

    // Slurm last: cancelling its held jobs keeps slurmctld busy for a while, which must not overlap ours.
    if (slurm) {
      for (const c of concurrencies) {
        log(`Slurm sbatch --hold at concurrency ${c}`);
        const points = [];
        for (let r = 0; r < rounds; r++)
          points.push(await sbatchRate({ concurrency: c, total: slurmRequests }));
        baselines.slurm[c] = medianPoint(points);
      }
      log(`Slurm sbatch --array=0-${arraySize - 1}`);
      array.slurm = await sbatchArray(arraySize);
    }
    return {
      tool: "closed-loop HTTP clients (node:http keep-alive) on loopback; workerd via Miniflare, no wrangler proxy",
      warmup_requests: WARMUP,
      requests_per_point: requests,
      baseline_requests_per_point: baselineRequests,
      rounds,
      slurm: slurm ?? null,
      concurrencies,
      depths,
      admissions,
      baselines,
      d1_batches_per_admission: d1,
      fleet_calls_per_admission: fleetCalls,
      projection,
      array,
    };
  } finally {
    await w.stop();
  }
}
