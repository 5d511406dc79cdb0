/**
 * Tier 3, failure diagnosis of a multi-node run (issue 29): a real control plane (npm start) and two real
 * forgelet processes advertising 127.0.0.2 and 127.0.0.3 (as in ddp.test.ts). A DDP job of 2 nodes × 2
 * GPUs (one process per GPU: global ranks 0–3) has its rank 3 — the second process of the second node —
 * run out of GPU memory mid-training; the other ranks, waiting for it in the gradient all-reduce, fail
 * after it (gloo's "Connection closed by peer") or are stopped. The diagnosis must name the rank that raised, its
 * OutOfMemoryError line and CUDA_OOM, never the peer's echo, and the job is not retried.
 *
 * The job is plain torch.distributed code in its own train.sh, under a recipe published with
 * `processes: per_gpu` (docs/multi-node.md: how custom distributed scripts get the rendezvous and the
 * torchrun environment), so the torch/ddp recipe needs no failure knob. This machine has no GPU: the
 * training raises torch.cuda.OutOfMemoryError itself, with the allocator's message, where a forward pass
 * would.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLASS_POLICY } from "../../contract/diagnosis-policy.js";
import { STOP_GRACE_SECONDS } from "../../durable-objects/fleet/rules/runs.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { torchPythonDir } from "../support/ddp.js";
import { expectLineStored, waitForDiagnosis } from "../support/diagnosis.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { baseSpec, jobState, waitForStatus } from "../support/jobs.js";
import {
  describeState,
  expectNoOrphans,
  fleetView,
  newOperator,
  smallNodeProfile,
  waitNodesReady,
} from "../support/lifecycle.js";
import { newSfHome, sfJson } from "../support/sf.js";
import { uploadWorkspace } from "../support/workspace.js";

const FLEET = "mn-diag";
const ADDRS = { "mnd-a": "127.0.0.2", "mnd-b": "127.0.0.3" } as const;
const RECIPE = { name: "acme/ddp-script", version: "1.0.0" };
let cp: ControlPlane;
let op = "";
let recipeDigest = "";
const agents: ForgeletProc[] = [];
const jobs = new Set<string>();

/** What PyTorch's caching allocator says when a CUDA allocation does not fit (torch 1.13 wording). */
const OOM_MESSAGE =
  "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity; 76.02 GiB already allocated; 1.21 GiB free; 77.10 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF";

/** DDP over gloo on every rank; rank 3 runs out of GPU memory in its forward pass at step 12. */
const TRAIN_PY = `import time
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

FAIL_RANK, FAIL_STEP = 3, 12
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
print("rank %d of %d joined the process group" % (rank, world), flush=True)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
model = DistributedDataParallel(net)
optim = torch.optim.SGD(model.parameters(), lr=0.05)


def forward(x, step):
    if rank == FAIL_RANK and step == FAIL_STEP:
        # On a GPU, the activations of this batch would not fit.
        raise torch.cuda.OutOfMemoryError(${JSON.stringify(OOM_MESSAGE)})
    return model(x)


for step in range(1, 100000):
    x = torch.randn(16, 32)
    loss = torch.nn.functional.mse_loss(forward(x, step), x.sum(1, keepdim=True))
    optim.zero_grad()
    loss.backward()  # DDP all-reduces the gradients here: the others wait for rank 3
    optim.step()
    print("step %d loss %.4f" % (step, loss.item()), flush=True)
    time.sleep(0.1)
`;

