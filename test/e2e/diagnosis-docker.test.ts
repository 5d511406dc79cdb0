/**
 * Tier 4, failure diagnosis in containers (issue 29): a real control plane (npm start), a real forgelet
 * with the docker runtime, real dockerd and the minimal python image. Custom jobs fail the way training
 * fails, and the diagnosis read back through the API names the class, the rank, the line and whether the
 * job was retried:
 * - a CUDA OOM: the container replays a case of the classifier's corpus (test/fixtures/failures) on the
 *   streams it was printed to and exits with its code (1): CUDA_OOM, not retried, the job stays FAILED;
 * - a container over its memory limit: docker's own OOM kill (State.OOMKilled, exit 137). Nothing in a
 *   job sets a container's memory (the runtime's `resources.memoryMb` is never filled in), so the test
 *   gives the running container a small limit with `docker update`, as a node's memory running out
 *   would: HOST_OOM, retried as an infrastructure failure, and the next attempt runs.
 * SF_E2E_KEEP=1 (`npm run test:e2e -- --keep`) leaves the scene of a failure in place.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLASS_POLICY } from "../../contract/diagnosis-policy.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { expectLineStored, expectSfShows, waitForDiagnosis } from "../support/diagnosis.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { baseSpec, jobState, recipeDigest, waitForStatus } from "../support/jobs.js";
import { waitFor } from "../support/lifecycle.js";
import { uploadWorkspace, type WorkspaceFile } from "../support/workspace.js";

const KEEP = process.env.SF_E2E_KEEP === "1";
const FLEET = "docker-diag";
const NODE = "dock-diag";
const FIXTURES = join(import.meta.dirname, "../fixtures/failures");
let cp: ControlPlane;
let agent: ForgeletProc;
let op = "";
const jobs: string[] = [];

const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();
const containersOf = (label: string) =>
  docker("ps", "-aq", "--filter", `label=${label}`).split("\n").filter(Boolean);

/** A case of the classifier's corpus: one rank's lines and exit code, and what it must be diagnosed as. */
interface FailureCase {
  expected: { class: string; rank: number; line: { rank: number; seq: number } };
  ranks: Record<string, { exit_code: number; lines: Array<{ stream: string; text: string }> }>;
}

/** Prints a case's rank 0 as the training's own output, each line to its stream, and exits with its code. */
const REPLAY_PY = `import json, sys, time
rank = json.load(open("case.json"))["ranks"]["0"]
last = None
for line in rank["lines"]:
    out = sys.stdout if line["stream"] == "stdout" else sys.stderr
    if last is not None and out is not last:
        time.sleep(0.05)  # two pipes: let the runner read the other one first, so the order holds
    out.write(line["text"] + "\\n")
    out.flush()
    last = out
sys.exit(rank["exit_code"])
`;

/**
 * Caches a dataset in memory shard by shard until the kernel's OOM killer ends it. It starts caching once
 * its container has a memory limit (the test sets one), so the node's memory is never at stake.
 */
const HOG_PY = `import time
def limit():
    for path in ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max"):
        try:
            value = open(path).read().strip()
        except OSError:
            continue
        return None if value == "max" else int(value)
    return None
print("Loading dataset /data/laion-subset (parquet, 412 files) into the shard cache", flush=True)
while (limit() or 1 << 62) > 1 << 30:
    time.sleep(0.1)
shards = []
for i in range(1, 100000):
    shards.append(bytearray(16 << 20))  # zero-filled, so every page is resident
    print("cached shard %d/412 (%d MiB resident)" % (i, 16 * i), flush=True)
`;

beforeAll(async () => {
  // A retry re-queues after 1 s (30 s by default): the HOST_OOM case sees its next attempt run.
  cp = await startControlPlane({ agent: false, vars: { SF_RETRY_BACKOFF_SECONDS: 1 } });
  op = String(
    (await call(cp, cp.adminToken, "POST", "/v1/users", { name: "e2e-diag", role: "operator" })).body.token,
  );
  const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", {
    name: FLEET,
    kind: "docker",
    image_allowlist: ["starforge/*"],
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  agent = await enrollForgelet(cp, FLEET, {
    runtime: "docker",
    gpus: 2,
    name: NODE,
    env: { FORGE_LOCAL_GPU_PASSTHROUGH: "0" },
  });
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state !== "fail") return;
  for (const id of jobs)
    console.error(`--- job ${id}\n${JSON.stringify((await call(cp, op, "GET", `/v1/jobs/${id}`)).body)}`);
  console.error(`--- control plane (tail)\n${cp.output().split("\n").slice(-60).join("\n")}`);
  console.error(`--- forgelet (tail)\n${agent.log().split("\n").slice(-60).join("\n")}`);
  if (KEEP)
    console.error(`kept: control plane ${cp.url} (state ${cp.stateDir}), agent state ${agent.stateDir}`);
});

afterAll(async () => {
  if (KEEP) return;
  await agent?.dispose();
  await cp?.stop();
  // Only this file's containers: other suites may share the daemon.
  expect(jobs.flatMap((id) => containersOf(`starforge.job_id=${id}`))).toEqual([]);
});

