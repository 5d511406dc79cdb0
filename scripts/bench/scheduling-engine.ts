/**
 * The scheduling benchmark's subjects, bundled by scripts/bench/scheduling.mjs with esbuild: the pure
 * policy (one full pass over a queue) and the Fleet engine's rules over the in-memory ledger (a submit to
 * a steady, full fleet; a full pass forced by a timer). The Durable Object runs the same rules over SQLite.
 */
import { DEFAULT_QUOTA } from "../../contract/api.schema.js";
import type { SubmitInput } from "../../contract/fleet.schema.js";
import { JobSpec } from "../../contract/jobspec.schema.js";
import { decide as decideEvent, type FleetEvent } from "../../durable-objects/fleet/decide.js";
import { MemoryFleetState } from "../../durable-objects/fleet/memory-state.js";
import { decide, type NodeInput, type QueuedJobInput } from "../../durable-objects/fleet/scheduler/policy.js";

const GPUS = 8;
const USERS = 10;
const pools = [{ name: "default", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 1 }] as const;

/**
 * One full pass of the pure policy over `queue` jobs and `nodes` full 8-GPU nodes; milliseconds. With
 * `teams`, the jobs belong to 3 teams that share the fleet's GPUs by guarantees (each a quarter, the rest
 * borrowable): the ordering and the checks of scheduler/teams.ts in every decision.
 */
export function policyPass(queue: number, nodes: number, teams = false): { ms: number; pending: number } {
  const nodeInputs: NodeInput[] = Array.from({ length: nodes }, (_, i) => ({
    id: `nod_${i}`,
    name: `n${String(i).padStart(5, "0")}`,
    series: "h200",
    gpus: GPUS,
    schedulable: true,
    used: Array.from({ length: GPUS }, (_, g) => g),
  }));
  const jobs: QueuedJobInput[] = Array.from({ length: queue }, (_, i) => ({
    id: `job_${i}`,
    userId: `usr_${i % USERS}`,
    priority: i % 2,
    queueSeq: i + 1,
    pools: [...pools],
    ...(teams ? { team: `team_${i % 3}` } : {}),
  }));
  const quarter = Math.floor((nodes * GPUS) / 4);
  const teamInput = teams
    ? {
        quotas: Object.fromEntries(
          [0, 1, 2].map((t) => [
            `team_${t}`,
            { h200: { guaranteed: quarter, borrow_limit: null, lend_limit: null, weight: t + 1 } },
          ]),
        ),
        // The fleet is full: each team holds its guarantee, the rest is borrowed by team_0.
        used: {
          team_0: { h200: nodes * GPUS - 2 * quarter },
          team_1: { h200: quarter },
          team_2: { h200: quarter },
        },
      }
    : undefined;
  const users = Object.fromEntries(
    Array.from({ length: USERS }, (_, u) => [
      `usr_${u}`,
      {
        quota: { ...DEFAULT_QUOTA, max_gpus: 1e6 },
        runningGpus: 0,
        recentGpuSeconds: u * 100,
        gpuSecondsToday: 0,
      },
    ]),
  );
  const t0 = performance.now();
  const d = decide({
    now: Date.UTC(2026, 11, 1),
    draining: null,
    windows: [],
    nodes: nodeInputs,
    queue: jobs,
    users,
    ...(teamInput ? { teams: teamInput } : {}),
  });
  return { ms: performance.now() - t0, pending: Object.keys(d.pending).length };
}

function specFor(fleet: string) {
  return JobSpec.parse({
    api_version: "starforge.dev/v1",
    metadata: { name: "bench", labels: {} },
    recipe: { name: "custom/custom", version: "1.0.0", digest: `sha256:${"a".repeat(64)}` },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: null },
    source: { workspace: null, experiment_dir: "." },
    resources: { fleet, pools: [...pools], roles: {} },
    hyperparams: {},
    provenance: { git_commit: null, git_dirty: false, config_sha: `sha256:${"e".repeat(64)}` },
  });
}

/** The Fleet engine in memory, configured, with `nodes` admin-registered 8-GPU nodes; a clock to move. */
function benchFleet(nodes: number) {
  const s = new MemoryFleetState();
  let seq = 0;
  const clock = { now: Date.UTC(2026, 11, 1, 10), seq: () => seq };
  const ctx = () => ({
    now: clock.now,
    newId: (p: string) => `${p}_${String(++seq).padStart(12, "0")}`,
    settings: { retryBaseMs: 30_000, lostGraceMs: 300_000 },
  });
  const run = <E extends FleetEvent>(e: E) => decideEvent(s, e, ctx());
  run({
    type: "configure",
    config: {
      id: "flt_bench",
      name: "bench",
      kind: "process",
      windows: [],
      draining: false,
      drainNote: null,
    },
  });
  for (let i = 0; i < nodes; i++) {
    run({
      type: "register_node",
      input: { name: `n${String(i).padStart(5, "0")}`, series: "h200", gpus: GPUS, labels: {} },
    });
  }
  return { s, run, clock };
}

/**
 * The Fleet engine in memory with `nodes` admin-registered 8-GPU nodes, all busy, and `queue` jobs
 * waiting. Returns milliseconds per submit decided alone (the fleet is steady), and for one full pass.
 */