beforeAll(async () => {
  const torch = torchPythonDir();
  // A retry would re-queue after 1 s: "not retried" is seen within seconds.
  cp = await startControlPlane({ agent: false, vars: { SF_RETRY_BACKOFF_SECONDS: 1 } });
  op = await newOperator(cp, "mnd-op");
  await smallNodeProfile(cp, "h200-2pn", 2);
  const published = await call(cp, cp.adminToken, "POST", "/v1/catalog/recipes", {
    ...RECIPE,
    description: "plain torch.distributed code in the job's train.sh, one process per GPU",
    frameworks: [{ kind: "torch", versions: ["1.13"], runtime_id: "torch", image: null }],
    entrypoint: { kind: "script", path: "train.sh", processes: "per_gpu" },
  });
  expect(published.status, JSON.stringify(published.body)).toBe(201);
  recipeDigest = (published.body.recipe as { digest: string }).digest;
  const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", {
    name: FLEET,
    kind: "process",
    network: { env: { GLOO_SOCKET_IFNAME: "lo" }, rendezvous_timeout_seconds: 60 },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  for (const [name, addr] of Object.entries(ADDRS)) {
    agents.push(
      await enrollForgelet(cp, FLEET, {
        name,
        gpus: 2,
        args: ["--advertise-addr", addr],
        // The workloads' python3 is one that has torch (Debian's python3-torch on CI).
        env: { PATH: `${torch}:${process.env.PATH}`, OMP_NUM_THREADS: "1" },
      }),
    );
  }
  await waitNodesReady(cp, FLEET, 2);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") {
    console.error(await describeState(cp, op, [...jobs], agents));
    for (const id of jobs)
      console.error(`--- job ${id}\n${JSON.stringify((await call(cp, op, "GET", `/v1/jobs/${id}`)).body)}`);
    console.error(`--- control plane (tail)\n${cp.output().split("\n").slice(-40).join("\n")}`);
  }
  // Nothing of the job is left running: the other ranks failed after rank 3 or were stopped (SIGTERM, then SIGKILL).
  await expectNoOrphans(cp, FLEET, agents, jobs, new Set(), (STOP_GRACE_SECONDS + 10) * 1000);
});

afterAll(async () => {
  for (const a of agents) await a.dispose();
  await cp?.stop();
});

describe("failure diagnosis of a 2-node DDP run (process runtime)", () => {
  it("global rank 3 runs out of GPU memory mid-training: CUDA_OOM on rank 3 and its node, resting on its OutOfMemoryError line; not retried", async () => {
    const workspace = await uploadWorkspace(cp.url, op, [
      { path: "ddp/train.sh", content: "#!/usr/bin/env bash\nexec python3 -u train.py\n", mode: 0o755 },
      { path: "ddp/train.py", content: TRAIN_PY },
    ]);
    const spec = baseSpec({
      name: "ddp-oom",
      fleet: FLEET,
      recipe: { ...RECIPE, digest: recipeDigest },
      framework: { kind: "torch", version: "1.13", runtime_id: "torch", image: null },
      workspace,
      experimentDir: "ddp",
    });
    spec.resources.pools = [
      { name: "default", profile: "h200-2pn", series: "h200", nodes: 2, gpus_per_node: 2 },
    ];
    // Retries are available: not using one is the diagnosis's decision, not a spent budget.
    spec.lifecycle = { max_retries: 2, retry_on_user_failure: false };
    const r = await call(cp, op, "POST", "/v1/jobs", spec);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const id = (r.body.job as { id: string }).id;
    jobs.add(id);

    const failed = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED", "STOPPED"], 180_000);
    expect(failed.job.status).toBe("FAILED");
    const { diagnosis, job } = await waitForDiagnosis(cp, op, id);
    const run = job.runs[0]!;
    // Rank 3 is the second process of node rank 1: that node, from the placement the fleet shows.
    const nodes = (await fleetView(cp, FLEET)).nodes;
    const rank3Node = nodes.find((n) => n.id === run.placement.find((p) => p.rank === 1)?.node_id)?.name;
    expect(rank3Node).toMatch(/^mnd-[ab]$/);

    expect(diagnosis).toMatchObject({
      class: "CUDA_OOM",
      rank: 3,
      node: rank3Node,
      line: { rank: 3, stream: "stderr", text: `torch.cuda.OutOfMemoryError: ${OOM_MESSAGE}` },
      hint: CLASS_POLICY.CUDA_OOM.hint,
      action: { policy: "no_retry", retried: false, cordoned: null },
      rule: null,
      from_logs: true,
    });
    expect(diagnosis.action.why).toMatch(/CUDA_OOM is not retried/);
    await expectLineStored(cp, op, id, run.id, diagnosis.line!);

    // `sf job status --json` carries the same diagnosis, for the job and for its run.
    const user = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: op } };
    const shown = await sfJson<{ diagnosis: unknown; runs: Array<{ diagnosis: unknown }> }>(
      ["job", "status", id],
      user,
    );
    expect(shown.diagnosis).toEqual(diagnosis);
    expect(shown.runs[0]!.diagnosis).toEqual(diagnosis);

    // Not retried: with a 1 s retry backoff, 3 s later it is still FAILED with its one run.
    await new Promise((ok) => setTimeout(ok, 3000));
    const later = await jobState(cp, op, id);
    expect(later.job.status).toBe("FAILED");
    expect(later.runs).toHaveLength(1);
  });
});
