/**
 * The Slurm runtime's pure parts: every Slurm job state mapped to what the agent reports, raw wait
 * statuses, GRES and node states, the v0.0.38 request and answer shapes (against a submission and a job
 * captured from Debian's slurmrestd 22.05.8: test/fixtures/slurm), and the rendered batch job.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envFile } from "../../forgelet/runtimes/pull.js";
import { nodeState, parseGres } from "../../forgelet/runtimes/slurm/api.js";
import {
  batchScript,
  renderSubmission,
  runIdOfJobName,
  type SlurmRunPlan,
  slurmJobName,
} from "../../forgelet/runtimes/slurm/render.js";
import { exitCodeOf, live, observe } from "../../forgelet/runtimes/slurm/states.js";
import {
  groupJobs,
  jobInfo,
  jobProperties,
  nodeInfo,
  submitBody,
} from "../../forgelet/runtimes/slurm/v0038.js";

const samples = JSON.parse(
  readFileSync(join(import.meta.dirname, "../fixtures/slurm/rest-samples-v0.0.38.json"), "utf8"),
) as Record<string, Record<string, unknown>>;

const job = (state: string, reason = "None", exitStatus: number | null = 0) => ({
  id: 42,
  name: "sf-run_x",
  comment: "",
  state,
  reason,
  exitStatus,
  nodes: "sf-n1",
});

describe("Slurm job states", () => {
  it("a waiting job shows Slurm's pending reason", () => {
    expect(observe(job("PENDING", "Resources"))).toMatchObject({ phase: "waiting", reason: "Resources" });
    expect(observe(job("PENDING", "ReqNodeNotAvail, UnavailableNodes:sf-n2"))).toMatchObject({
      reason: "ReqNodeNotAvail, UnavailableNodes:sf-n2",
    });
    expect(observe(job("PENDING", "None")).reason).toBe("submitted");
    expect(observe(job("CONFIGURING")).phase).toBe("waiting");
    expect(observe(job("REQUEUED")).phase).toBe("waiting");
  });

  it("running and its transitional states are running", () => {
    for (const s of ["RUNNING", "COMPLETING", "SUSPENDED", "SIGNALING", "STAGE_OUT"]) {
      expect(observe(job(s)).phase, s).toBe("running");
    }
  });

  it("every end keeps Slurm's words and exit code; the cluster's failures are infrastructure", () => {
    const cases: Array<[string, number, boolean, RegExp]> = [
      ["COMPLETED", 0, false, /^Slurm job 42 completed$/],
      ["FAILED", 768, false, /failed \(exit code 3\)/],
      ["TIMEOUT", 15, false, /time limit \(TIMEOUT\)/],
      ["DEADLINE", 15, false, /DEADLINE/],
      ["NODE_FAIL", 9, true, /lost a node \(NODE_FAIL\)/],
      ["BOOT_FAIL", 0, true, /BOOT_FAIL/],
      ["PREEMPTED", 15, true, /PREEMPTED/],
      ["OUT_OF_MEMORY", 9, true, /OUT_OF_MEMORY/],
      ["CANCELLED", 15, true, /cancelled in Slurm/],
      ["SOMETHING_NEW", 0, true, /does not know \(SOMETHING_NEW\)/],
    ];
    for (const [state, status, infra, says] of cases) {
      const o = observe(job(state, "None", status));
      expect(o.phase, state).toBe("ended");
      expect(o.infra, state).toBe(infra);
      expect(o.reason, state).toMatch(says);
      expect(o.exitCode, state).toBe(exitCodeOf(status));
    }
    expect(observe(job("FAILED", "NonZeroExitCode", 256)).reason).toBe("Slurm job 42 failed (exit code 1)");
  });

  it("raw wait statuses become shell exit codes", () => {
    expect([exitCodeOf(0), exitCodeOf(768), exitCodeOf(9), exitCodeOf(15), exitCodeOf(null)]).toEqual([
      0,
      3,
      137,
      143,
      null,
    ]);
  });
});

describe("Slurm nodes", () => {
  it("reads GPU counts and types from GRES strings", () => {
    expect(parseGres("gpu:4")).toEqual({ count: 4, type: null });
    expect(parseGres("gpu:a100:8(S:0-1)")).toEqual({ count: 8, type: "a100" });
    expect(parseGres("gpu:h100:4,gpu:h100:4")).toEqual({ count: 8, type: "h100" });
    expect(parseGres("shard:8,gpu:l40s:2")).toEqual({ count: 2, type: "l40s" });
    expect(parseGres("")).toEqual({ count: 0, type: null });
  });

  it("only idle/mixed/allocated nodes without a drain or failure flag take new runs", () => {
    expect(nodeState("idle", [])).toBe("ready");
    expect(nodeState("mixed", [])).toBe("ready");
    expect(nodeState("allocated", [])).toBe("ready");
    expect(nodeState("idle", ["DRAIN"])).toBe("drain");
    expect(nodeState("mixed", ["DRAIN"])).toBe("drain");
    expect(nodeState("down", [])).toBe("down");
    expect(nodeState("idle", ["NOT_RESPONDING"])).toBe("down");
    expect(nodeState("down", ["DRAIN"])).toBe("down");
  });

  it("v0.0.38 node objects", () => {
    const n = nodeInfo({
      name: "sf-n2",
      hostname: "vm",
      address: "10.0.0.2",
      state: "idle",
      state_flags: ["DRAIN"],
      reason: "bad fan",
      gres: "gpu:a100:4",
      partitions: ["gpu"],
      cpus: 64,
      real_memory: 512000,
    });
    expect(n).toEqual({
      name: "sf-n2",
      address: "10.0.0.2",
      hostname: "vm",
      state: "drain",
      slurmState: "idle+DRAIN",
      reason: "bad fan",
      gpus: 4,
      gpuType: "a100",
      partitions: ["gpu"],
      cpus: 64,
      memoryMb: 512000,
    });
  });
});

describe("v0.0.38 shapes (captured from slurmrestd 22.05.8)", () => {
  it("reads a captured job", () => {
    const captured = samples["GET /slurm/v0.0.38/job/{id} response (COMPLETED, full)"]!;
    const j = jobInfo((captured.jobs as Array<Record<string, unknown>>)[0]!);
    expect(j).toMatchObject({ id: 3, name: "sample", state: "COMPLETED", exitStatus: 0 });
    expect(observe(j)).toMatchObject({ phase: "ended", exitCode: 0, infra: false });
  });

  it("renders the job properties a captured submission used, plus the pinning and the task layout", () => {
    const request = samples["POST /slurm/v0.0.38/job/submit request"]!.job as Record<string, unknown>;
    const props = jobProperties({
      script: "#!/bin/bash\n",
      name: "sample",
      comment: "c",
      environment: { PATH: "/usr/bin:/bin" },
      cwd: "/var/lib/sf-slurm/jobs",
      stdout: "/var/lib/sf-slurm/jobs/%j.out",
      stderr: "/var/lib/sf-slurm/jobs/%j.err",
      components: [{ nodelist: ["sf-n1", "sf-n2"], gpusPerNode: 1, cpusPerTask: 4, memoryPerNodeMb: 64_000 }],
      timeLimitMinutes: 5,
      partition: "gpu",
      account: null,
      qos: null,
    });
    for (const k of [
      "name",
      "current_working_directory",
      "standard_output",
      "standard_error",
      "time_limit",
      "gres",
    ]) {
      expect(props[k], k).toEqual(request[k]);
    }
    expect(props).toMatchObject({
      nodes: [2, 2],
      nodelist: "sf-n1,sf-n2",
      tasks: 2,
      tasks_per_node: 1,
      partition: "gpu",
      // The node's share of CPUs and memory is asked for.
      cpus_per_task: 4,
      memory_per_node: 64_000,
    });
    expect(props).not.toHaveProperty("account");
    // v0.0.38 reads any `requeue` as true: never sent (a requeued job is cancelled by the runtime).
    expect(props).not.toHaveProperty("requeue");
    expect(typeof props.environment).toBe("object");
  });
});

const plan = (over: Partial<SlurmRunPlan> = {}): SlurmRunPlan => ({
  runId: "run_01abc",
  jobId: "job_01abc",
  attempt: 2,
  epoch: 3,
  components: [
    {
      pool: "default",
      ranks: [
        { rank: 1, node: "gpu-b", runDir: "/shared/sf/run_01abc-r1" },
        { rank: 0, node: "gpu-a", runDir: "/shared/sf/run_01abc-r0" },
      ],
      gpusPerNode: 8,
    },
  ],
  maxRuntimeSeconds: 3601,
  partition: "gpu",
  account: "ml",
  qos: null,
  path: "/usr/bin:/bin",
  ...over,
});

describe("the rendered batch job", () => {
  it("is one job for every rank, pinned in node-rank order, named and commented by the run", () => {
    const sub = renderSubmission(plan());
    expect(sub).toMatchObject({
      name: "sf-run_01abc",
      comment: "starforge run=run_01abc job=job_01abc epoch=3",
      components: [
        { nodelist: ["gpu-a", "gpu-b"], gpusPerNode: 8, cpusPerTask: null, memoryPerNodeMb: null },
      ],
      timeLimitMinutes: 61,
      partition: "gpu",
      account: "ml",
      cwd: "/shared/sf/run_01abc-r0",
      stdout: "/shared/sf/run_01abc-r0/.starforge/slurm-%j.out",
    });
    expect(sub.environment).toEqual({ PATH: "/usr/bin:/bin", SF_RUN_ID: "run_01abc" });
    expect(renderSubmission(plan({ maxRuntimeSeconds: null })).timeLimitMinutes).toBeNull();
    expect(renderSubmission(plan({ maxRuntimeSeconds: 1 })).timeLimitMinutes).toBe(1);
    expect(runIdOfJobName(slurmJobName("run_01abc"))).toBe("run_01abc");
    expect(runIdOfJobName("somebody-elses-job")).toBeNull();
  });

  it("carries a job's secrets in the submission's environment only, never in the script", () => {
    const sub = renderSubmission(plan({ secrets: { HF_TOKEN: "hf_value_123456" } }));
    expect(sub.environment).toEqual({
      HF_TOKEN: "hf_value_123456",
      PATH: "/usr/bin:/bin",
      SF_RUN_ID: "run_01abc",
    });
    expect(sub.script).not.toContain("hf_value_123456");
    // A secret cannot shadow what the job itself needs.
    const shadow = renderSubmission(plan({ secrets: { PATH: "/evil", SF_RUN_ID: "x" } }));
    expect(shadow.environment).toEqual({ PATH: "/usr/bin:/bin", SF_RUN_ID: "run_01abc" });
  });

  it("refuses two ranks on one node rather than render a job that cannot tell them apart", () => {
    expect(() =>
      renderSubmission(
        plan({
          components: [
            {
              pool: "default",
              ranks: [
                { rank: 0, node: "gpu-a", runDir: "/s/r0" },
                { rank: 1, node: "gpu-a", runDir: "/s/r1" },
              ],
              gpusPerNode: 1,
            },
          ],
        }),
      ),
    ).toThrow(/share a Slurm node/);
  });

  it("runs each node's own rank with its environment and records its exit code (bash, for real)", () => {
    const dir = mkdtempSync(join(tmpdir(), "sf-slurm-render-"));
    const ranks = [0, 1].map((rank) => ({ rank, node: `n${rank}`, runDir: join(dir, `r${rank}`) }));
    for (const r of ranks) {
      spawnSync("mkdir", ["-p", join(r.runDir, ".starforge", "capsule")]);
      writeFileSync(
        join(r.runDir, ".starforge", "capsule", "bootstrap.sh"),
        'echo "rank=$FORGE_RANK root=$FORGE_RUN_ROOT msg=$MSG"; exit $((FORGE_RANK + 3))\n',
      );
      writeFileSync(
        join(r.runDir, ".starforge", "env.sh"),
        envFile({ FORGE_RANK: String(r.rank), MSG: `it's "q" $HOME \`x\`` }),
      );
    }
    // The step exactly as srun runs it: `bash -c "$SF_STEP"` with SLURMD_NODENAME set.
    const script = batchScript(plan({ components: [{ pool: "default", ranks, gpusPerNode: 1 }] }));
    const step = /read -r -d '' SF_STEP <<'SF_STEP_EOF'\n([\s\S]*?)\nSF_STEP_EOF/.exec(script)![1]!;
    for (const r of ranks) {
      const res = spawnSync("bash", ["-c", step], {
        env: { PATH: "/usr/bin:/bin", SLURMD_NODENAME: r.node },
        encoding: "utf8",
      });
      expect(res.stdout.trim()).toBe(`rank=${r.rank} root=${r.runDir} msg=it's "q" $HOME \`x\``);
      expect(res.status).toBe(r.rank + 3);
      expect(readFileSync(join(r.runDir, ".starforge", "exit_code"), "utf8")).toBe(String(r.rank + 3));
    }
    const stranger = spawnSync("bash", ["-c", step], {
      env: { PATH: "/usr/bin:/bin", SLURMD_NODENAME: "other" },
      encoding: "utf8",
    });
    expect(stranger.status).toBe(70);
    expect(stranger.stderr).toContain("node other is not in this run's placement");
    expect(script).toMatch(/\nexec srun --ntasks-per-node=1 --kill-on-bad-exit=1 bash -c "\$SF_STEP"\n$/);
  });
});

/** A captured answer's job entries. */
const entries = (key: string) => samples[key]!.jobs as Array<Record<string, unknown>>;

