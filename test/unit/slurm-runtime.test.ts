/**
 * The Slurm runtime's own logic against an in-memory SlurmApi (the interface its adapters implement; the
 * real slurmrestd is exercised by `npm run test:slurm`): ranks gathered into one submission, a run never
 * submitted twice, a rank that never comes, Slurm's refusal, polls that fail, and ends that are never 0.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LaunchError, type RunSpec } from "../../forgelet/runtime.js";
import { RANK_ENV_FILE } from "../../forgelet/runtimes/pull.js";
import type { SlurmApi, SlurmJobInfo, SlurmSubmission } from "../../forgelet/runtimes/slurm/api.js";
import { EXIT_FILE } from "../../forgelet/runtimes/slurm/render.js";
import { SlurmRejected, SlurmUnavailable } from "../../forgelet/runtimes/slurm/rest.js";
import { SlurmRuntime } from "../../forgelet/runtimes/slurm/runtime.js";

class MemorySlurm implements SlurmApi {
  readonly version = "v0.0.38";
  submitted: SlurmSubmission[] = [];
  jobsById = new Map<number, SlurmJobInfo>();
  /** Answers for job(id), consumed in order (an Error is thrown); then the job as it is. */
  script: Array<Partial<SlurmJobInfo> | Error> = [];
  refuse: string | null = null;
  polls = 0;

  async submit(sub: SlurmSubmission): Promise<number> {
    if (this.refuse) throw new SlurmRejected(this.refuse, 2035);
    this.submitted.push(sub);
    const id = 100 + this.submitted.length;
    this.jobsById.set(id, {
      id,
      name: sub.name,
      comment: sub.comment,
      state: "PENDING",
      reason: "Priority",
      exitStatus: null,
      nodes: "",
    });
    return id;
  }
  async job(id: number): Promise<SlurmJobInfo | null> {
    this.polls += 1;
    const next = this.script.shift();
    if (next instanceof Error) throw next;
    const cur = this.jobsById.get(id);
    if (!cur) return null;
    if (next) this.jobsById.set(id, { ...cur, ...next });
    return this.jobsById.get(id)!;
  }
  async jobs(): Promise<SlurmJobInfo[]> {
    return [...this.jobsById.values()];
  }
  cancels: number[] = [];
  async cancel(id: number): Promise<void> {
    this.cancels.push(id);
    const cur = this.jobsById.get(id);
    if (cur)
      this.jobsById.set(id, {
        ...cur,
        state: "CANCELLED",
        components: cur.components?.map((c) => ({
          ...c,
          state: c.state === "RUNNING" ? "CANCELLED" : c.state,
        })),
      });
  }
  async nodes() {
    return [];
  }
}

const root = mkdtempSync(join(tmpdir(), "sf-slurm-rt-"));

function specOf(
  runId: string,
  rank: number,
  nodes = ["sf-n1", "sf-n2"],
  pools?: Array<{ pool: string; gpus: number }>,
): RunSpec {
  const runDir = join(root, `${runId}-r${rank}`);
  return {
    runId,
    jobId: "job_1",
    epoch: 1,
    rank,
    runDir,
    env: { FORGE_RANK: String(rank), STARFORGE_INGEST_TOKEN: "secret" },
    image: null,
    gpuIndices: [0],
    resources: {},
    labels: {},
    placement: nodes.map((n, r) => ({
      rank: r,
      nodeId: `nod_a:${n}`,
      gpus: pools?.[r]?.gpus ?? 1,
      pool: pools?.[r]?.pool ?? "default",
    })),
    attempt: 1,
    maxRuntimeSeconds: 90,
  };
}

const runtime = (api: MemorySlurm, gatherMs = 5000) =>
  new SlurmRuntime({ api, sharedDir: root, gatherMs, pollMs: 10, path: "/usr/bin:/bin" });

/** A run of two pools (trainer 1 × 2 GPUs on sf-n1, rollout 1 × 1 on sf-n2) launched as job 101. */
async function twoPools(runId: string) {
  const api = new MemorySlurm();
  const rt = runtime(api);
  const nodes = ["sf-n1", "sf-n2"];
  const pools = [
    { pool: "trainer", gpus: 2 },
    { pool: "rollout", gpus: 1 },
  ];
  const specs = [0, 1].map((r) => specOf(runId, r, nodes, pools));
  const [ref] = await Promise.all(specs.map((s) => rt.launch(s)));
  /** Component `offset` of job 101 as Slurm shows it. */
  const part = (offset: number, state: string, exitStatus: number | null = null) => ({
    id: 101 + offset,
    offset,
    state,
    reason: state === "FAILED" ? "NonZeroExitCode" : "None",
    exitStatus,
    nodes: nodes[offset]!,
  });
  return { api, rt, specs, ref: ref!, part };
}