export function engineSubmit(
  queue: number,
  nodes: number,
  samples: number,
): { submitMs: number; fullPassMs: number } {
  const { s, run, clock } = benchFleet(nodes);
  const spec = specFor("bench");
  const submitInput = (i: number): SubmitInput => ({
    jobId: `job_${String(i).padStart(8, "0")}`,
    userId: `usr_${i % USERS}`,
    userName: `u${i % USERS}`,
    spec,
    priority: 0,
    quota: { ...DEFAULT_QUOTA, max_gpus: 100_000, max_jobs: 100_000, daily_gpu_hours: 1e6 },
    blobDigests: [],
    capsule: null,
    launch: { entrypoint: { kind: "script", path: "train.sh" }, image: null },
  });
  const submit = (i: number) => {
    clock.now += 1;
    const r = run({ type: "submit" as const, inputs: [submitInput(i)] }).result;
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  };
  // Set-up written straight into the ledger (a fleet that got here through events would be the same):
  // every GPU booked, `queue` jobs waiting.
  for (const n of s.nodes()) {
    for (let g = 0; g < n.gpus; g++)
      s.apply({ kind: "alloc", alloc: { node_id: n.id, idx: g, run_id: `run_fill_${n.id}` } });
  }
  for (let u = 0; u < USERS; u++) {
    s.apply({ kind: "quota", user_id: `usr_${u}`, body: JSON.stringify(submitInput(u).quota) });
  }
  const specJson = JSON.stringify(spec);
  for (let i = 0; i < queue; i++) {
    s.apply({
      kind: "job",
      row: {
        id: `job_${String(i).padStart(8, "0")}`,
        user_id: `usr_${i % USERS}`,
        name: "bench",
        status: "QUEUED",
        priority: 0,
        priority_class: "normal",
        team: null,
        queue_seq: i + 1,
        gpus: 1,
        recipe: "custom/custom@1.0.0",
        spec: specJson,
        pending_reasons: "[]",
        current_run_id: null,
        attempt: 0,
        version: 1,
        event_seq: 0,
        created_at: clock.now,
        updated_at: clock.now,
        capsule: null,
        launch: JSON.stringify({ entrypoint: { kind: "script", path: "train.sh" }, image: null }),
        unconfirmed: 0,
      },
    });
  }
  s.apply({ kind: "meta", key: "queue_seq", value: String(queue) });
  // One full pass (timed): every waiting job gets its reasons, and the fleet is steady.
  const t1 = performance.now();
  run({ type: "timer", id: "schedule" });
  const fullPassMs = performance.now() - t1;
  let i = queue;
  const t0 = performance.now();
  for (let k = 0; k < samples; k++) submit(i++);
  const submitMs = (performance.now() - t0) / samples;
  if (!s.steady) throw new Error("the fleet should have stayed steady: every submit waits for capacity");
  return { submitMs, fullPassMs };
}

/**
 * A submit that must preempt: `nodes` 8-GPU nodes each RUNNING one normal 8-GPU job (resumable, past its
 * minimum runtime), `queue` normal jobs waiting, and a `high` 8-GPU job submitted to the steady fleet: it
 * is decided alone and displaces one of them. Returns milliseconds per such decision.
 */
export function enginePreempt(queue: number, nodes: number, samples: number): { preemptMs: number } {
  const { s, run, clock } = benchFleet(nodes);
  const quota = {
    ...DEFAULT_QUOTA,
    max_gpus: 100_000,
    max_jobs: 100_000,
    daily_gpu_hours: 1e6,
    max_priority_class: "critical",
  };
  const specOf = (gpus: number, priorityClass: string) =>
    JobSpec.parse({
      ...specFor("bench"),
      resources: { fleet: "bench", pools: [{ ...pools[0], gpus_per_node: gpus }], roles: {} },
      lifecycle: { max_retries: 2, retry_on_user_failure: false, priority_class: priorityClass },
    });
  const python = { entrypoint: { kind: "python" as const, module: "charlm.train" }, image: null };
  const submit = (id: string, gpus: number, cls: string) => {
    const r = run({
      type: "submit",
      inputs: [
        {
          jobId: id,
          userId: `usr_${clock.seq() % USERS}`,
          userName: "u",
          spec: specOf(gpus, cls),
          priority: 0,
          quota,
          blobDigests: [],
          capsule: null,
          launch: python,
        },
      ],
    }).result;
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    return r.value.jobs[0]!;
  };
  // Every node runs one normal job, started an hour ago.
  for (let i = 0; i < nodes; i++) {
    const job = submit(`job_run_${String(i).padStart(6, "0")}`, GPUS, "normal");
    const runId = job.current_run_id!;
    run({
      type: "run_event",
      input: {
        runId,
        epoch: s.run(runId)!.epoch,
        rank: 0,
        event: "started",
        exitCode: null,
        reason: null,
        infra: false,
        source: "runner",
      },
    });
  }
  clock.now += 3_600_000;
  for (let i = 0; i < queue; i++) submit(`job_q_${String(i).padStart(8, "0")}`, 1, "normal");
  run({ type: "timer", id: "schedule" });
  if (!s.steady) throw new Error("the fleet should be steady after a full pass");
  let total = 0;
  for (let k = 0; k < samples; k++) {
    clock.now += 61_000; // past the fleet's preemption rate limit
    const t0 = performance.now();
    const job = submit(`job_hi_${String(k).padStart(6, "0")}`, GPUS, "high");
    total += performance.now() - t0;
    if (job.pending_reasons[0]?.code !== "PREEMPTING")
      throw new Error(`no preemption: ${JSON.stringify(job.pending_reasons)}`);
  }
  return { preemptMs: total / samples };
}
