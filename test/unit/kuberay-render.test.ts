/**
 * The KubeRay runtime's RayJob, rendered from a run's placement, validated against KubeRay v1.7.0's RayJob
 * CRD schema (test/fixtures/kuberay, as the API server with fieldValidation=Strict would, plus KubeRay's
 * own name rule): one node, several nodes, and GPU passthrough off. And what each field promises.
 */
import { describe, expect, it } from "vitest";
import {
  type KubeRayRunPlan,
  LABEL_RUN,
  rayJobName,
  renderRayJob,
  renderSecret,
  SECRET_PLAN_KEY,
} from "../../forgelet/runtimes/kuberay/render.js";
import { validateRayJob } from "../support/crd-schema.js";

const RUN = "run_01m8sc2nbtp690ed38b2emy2qh";

function plan(over: Partial<KubeRayRunPlan> = {}): KubeRayRunPlan {
  return {
    runId: RUN,
    jobId: "job_01m8sbtmk683emw6kkz6xtjv0n",
    attempt: 1,
    epoch: 3,
    namespace: "starforge",
    ranks: [{ rank: 0, nodeId: "agt_1:gpu-node-a", gpus: 4 }],
    image: "registry.example/train:1.2",
    gpuResource: "nvidia.com/gpu",
    gpuPassthrough: true,
    cpusPerPod: 16,
    memoryPerPodMb: 65536,
    maxRuntimeSeconds: 3600,
    launcher: "print('launcher')",
    pullScript: "print('pull')",
    nodeDir: "/tmp/starforge-runs",
    keepRuns: false,
    ttlSecondsAfterFinished: 300,
    stopGraceSeconds: 30,
    ...over,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: walking a rendered manifest's nested fields
type Obj = Record<string, any>;
const spec = (j: Obj) => j.spec as Obj;
const head = (j: Obj) => spec(j).rayClusterSpec.headGroupSpec as Obj;
const nodeOf = (tpl: Obj) =>
  tpl.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
    .matchFields[0].values[0];

describe("the RayJob of a run", () => {
  it("one node: schema-valid; the head is rank 0 on the chosen node with its GPUs, the entrypoint is the launcher", () => {
    const j = renderRayJob(plan());
    expect(validateRayJob(j)).toEqual([]);
    expect(j.metadata).toMatchObject({ name: rayJobName(RUN, 3), namespace: "starforge" });
    expect((j.metadata as Obj).labels[LABEL_RUN]).toBe(RUN);
    expect(spec(j)).toMatchObject({
      entrypoint: `python3 /tmp/starforge-secrets/${rayJobName(RUN, 3)}/rayjob.py`,
      submissionMode: "K8sJobMode",
      shutdownAfterJobFinishes: true,
      ttlSecondsAfterFinished: 300,
      activeDeadlineSeconds: 3600,
    });
    expect(spec(j).rayClusterSpec.workerGroupSpecs).toBeUndefined();
    // Fields KubeRay 1.1 does not know are not sent (a strict API server would refuse the RayJob).
    expect(spec(j).backoffLimit).toBeUndefined();
    expect(spec(j).submitterConfig).toBeUndefined();
    const tpl = head(j).template;
    expect(nodeOf(tpl)).toBe("gpu-node-a");
    const c = tpl.spec.containers[0];
    expect(c.image).toBe("registry.example/train:1.2");
    expect(c.resources.limits).toEqual({ cpu: "16", memory: "65536Mi", "nvidia.com/gpu": "4" });
    // Requests leave a tenth of the share to the node's DaemonSets; GPUs are requested whole.
    expect(c.resources.requests).toEqual({ cpu: "14400m", memory: "58982Mi", "nvidia.com/gpu": "4" });
    expect(head(j).rayStartParams["num-gpus"]).toBe("4");
    expect(head(j).rayStartParams.resources).toBe(`'{"starforge_rank_0":1}'`);
    // The preStop hook TERMs the rank's capsule and waits for it before Kubernetes stops the container.
    expect(c.lifecycle.preStop.exec.command.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(c.lifecycle.preStop.exec.command[2]).toContain(`/tmp/starforge-runs/${RUN}-r*.pgid`);
    // The tokens are not in the RayJob: the plan, pull.py and the launcher are the run's Secret, mounted.
    expect(tpl.spec.volumes).toEqual([
      { name: "starforge-run", secret: { secretName: rayJobName(RUN, 3), defaultMode: 0o444 } },
    ]);
    expect(c.volumeMounts).toEqual([
      { name: "starforge-run", mountPath: `/tmp/starforge-secrets/${rayJobName(RUN, 3)}`, readOnly: true },
    ]);
    const env = c.env as Obj[];
    // Ray's stop wait and the pods' grace cover the stop grace plus the capsule's last upload.
    expect(env.find((e) => e.name === "RAY_JOB_STOP_WAIT_TIME_S")?.value).toBe("60");
    expect(tpl.spec.terminationGracePeriodSeconds).toBe(70);
    expect(JSON.stringify(j)).not.toContain("print('launcher')");
    expect(JSON.stringify(j)).not.toContain("STARFORGE_TOKEN");
  });

  it("several nodes: one worker group of one pod per rank, each pinned to its node; schema-valid", () => {
    const j = renderRayJob(
      plan({
        ranks: [
          { rank: 1, nodeId: "agt_1:gpu-node-b", gpus: 2 },
          { rank: 0, nodeId: "agt_1:gpu-node-a", gpus: 2 },
          { rank: 2, nodeId: "agt_1:gpu-node-c", gpus: 2 },
        ],
      }),
    );
    expect(validateRayJob(j)).toEqual([]);
    const workers = spec(j).rayClusterSpec.workerGroupSpecs as Obj[];
    expect(
      workers.map((w) => [w.groupName, w.replicas, w.minReplicas, w.maxReplicas, nodeOf(w.template)]),
    ).toEqual([
      ["rank-1", 1, 1, 1, "gpu-node-b"],
      ["rank-2", 1, 1, 1, "gpu-node-c"],
    ]);
    expect(nodeOf(head(j).template)).toBe("gpu-node-a");
    expect(workers.map((w) => JSON.parse(w.rayStartParams.resources.slice(1, -1)))).toEqual([
      { starforge_rank_1: 1 },
      { starforge_rank_2: 1 },
    ]);
    expect(workers[0]!.template.metadata.labels["starforge.dev/rank"]).toBe("1");
    expect((j.metadata as Obj).annotations["starforge.dev/placement"]).toBe(
      "0=gpu-node-a,1=gpu-node-b,2=gpu-node-c",
    );
  });

  it("GPU passthrough off: no GPU requested from Kubernetes, Ray's logical GPUs still set; schema-valid", () => {
    const j = renderRayJob(
      plan({
        gpuPassthrough: false,
        ranks: [
          { rank: 0, nodeId: "a:n1", gpus: 2 },
          { rank: 1, nodeId: "a:n2", gpus: 2 },
        ],
      }),
    );
    expect(validateRayJob(j)).toEqual([]);
    const pods = [head(j), ...(spec(j).rayClusterSpec.workerGroupSpecs as Obj[])];
    for (const g of pods) {
      expect(g.template.spec.containers[0].resources.limits).toEqual({ cpu: "16", memory: "65536Mi" });
      expect(g.template.spec.containers[0].resources.requests).not.toHaveProperty("nvidia.com/gpu");
      expect(g.rayStartParams["num-gpus"]).toBe("2");
    }
  });

  it("no time limit: no activeDeadlineSeconds; no CPU/memory share known: no requests; still schema-valid", () => {
    const j = renderRayJob(
      plan({ maxRuntimeSeconds: null, cpusPerPod: null, memoryPerPodMb: null, gpuPassthrough: false }),
    );
    expect(validateRayJob(j)).toEqual([]);
    expect(spec(j).activeDeadlineSeconds).toBeUndefined();
    expect(head(j).template.spec.containers[0].resources).toBeUndefined();
  });

  it("the name fits KubeRay's 47 characters for any run id and epoch the control plane makes", () => {
    expect(rayJobName(RUN, 123456).length).toBeLessThanOrEqual(47);
    expect(validateRayJob(renderRayJob(plan({ epoch: 123456 })))).toEqual([]);
  });

  it("refuses a placement it cannot render: two ranks on one node, ranks not 0..N-1", () => {
    expect(() =>
      renderRayJob(
        plan({
          ranks: [
            { rank: 0, nodeId: "a:n1", gpus: 1 },
            { rank: 1, nodeId: "a:n1", gpus: 1 },
          ],
        }),
      ),
    ).toThrow(/share a Kubernetes node \(n1, n1\)/);
    expect(() => renderRayJob(plan({ ranks: [{ rank: 1, nodeId: "a:n1", gpus: 1 }] }))).toThrow(
      /expected 0..N-1/,
    );
  });

  it("the Secret holds the pull plan, pull.py and the launcher, is owned by the RayJob and carries the run's labels", () => {
    const s = renderSecret(plan(), '{"ranks":{}}', { name: rayJobName(RUN, 3), uid: "u-1" }) as Obj;
    const file = (k: string) => Buffer.from(s.data[k], "base64").toString();
    expect(file(SECRET_PLAN_KEY)).toBe('{"ranks":{}}');
    expect(file("pull.py")).toBe("print('pull')");
    expect(file("rayjob.py")).toBe("print('launcher')");
    expect(s.metadata.ownerReferences).toEqual([
      {
        apiVersion: "ray.io/v1",
        kind: "RayJob",
        name: rayJobName(RUN, 3),
        uid: "u-1",
      },
    ]);
    expect(s.metadata.labels[LABEL_RUN]).toBe(RUN);
  });

  it("a job's secrets: each value only in the run's Secret, every container reads it from there; schema-valid", () => {
    const p = plan({
      secretNames: ["HF_TOKEN"],
      ranks: [
        { rank: 0, nodeId: "agt_1:gpu-node-a", gpus: 2 },
        { rank: 1, nodeId: "agt_1:gpu-node-b", gpus: 2 },
      ],
    });
    const j = renderRayJob(p);
    expect(validateRayJob(j)).toEqual([]);
    expect(JSON.stringify(j)).not.toContain("hf_value");
    const ref = {
      name: "HF_TOKEN",
      valueFrom: { secretKeyRef: { name: rayJobName(RUN, 3), key: "env.HF_TOKEN" } },
    };
    const worker = (spec(j).rayClusterSpec.workerGroupSpecs as Obj[])[0]!;
    expect(head(j).template.spec.containers[0].env).toContainEqual(ref);
    expect(worker.template.spec.containers[0].env).toEqual([ref]);
    const s = renderSecret(
      p,
      '{"ranks":{}}',
      { name: rayJobName(RUN, 3), uid: "u-1" },
      {
        HF_TOKEN: "hf_value_123456",
      },
    ) as Obj;
    expect(Buffer.from(s.data["env.HF_TOKEN"], "base64").toString()).toBe("hf_value_123456");
  });
});