/** Submits a custom job running `dir/train.sh` of these files in the minimal python image. */
async function submitCustom(name: string, dir: string, files: WorkspaceFile[], maxRetries: number) {
  const workspace = await uploadWorkspace(cp.url, op, [
    { path: `${dir}/train.sh`, content: "#!/usr/bin/env bash\nexec python3 -u train.py\n", mode: 0o755 },
    ...files.map((f) => ({ ...f, path: `${dir}/${f.path}` })),
  ]);
  const spec = baseSpec({
    name,
    fleet: FLEET,
    recipe: { name: "custom/custom", version: "1.0.0", digest: await recipeDigest(cp, op, "custom/custom") },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: "starforge/python:bookworm" },
    workspace,
    experimentDir: dir,
  });
  // Retries are available: whether the job uses one is the diagnosis's decision, not a spent budget.
  spec.lifecycle = { max_retries: maxRetries, retry_on_user_failure: false };
  const r = await call(cp, op, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const id = (r.body.job as { id: string }).id;
  jobs.push(id);
  return id;
}

/** Waits (bounded) until no container of the job is left, running or exited. */
async function noContainersOf(id: string) {
  await waitFor(
    `the containers of ${id} to be removed`,
    () => containersOf(`starforge.job_id=${id}`).length === 0,
    30_000,
    250,
  );
}

describe("failure diagnosis in containers", () => {
  it("a CUDA OOM traceback (exit 1): CUDA_OOM on rank 0, resting on the OutOfMemoryError line; not retried, the job stays FAILED", async () => {
    const file = "cuda_oom-llama8b-mlp-single.json";
    const json = readFileSync(join(FIXTURES, file), "utf8");
    const fixture = JSON.parse(json) as FailureCase;
    const oomLine = fixture.ranks["0"]!.lines[fixture.expected.line.seq]!.text;
    expect(oomLine).toMatch(/^torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate/);

    const id = await submitCustom(
      "cuda-oom",
      "oom",
      [
        { path: "train.py", content: REPLAY_PY },
        { path: "case.json", content: json },
      ],
      2,
    );
    const failed = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED", "STOPPED"], 120_000);
    expect(failed.job.status).toBe("FAILED");
    expect(failed.runs[0]).toMatchObject({ status: "FAILED", exit_code: 1 });

    const { diagnosis, job } = await waitForDiagnosis(cp, op, id);
    expect(diagnosis).toMatchObject({
      class: "CUDA_OOM",
      rank: 0,
      node: NODE,
      line: { rank: 0, stream: "stderr", text: oomLine },
      hint: CLASS_POLICY.CUDA_OOM.hint,
      action: { policy: "no_retry", retried: false, cordoned: null },
      rule: null,
      from_logs: true,
    });
    expect(diagnosis.action.why).toMatch(/CUDA_OOM is not retried/);
    // The job's own diagnosis is its failed run's.
    expect(job.diagnosis).toEqual(diagnosis);
    await expectLineStored(cp, op, id, job.runs[0]!.id, diagnosis.line!);
    await expectSfShows(cp, op, id, diagnosis);

    // Not retried: with a 1 s retry backoff, 3 s later it is still FAILED with its one run.
    await new Promise((ok) => setTimeout(ok, 3000));
    const later = await jobState(cp, op, id);
    expect(later.job.status).toBe("FAILED");
    expect(later.runs).toHaveLength(1);
    await noContainersOf(id);
  });

  it("a container over its memory limit (docker's OOM kill, exit 137): HOST_OOM on rank 0, retried as an infrastructure failure; the next attempt runs", async () => {
    const id = await submitCustom("host-oom", "mem", [{ path: "train.py", content: HOG_PY }], 1);
    const run1 = (await waitForStatus(cp, op, id, ["RUNNING"], 120_000)).job.current_run_id!;
    const container = await waitFor(
      `the container of run ${run1}`,
      () => docker("ps", "-q", "--filter", `label=starforge.run_id=${run1}`) || undefined,
      30_000,
      250,
    );
    // 256 MiB: well above what bootstrap, the runner and python hold before the cache grows.
    docker("update", "--memory", "256m", "--memory-swap", "256m", container);

    const { diagnosis, job } = await waitForDiagnosis(cp, op, id, 1, 120_000);
    expect(job.runs[0]).toMatchObject({ status: "FAILED", exit_code: 137 });
    expect(diagnosis).toMatchObject({
      class: "HOST_OOM",
      rank: 0,
      node: NODE,
      line: null,
      hint: CLASS_POLICY.HOST_OOM.hint,
      action: { policy: "retry_if_infra", retried: true, cordoned: null },
      rule: null,
      from_logs: true,
    });
    expect(diagnosis.action.why).toMatch(/^retry 1 of 1/);
    const failedAt = job.events.findIndex((e) => e.to === "FAILED");
    expect(failedAt, JSON.stringify(job.events)).toBeGreaterThanOrEqual(0);

    // The retry: attempt 2 runs (in a container without the limit, so it waits; the test stops it).
    const run2 = await waitFor(
      "attempt 2 to run",
      async () => {
        const s = await jobState(cp, op, id);
        const r = s.runs.find((x) => x.attempt === 2);
        return s.job.status === "RUNNING" && r ? r : undefined;
      },
      60_000,
      250,
    );
    const events = (await jobState(cp, op, id)).events.slice(failedAt);
    expect(events.map((e) => [e.to, e.edge])).toContainEqual(["QUEUED", "retry"]);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
    const stopped = await waitForStatus(cp, op, id, ["STOPPED", "FAILED", "SUCCEEDED"], 60_000);
    expect(stopped.job.status).toBe("STOPPED");
    expect(stopped.runs.find((r) => r.id === run2.id)?.status).toBe("STOPPED");
    await noContainersOf(id);
  });
});
