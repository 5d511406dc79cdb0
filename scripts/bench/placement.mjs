// Placement over several fleets (docs/scheduling.md "Placement over several fleets"): admissions/s of
// jobs that name 1 fleet (`resources.fleet`, the baseline), 3 and 10 (`resources.fleets`), interleaved in
// rounds on the same workerd, and what placing adds to a submit's latency. Each of the 10 fleets has two
// admin-registered 8-GPU nodes and publishes its capacity summary, which the Worker reads (at most once a
// second per isolate) to rank the candidates; the placed jobs are also what each holding fleet's
// re-routing check looks at every 2 s while they wait.
import { jsonClient } from "./latency.mjs";
import { closedLoop, medianPoint, round } from "./load.mjs";
import { benchFleet, benchUser, charlmSpec, submitRequest } from "./setup.mjs";
import { startWorkerd } from "./workerd.mjs";

const FLEETS = 10;
const CANDIDATES = [1, 3, 10];

/** A one-GPU charlm JobSpec naming the first `k` fleets (k = 1: `resources.fleet`, the baseline). */
function specFor(digest, names, k) {
  const spec = charlmSpec(digest, names[0]);
  if (k === 1) return spec;
  const { fleet: _one, ...resources } = spec.resources;
  return { ...spec, resources: { ...resources, fleets: names.slice(0, k) } };
}

export async function benchPlacement({ requests, concurrency, rounds, warmup }) {
  const w = await startWorkerd();
  const api = jsonClient(w.url);
  try {
    const user = await benchUser(api, w.adminToken, {
      max_gpus: 100_000,
      max_jobs: 100_000,
      daily_gpu_hours: 1e6,
    });
    const names = Array.from({ length: FLEETS }, (_, i) => `bench-pl-${i}`);
    for (const name of names) await benchFleet(api, w.adminToken, name);
    // Every fleet's summary published (at most twice a second each) and read by the isolate.
    await new Promise((r) => setTimeout(r, 1500));
    let keys = 0;
    const point = (k, total) => {
      const body = JSON.stringify(specFor(user.charlmDigest, names, k));
      return closedLoop({
        url: `${w.url}/v1/jobs`,
        concurrency,
        total,
        expect: 201,
        make: () => submitRequest(user.token, body, `bench-pl-${++keys}`),
      });
    };
    for (const k of CANDIDATES) await point(k, warmup);
    const samples = Object.fromEntries(CANDIDATES.map((k) => [k, []]));
    for (let r = 0; r < rounds; r++) for (const k of CANDIDATES) samples[k].push(await point(k, requests));
    const points = Object.fromEntries(CANDIDATES.map((k) => [k, medianPoint(samples[k])]));
    const base = points[1];
    return {
      fleets: FLEETS,
      requests_per_point: requests,
      concurrency,
      rounds,
      warmup_requests: warmup,
      points,
      vs_single: Object.fromEntries(CANDIDATES.map((k) => [k, round(points[k].rate / base.rate, 3)])),
      // What ranking the candidates adds to a submit: the placed submit's median latency over the single one's.
      placement_ms: Object.fromEntries(CANDIDATES.map((k) => [k, round(points[k].p50_ms - base.p50_ms, 2)])),
    };
  } finally {
    await w.stop();
  }
}