describe("a heterogeneous job (several pools): captured from slurmrestd 22.05.8", () => {
  const twoPools = (over: Partial<SlurmRunPlan> = {}) =>
    plan({
      components: [
        {
          pool: "trainer",
          ranks: [
            { rank: 1, node: "gpu-b", runDir: "/shared/sf/run_01abc-r1" },
            { rank: 0, node: "gpu-a", runDir: "/shared/sf/run_01abc-r0" },
          ],
          gpusPerNode: 8,
          cpusPerTask: 32,
          memoryPerNodeMb: 500_000,
        },
        {
          pool: "rollout",
          ranks: [{ rank: 2, node: "gpu-c", runDir: "/shared/sf/run_01abc-r2" }],
          gpusPerNode: 2,
        },
      ],
      ...over,
    });

  it("is submitted as `jobs`, a component per pool with its own nodes and share, the fields a captured submission used", () => {
    const sub = renderSubmission(twoPools());
    const body = submitBody(sub);
    expect(body).not.toHaveProperty("job");
    const [trainer, rollout] = body.jobs as Array<Record<string, unknown>>;
    expect(trainer).toMatchObject({
      nodes: [2, 2],
      nodelist: "gpu-a,gpu-b",
      tasks: 2,
      gres: "gpu:8",
      cpus_per_task: 32,
      memory_per_node: 500_000,
      name: "sf-run_01abc",
      comment: "starforge run=run_01abc job=job_01abc epoch=3",
      time_limit: 61,
      partition: "gpu",
    });
    expect(rollout).toMatchObject({
      nodes: [1, 1],
      nodelist: "gpu-c",
      tasks: 1,
      gres: "gpu:2",
      name: "sf-run_01abc",
    });
    expect(rollout).not.toHaveProperty("cpus_per_task");
    // The keys of each component are those slurmrestd accepted in the captured heterogeneous submission.
    const captured = samples["POST /slurm/v0.0.38/job/submit request (heterogeneous, two components)"]!;
    const accepted = new Set(
      (captured.jobs as Array<Record<string, unknown>>).flatMap((c) => Object.keys(c)),
    );
    for (const k of Object.keys(rollout!)) {
      if (!["comment", "time_limit", "partition", "account", "qos", "memory_per_node"].includes(k))
        expect(accepted.has(k), k).toBe(true);
    }
    // One component stays a plain `job`.
    expect(submitBody(renderSubmission(plan()))).toHaveProperty("job");
  });

  it("starts one step over every component and hands pull mode's files to each component's nodes", () => {
    const script = batchScript(twoPools());
    expect(script).toContain("component 0 = pool trainer (2 node(s) × 8 GPU(s)), component 1 = pool rollout");
    expect(script).toMatch(
      /\nexec srun --het-group=0-1 --ntasks-per-node=1 --kill-on-bad-exit=1 bash -c "\$SF_STEP"\n$/,
    );
    // The step finds every rank of either pool by its node.
    for (const n of ["gpu-a", "gpu-b", "gpu-c"]) expect(script).toContain(`  '${n}') rank=`);
    const pulled = batchScript(twoPools({ pull: { plan: "{}", script: "print()\n", keep: false } }));
    expect(pulled).toContain('for j in "$SLURM_JOB_ID_HET_GROUP_0" "$SLURM_JOB_ID_HET_GROUP_1"; do');
    expect(pulled).toContain('sbcast -j "$j" -f -p');
    expect(pulled).toContain("exec srun --het-group=0-1 --ntasks-per-node=1 --kill-on-bad-exit=1 bash ");
  });

  it("refuses pools sharing a node (Slurm excludes each component's nodes from the others)", () => {
    const shared = twoPools();
    shared.components[1]!.ranks[0]!.node = "gpu-a";
    expect(() => renderSubmission(shared)).toThrow(/share a Slurm node/);
  });

  it("reads the components through their leader, and a run ends when any component ends otherwise than COMPLETED", () => {
    const cancelled = groupJobs(
      entries("GET /slurm/v0.0.38/job/{id} response (heterogeneous: component 1 cancelled mid-run)"),
    );
    expect(cancelled).toHaveLength(1);
    const het = cancelled[0]!;
    expect(het).toMatchObject({ id: 600, name: "sample-het", nodes: "sf-n1" });
    expect(het.components!.map((c) => [c.id, c.offset, c.state, c.nodes])).toEqual([
      [600, 0, "FAILED", "sf-n1"],
      [601, 1, "CANCELLED", "sf-n2"],
    ]);
    // The cancel is the cause; the leader's FAILED (its step killed) the consequence.
    expect(observe(het)).toEqual({
      phase: "ended",
      state: "CANCELLED",
      reason: "Slurm job 600+1 was cancelled in Slurm (CANCELLED) (exit code 143)",
      exitCode: 143,
      infra: true,
    });
    expect(live(het)).toBe(false);

    const [failed] = groupJobs(
      entries("GET /slurm/v0.0.38/job/{id} response (heterogeneous: a rank of component 1 exited 3)"),
    );
    expect(observe(failed!)).toMatchObject({ phase: "ended", state: "FAILED", infra: false });
    const [done] = groupJobs(entries("GET /slurm/v0.0.38/job/{id} response (heterogeneous: COMPLETED)"));
    expect(observe(done!)).toEqual({
      phase: "ended",
      state: "COMPLETED",
      reason: "Slurm job 604 completed",
      exitCode: 0,
      infra: false,
    });
  });

  it("a component that ended while the others still run ends the run, and the job is still live (to be cancelled)", () => {
    const part = (offset: number, state: string, exitStatus: number | null = null) => ({
      id: 70 + offset,
      offset,
      state,
      reason: "None",
      exitStatus,
      nodes: `sf-n${offset + 1}`,
    });
    const base = { ...job("RUNNING"), id: 70 };
    const oneGone = { ...base, components: [part(0, "RUNNING"), part(1, "NODE_FAIL", 9)] };
    expect(observe(oneGone)).toMatchObject({ phase: "ended", state: "NODE_FAIL", infra: true });
    expect(observe(oneGone).reason).toMatch(/^Slurm job 70\+1 lost a node/);
    expect(live(oneGone)).toBe(true);
    const starting = { ...base, components: [part(0, "RUNNING"), part(1, "CONFIGURING")] };
    expect(observe(starting).phase).toBe("waiting");
    const running = { ...base, components: [part(0, "RUNNING"), part(1, "RUNNING")] };
    expect(observe(running).phase).toBe("running");
    // A component finished first while the leader completes: still running, not a failure.
    const finishing = { ...base, components: [part(0, "COMPLETING"), part(1, "COMPLETED", 0)] };
    expect(observe(finishing).phase).toBe("running");
  });

  it("lists a heterogeneous job once, by its leader, among plain jobs", () => {
    const plain = (
      samples["GET /slurm/v0.0.38/job/{id} response (COMPLETED, full)"]!.jobs as Array<
        Record<string, unknown>
      >
    )[0]!;
    const het = entries("GET /slurm/v0.0.38/job/{id} response (heterogeneous: COMPLETED)");
    // An orphan component (its leader purged) is not a job of its own.
    const orphan = { ...het[1]!, job_id: 999, het_job_id: 998 };
    const listed = groupJobs([het[1]!, plain, het[0]!, orphan]);
    expect(listed.map((j) => [j.id, j.components?.length ?? 0])).toEqual([
      [plain.job_id, 0],
      [604, 2],
    ]);
  });
});
