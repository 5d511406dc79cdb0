// Submit → RUNNING as a user sees it: `npm start`'s own control plane (scripts/start.mjs, wrangler dev) with
// its local forgelet (process runtime, simulated GPUs) running python/charlm for real, the job's status
// polled every 5 ms. Baseline: Slurm's `sbatch` of a sleeping job on the cluster of scripts/start-slurm.sh,
// its state polled with squeue every 5 ms. One job at a time; each is stopped (cancelled) before the next.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startControlPlane } from "./cli.mjs";
import { jsonClient } from "./latency.mjs";
import { percentiles } from "./load.mjs";
import { benchUser, charlmSpec } from "./setup.mjs";

const STATE = process.env.SF_SLURM_STATE || "/var/lib/starforge-ci/slurm";
const slurmEnv = () => ({ ...process.env, SLURM_CONF: process.env.SLURM_CONF || `${STATE}/slurm.conf` });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function benchRunning({ samples, slurm }) {
  const tmp = mkdtempSync(join(tmpdir(), "sf-bench-running-"));
  const cp = await startControlPlane(join(tmp, "state"), { agent: true });
  try {
    const api = jsonClient(cp.url);
    const user = await benchUser(api, cp.token, { max_gpus: 16, max_jobs: 1000, daily_gpu_hours: 10_000 });
    const spec = charlmSpec(user.charlmDigest, "local", { max_steps: 1_000_000 });
    // The local agent must be connected before the first sample.
    for (const deadline = Date.now() + 60_000; ; ) {
      const f = await api(cp.token, "GET", "/v1/fleets/local");
      if (f.totals?.gpus > 0) break;
      if (Date.now() > deadline) throw new Error("npm start's local agent never connected");
      await sleep(100);
    }
    // The same job placed over two fleets (`resources.fleets`): the second has no node, so the Worker's
    // placement reads both summaries and chooses the first; the path to RUNNING is otherwise the same.
    await api(cp.token, "POST", "/v1/fleets", { name: "bench-elsewhere", kind: "process" });
    const { fleet: _local, ...resources } = spec.resources;
    const placedSpec = { ...spec, resources: { ...resources, fleets: ["local", "bench-elsewhere"] } };
    const ours = await submitToRunning(api, cp, user, spec, samples);
    const placed = await submitToRunning(api, cp, user, placedSpec, samples);
    const result = {
      tool: "status polled every 5 ms; npm start (wrangler dev) with its local forgelet, process runtime",
      samples,
      ...percentiles(ours),
      placed: percentiles(placed),
      preemption: await preemptionLatency(api, cp.token, user, samples),
    };
    if (slurm)
      result.slurm = {
        tool: "sbatch --wrap 'sleep 60', squeue polled every 5 ms",
        samples,
        ...percentiles(await slurmRunning(samples)),
      };
    return result;
  } finally {
    await cp.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function waitStatus(api, token, id, statuses) {
  for (const deadline = Date.now() + 90_000; ; ) {
    const s = (await api(token, "GET", `/v1/jobs/${id}`)).job.status;
    if (statuses.includes(s)) return;
    if (Date.now() > deadline) throw new Error(`job ${id} is ${s}, not ${statuses.join("/")}, after 90 s`);
    await sleep(5);
  }
}

/**
 * Preemption as users see it (docs/scheduling.md): a `low` charlm job holds every GPU of the local agent;
 * a `high` one is submitted. Per sample: submit → the victim's job is QUEUED again (the decision, its stop
 * sent to its agent), and submit → the preemptor RUNNING (the victim checkpointed on SIGTERM and exited,
 * its GPUs went to the preemptor, which launched). Each sample has a victim of its own (a job preempted
 * three times waits for a new checkpoint before it is chosen again), and a fleet starts at most 10
 * preemptions a minute: at most 9 samples after the warm-up.
 */
async function preemptionLatency(api, adminToken, user, wanted) {
  await api(adminToken, "PUT", "/v1/priority-classes/low", { min_runtime_seconds: 0 });
  await api(adminToken, "PUT", "/v1/users/bench/quota", {
    max_gpus: 16,
    max_jobs: 1000,
    daily_gpu_hours: 10_000,
    max_priority_class: "high",
  });
  const samples = Math.min(wanted, 9);
  const gpus = (await api(adminToken, "GET", "/v1/fleets/local")).totals.gpus;
  const spec = (cls) => {
    const s = charlmSpec(user.charlmDigest, "local", { max_steps: 1_000_000 });
    s.resources.pools[0].gpus_per_node = gpus;
    s.lifecycle = { max_retries: 0, retry_on_user_failure: false, priority_class: cls };
    return s;
  };
  const stopped = async (id) => {
    await api(user.token, "POST", `/v1/jobs/${id}/stop`, {});
    await waitStatus(api, user.token, id, ["STOPPED"]);
  };
  const decided = [];
  const running = [];
  for (let i = 0; i < samples + 1; i++) {
    const { job: low } = await api(user.token, "POST", "/v1/jobs", spec("low"));
    await waitStatus(api, user.token, low.id, ["RUNNING"]);
    await sleep(200); // past its start: the capsule checks done, training
    const t0 = performance.now();
    const { job: high } = await api(user.token, "POST", "/v1/jobs", spec("high"));
    await waitStatus(api, user.token, low.id, ["QUEUED", "PAUSED"]);
    const t1 = performance.now();
    await waitStatus(api, user.token, high.id, ["RUNNING"]);
    const t2 = performance.now();
    if (i > 0) {
      decided.push(t1 - t0);
      running.push(t2 - t0);
    }
    await stopped(low.id);
    await stopped(high.id);
  }
  return {
    tool: "a low charlm job on every GPU of the local agent, a high one submitted; status polled every 5 ms",
    samples,
    victim_stopped: percentiles(decided),
    preemptor_running: percentiles(running),
  };
}

async function slurmRunning(samples) {
  const name = `sf-bench-run-${process.pid}`;
  const ms = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const r = spawnSync("sbatch", ["--parsable", "-J", name, "-o", "/dev/null", "--wrap", "sleep 60"], {
      env: slurmEnv(),
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`sbatch: ${r.stderr}`);
    const id = r.stdout.trim().split(";")[0];
    for (const deadline = Date.now() + 120_000; ; ) {
      const q = spawnSync("squeue", ["-h", "-j", id, "-o", "%T"], { env: slurmEnv(), encoding: "utf8" });
      if (q.stdout.trim() === "RUNNING") break;
      if (Date.now() > deadline) throw new Error(`Slurm job ${id} never ran`);
      await sleep(5);
    }
    ms.push(performance.now() - t0);
    spawnSync("scancel", [id], { env: slurmEnv() });
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const q = spawnSync("squeue", ["-h", "-j", id, "-o", "%T"], { env: slurmEnv(), encoding: "utf8" });
      if (q.stdout.trim() === "" || q.status !== 0) break;
      await sleep(50);
    }
  }
  return ms;
}

/** Submit → RUNNING of `spec`, `samples` times (after one warm-up), each job stopped before the next. */
async function submitToRunning(api, cp, user, spec, samples) {
  const ours = [];
  for (let i = 0; i < samples + 1; i++) {
    const t0 = performance.now();
    const { job } = await api(user.token, "POST", "/v1/jobs", spec);
    for (const deadline = Date.now() + 60_000; ; ) {
      const s = (await api(user.token, "GET", `/v1/jobs/${job.id}`)).job.status;
      if (s === "RUNNING") break;
      if (["FAILED", "STOPPED", "SUCCEEDED"].includes(s) || Date.now() > deadline)
        throw new Error(`job ${job.id} ended ${s} before it ran`);
      await sleep(5);
    }
    if (i > 0) ours.push(performance.now() - t0); // the first one warms up the agent and the capsule cache
    await api(user.token, "POST", `/v1/jobs/${job.id}/stop`, {});
    for (
      const deadline = Date.now() + 60_000;
      (await api(cp.token, "GET", "/v1/fleets/local")).totals.allocated > 0;
    ) {
      if (Date.now() > deadline) throw new Error(`job ${job.id}'s GPU was not released`);
      await sleep(20);
    }
  }
  return ours;
}