describe("SlurmRuntime", () => {
  it("gathers the ranks of a run into ONE submission, pinned to their nodes in rank order", async () => {
    const api = new MemorySlurm();
    const rt = runtime(api);
    const [r1, r0] = await Promise.all([rt.launch(specOf("run_g", 1)), rt.launch(specOf("run_g", 0))]);
    expect(r0).toEqual({ kind: "slurm", id: "101" });
    expect(r1).toEqual(r0);
    expect(api.submitted).toHaveLength(1);
    expect(api.submitted[0]).toMatchObject({
      name: "sf-run_g",
      components: [{ nodelist: ["sf-n1", "sf-n2"], gpusPerNode: 1 }],
      timeLimitMinutes: 2,
    });
    // Each rank's environment waits for it on the shared directory, readable by its owner only.
    expect(readFileSync(join(root, "run_g-r1", RANK_ENV_FILE), "utf8")).toContain("FORGE_RANK='1'");
  });

  it("adopts the live job of the run instead of submitting again (an agent restarted after submitting)", async () => {
    const api = new MemorySlurm();
    const rt = runtime(api);
    await rt.launch(specOf("run_a", 0, ["sf-n1"]));
    const again = await runtime(api).launch(specOf("run_a", 0, ["sf-n1"]));
    expect(again).toEqual({ kind: "slurm", id: "101" });
    expect(api.submitted).toHaveLength(1);
  });

  it("fails the launch as infrastructure when a rank never reaches the agent, submitting nothing", async () => {
    const api = new MemorySlurm();
    const err = await runtime(api, 50)
      .launch(specOf("run_m", 0))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err).toMatchObject({ infra: true });
    expect((err as Error).message).toMatch(/only 1 of 2 ranks of run run_m reached this agent/);
    expect(api.submitted).toEqual([]);
  });

  it("Slurm's refusal is final and the job's own (not retried as infrastructure)", async () => {
    const api = new MemorySlurm();
    api.refuse = "Slurm refused the job: Invalid partition name specified";
    const err = await runtime(api)
      .launch(specOf("run_r", 0, ["sf-n1"]))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      infra: false,
      message: "Slurm refused the job: Invalid partition name specified",
    });
  });

  it("reports Slurm's pending reason only when it changes, then the run's end; a failed poll is retried, never an answer", async () => {
    const api = new MemorySlurm();
    const rt = runtime(api);
    const ref = await rt.launch(specOf("run_w", 0, ["sf-n1"]));
    api.script = [
      {},
      { reason: "Resources" },
      { reason: "Resources" },
      new SlurmUnavailable("slurmrestd restarting"),
      { state: "RUNNING", reason: "None" },
    ];
    const said: string[] = [];
    await rt.waitStarted(ref, specOf("run_w", 0, ["sf-n1"]), (r) => said.push(r));
    expect(said).toEqual(["Priority", "Resources"]);
    api.script = [new SlurmUnavailable("down"), { state: "COMPLETED", exitStatus: 0 }];
    const spec = specOf("run_w", 0, ["sf-n1"]);
    writeFileSync(join(spec.runDir, EXIT_FILE), "0");
    expect(await rt.wait(ref, spec)).toMatchObject({ exitCode: 0, infra: false });
  });

  it("a job Slurm puts back in its queue after it ran is cancelled and reported as an infrastructure end", async () => {
    const api = new MemorySlurm();
    const rt = runtime(api);
    const spec = specOf("run_q", 0, ["sf-n1"]);
    const ref = await rt.launch(spec);
    api.script = [
      { state: "RUNNING", reason: "None" },
      { state: "PENDING", reason: "BeginTime" },
    ];
    expect(await rt.wait(ref, spec)).toEqual({
      exitCode: null,
      reason: "Slurm requeued job 101 (PENDING: BeginTime); cancelled, so the control plane retries it",
      infra: true,
    });
    expect(api.jobsById.get(101)!.state).toBe("CANCELLED");
  });

  it("a stop while the ranks wait for each other ends that wait, submitting nothing", async () => {
    const api = new MemorySlurm();
    const rt = runtime(api);
    const waiting = rt.launch(specOf("run_s", 0)).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    expect(rt.abort("run_s", 0)).toBe(true);
    expect(await waiting).toMatchObject({ infra: false, message: expect.stringMatching(/^stopped before/) });
    expect(api.submitted).toEqual([]);
  });

  it("never reports exit 0 for an end other than COMPLETED; the rank's own code wins over Slurm's", async () => {
    const api = new MemorySlurm();
    const rt = runtime(api);
    const spec = specOf("run_f", 0, ["sf-n1"]);
    const ref = await rt.launch(spec);
    writeFileSync(join(spec.runDir, EXIT_FILE), "0");
    api.script = [{ state: "NODE_FAIL", reason: "NodeDown", exitStatus: 0 }];
    expect(await rt.wait(ref, spec)).toEqual({
      exitCode: null,
      reason: "Slurm job 101 lost a node (NODE_FAIL) (exit code 0; NodeDown)",
      infra: true,
    });
    writeFileSync(join(spec.runDir, EXIT_FILE), "3");
    api.script = [{ state: "FAILED", reason: "NonZeroExitCode", exitStatus: 768 }];
    expect(await runtime(api).wait(ref, spec)).toMatchObject({ exitCode: 3, infra: false });
  });

  it("submits a run of two pools as ONE heterogeneous job, a component per pool with its own GPUs", async () => {
    const api = new MemorySlurm();
    const rt = runtime(api);
    const nodes = ["sf-n1", "sf-n2", "sf-n3"];
    const pools = [
      { pool: "trainer", gpus: 4 },
      { pool: "trainer", gpus: 4 },
      { pool: "rollout", gpus: 1 },
    ];
    const refs = await Promise.all([2, 0, 1].map((r) => rt.launch(specOf("run_h", r, nodes, pools))));
    expect(new Set(refs.map((r) => r.id))).toEqual(new Set(["101"]));
    expect(api.submitted).toHaveLength(1);
    expect(api.submitted[0]!.components.map((c) => [c.nodelist, c.gpusPerNode])).toEqual([
      [["sf-n1", "sf-n2"], 4],
      [["sf-n3"], 1],
    ]);
    expect(api.submitted[0]!.script).toContain("srun --het-group=0-1 ");
  });

  it("a component that fails while the others run ends every rank's run and cancels what is left", async () => {
    const { api, rt, specs, ref, part } = await twoPools("run_k");
    api.script = [
      { state: "RUNNING", components: [part(0, "RUNNING"), part(1, "RUNNING")] },
      { state: "RUNNING", components: [part(0, "RUNNING"), part(1, "CANCELLED", 15)] },
    ];
    expect(await rt.wait(ref, specs[0]!)).toEqual({
      exitCode: 143,
      reason: "Slurm job 101+1 was cancelled in Slurm (CANCELLED) (exit code 143)",
      infra: true,
    });
    // The leader still ran: it was cancelled, and so the whole job is gone.
    expect(api.cancels).toEqual([101]);
    expect(await rt.alive(ref)).toBe(false);
  });

  it("a component that FAILED while a sibling still ends: the sibling's end, when it is the cluster's, is the reported cause", async () => {
    const { api, rt, specs, ref, part } = await twoPools("run_c");
    // The rollout component was cancelled; the trainer's ranks followed their peer's stop and the leader
    // FAILED first, while the rollout was still completing.
    api.script = [
      { state: "RUNNING", components: [part(0, "RUNNING"), part(1, "RUNNING")] },
      { state: "FAILED", components: [part(0, "FAILED", 143 << 8), part(1, "COMPLETING")] },
      { state: "FAILED", components: [part(0, "FAILED", 143 << 8), part(1, "COMPLETING")] },
      { state: "FAILED", components: [part(0, "FAILED", 143 << 8), part(1, "CANCELLED", 15)] },
    ];
    expect(await rt.wait(ref, specs[1]!)).toEqual({
      exitCode: 143,
      reason: "Slurm job 101+1 was cancelled in Slurm (CANCELLED) (exit code 143)",
      infra: true,
    });
    // A plain FAILED of every component is the job's own failure, reported as soon as all have ended.
    api.script = [{ state: "FAILED", components: [part(0, "FAILED", 3 << 8), part(1, "FAILED", 3 << 8)] }];
    expect(await runtime(api).wait(ref, specs[1]!)).toMatchObject({ exitCode: 3, infra: false });
  });
});
