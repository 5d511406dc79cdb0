// Admissions into one fleet, as `sf submit` makes them (a JobSpec and a fresh Idempotency-Key per
// request), at several client concurrencies and queue depths, on workerd without wrangler's proxy
// (scripts/bench/workerd.mjs). Baselines measured in the same run, at the same concurrency: a no-op route,
// a no-op Durable Object RPC and a one-row D1 write on the same workerd, and Slurm's `sbatch --hold`.
//
// Each fleet has two admin-registered 8-GPU nodes, so its first 16 jobs start and every later one waits
// for capacity: the queue a busy fleet has. "Depth" is how many jobs wait in the fleet when a point starts.
import http from "node:http";
import { closedLoop, request } from "./load.mjs";
import { sbatchRate, slurmVersion } from "./slurm.mjs";
import { startWorkerd } from "./workerd.mjs";

const log = (m) => process.stderr.write(`bench: ${m}\n`);

async function client(w) {
  const agent = new http.Agent({ keepAlive: true });
  return async (token, method, path, body) => {
    const r = await request(agent, w.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      keepBody: true,
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
    return JSON.parse(r.body);
  };
}

export async function benchAdmissions({ concurrencies, depths, requests, baselineRequests, slurmRequests }) {
  const w = await startWorkerd();
  const api = await client(w);
  try {
    const user = await api(w.adminToken, "POST", "/v1/users", {
      name: "bench",
      role: "operator",
      with_token: true,
    });
    await api(w.adminToken, "PUT", "/v1/users/bench/quota", {
      max_gpus: 16,
      max_jobs: 100_000,
      daily_gpu_hours: 1_000_000,
    });
    const catalog = await api(user.token, "GET", "/v1/catalog");
    const digest = catalog.recipes.find((r) => r.name === "python/charlm").versions[0].digest;
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
    const body = (fleet) =>
      JSON.stringify({
        api_version: "starforge.dev/v1",
        metadata: { name: "bench", labels: {} },
        recipe: { name: "python/charlm", version: "1.0.0", digest },
        framework: { kind: "python", version: "3", runtime_id: "python3-stdlib" },
        source: { workspace: null, experiment_dir: "." },
        resources: {
          fleet,
          pools: [{ name: "default", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 1 }],
          roles: {},
        },
        hyperparams: {},
        provenance: { git_commit: "0123abcd", git_dirty: false, config_sha: `sha256:${"e".repeat(64)}` },
      });
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
