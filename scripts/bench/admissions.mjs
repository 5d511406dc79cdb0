// Admissions into one fleet, as `sf submit` makes them (a JobSpec and a fresh Idempotency-Key per
// request), at several client concurrencies and queue depths, on workerd without wrangler's proxy
// (scripts/bench/workerd.mjs). Baselines measured in the same run, at the same concurrency: a no-op route,
// a no-op Durable Object RPC and a one-row D1 write on the same workerd, and Slurm's `sbatch --hold`.
//
// Each fleet has two admin-registered 8-GPU nodes, so its first 16 jobs start and every later one waits
// for capacity: the queue a busy fleet has. "Depth" is how many jobs wait in the fleet when a point starts.
import { jsonClient } from "./latency.mjs";
import { closedLoop } from "./load.mjs";
import { benchUser, charlmSpec } from "./setup.mjs";
import { sbatchRate, slurmVersion } from "./slurm.mjs";
import { startWorkerd } from "./workerd.mjs";

const log = (m) => process.stderr.write(`bench: ${m}\n`);

export async function benchAdmissions({ concurrencies, depths, requests, baselineRequests, slurmRequests }) {
  const w = await startWorkerd();
  const api = jsonClient(w.url);
  try {
    const user = await benchUser(api, w.adminToken, {
      max_gpus: 16,
      max_jobs: 100_000,
      daily_gpu_hours: 1_000_000,
    });
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
        make: () => ({
          method: "POST",
          headers: {
            authorization: `Bearer ${user.token}`,
            "content-type": "application/json",
            "idempotency-key": `bench-${++keys}`,
          },
          body: b,
        }),
      });
    };

    // Warm-up: every code path compiled, every cache filled, on a fleet of its own.
    const warm = await newFleet();
    await submits(warm, 8, 200);
    const noopBody = body(warm);
    const baselines = { noop_route: {}, noop_do: {}, noop_d1: {}, slurm: {} };
    const slurm = slurmVersion();
    const admissions = {};
    for (const depth of depths) admissions[depth] = {};

    for (const c of concurrencies) {
      log(`admissions at concurrency ${c}`);
      baselines.noop_route[c] = await closedLoop({
        url: `${w.noopUrl}/noop`,
        concurrency: c,
        total: baselineRequests,
        make: () => ({}),
      });
      baselines.noop_do[c] = await closedLoop({
        url: `${w.noopUrl}/noop-do`,
        concurrency: c,
        total: baselineRequests,
        expect: 201,
        make: () => ({ method: "POST", body: noopBody }),
      });
      baselines.noop_d1[c] = await closedLoop({
        url: `${w.noopUrl}/noop-d1`,
        concurrency: c,
        total: Math.min(baselineRequests, requests * 2),
        expect: 201,
        make: () => ({ method: "POST", body: noopBody }),
      });
      for (const depth of depths) {
        const fleet = await newFleet();
        if (depth > 0) {
          log(`  filling a fleet's queue to ${depth} jobs`);
          await submits(fleet, 32, depth + 16);
        }
        admissions[depth][c] = { ...(await submits(fleet, c, requests)), depth_at_start: depth };
        log(`  depth ${depth}: ${admissions[depth][c].rate}/s (p50 ${admissions[depth][c].p50_ms} ms)`);
      }
    }
    // Slurm last: cancelling its held jobs keeps slurmctld busy for a while, which must not overlap ours.
    if (slurm) {
      for (const c of concurrencies) {
        log(`Slurm sbatch --hold at concurrency ${c}`);
        baselines.slurm[c] = await sbatchRate({ concurrency: c, total: slurmRequests });
      }
    }
    return {
      tool: "closed-loop HTTP clients (node:http keep-alive) on loopback; workerd via Miniflare, no wrangler proxy",
      warmup_requests: 200,
      requests_per_point: requests,
      baseline_requests_per_point: baselineRequests,
      slurm: slurm ?? null,
      concurrencies,
      depths,
      admissions,
      baselines,
    };
  } finally {
    await w.stop();
  }
}
