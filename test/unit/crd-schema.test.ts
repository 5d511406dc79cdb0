import { describe, expect, it } from "vitest";
import { crdValidator, validateRayJob } from "../support/crd-schema.js";

type Manifest = Record<string, unknown>;

const HEAD_CONTAINER = { name: "ray-head", image: "rayproject/ray:2.9.0" };

/** The smallest RayJob the API server accepts: an entrypoint and a head with one container. */
function minimalRayJob(): Manifest {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name: "demo" },
    spec: {
      entrypoint: "python train.py",
      rayClusterSpec: {
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ ...HEAD_CONTAINER }] } } },
      },
    },
  };
}

/** A minimal RayJob changed by `edit`, which gets its spec, rayClusterSpec and head pod spec. */
function rayJobWith(edit: (parts: { spec: Manifest; cluster: Manifest; pod: Manifest }) => void): Manifest {
  const job = minimalRayJob();
  const spec = job.spec as Manifest;
  const cluster = spec.rayClusterSpec as Manifest;
  const head = cluster.headGroupSpec as { template: { spec: Manifest } };
  edit({ spec, cluster, pod: head.template.spec });
  return job;
}

function pinnedTo(node: string) {
  const term = { matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] };
  return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } };
}

function rayContainer(name: string, gpus: number) {
  return {
    name,
    image: "rayproject/ray:2.9.0-gpu",
    resources: {
      requests: { cpu: "8", memory: "64Gi", "nvidia.com/gpu": gpus },
      limits: { cpu: 8, memory: "64Gi", "nvidia.com/gpu": String(gpus) },
    },
    env: [
      { name: "SF_JOB_ID", value: "01J9Z3" },
      { name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "token" } } },
    ],
  };
}

function workerGroup(groupName: string, node: string) {
  return {
    groupName,
    replicas: 1,
    minReplicas: 1,
    maxReplicas: 1,
    rayStartParams: { "num-gpus": "8" },
    template: {
      metadata: { labels: { "starforge.dev/group": groupName } },
      spec: { affinity: pinnedTo(node), containers: [rayContainer("ray-worker", 8)] },
    },
  };
}

/** A RayJob shaped like the ones the KubeRay runtime renders: pinned head and two GPU worker groups. */
function fullRayJob(): Manifest {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: {
      name: "sf-01j9z3-charlm",
      namespace: "ml-jobs",
      labels: { "app.kubernetes.io/managed-by": "starforge", "starforge.dev/job-id": "01J9Z3" },
      annotations: { "starforge.dev/submitted-by": "ada@example.com", note: "any text: even spaces" },
    },
    spec: {
      entrypoint: "python -m charlm.train --steps 1000",
      submissionMode: "K8sJobMode",
      shutdownAfterJobFinishes: true,
      ttlSecondsAfterFinished: 600,
      activeDeadlineSeconds: 86400,
      backoffLimit: 0,
      rayClusterSpec: {
        rayVersion: "2.9.0",
        headGroupSpec: {
          rayStartParams: { "dashboard-host": "0.0.0.0" },
          template: {
            metadata: {
              labels: { "starforge.dev/role": "head" },
              annotations: { "starforge.dev/node": "gpu-a" },
            },
            spec: { affinity: pinnedTo("gpu-a"), containers: [rayContainer("ray-head", 1)] },
          },
        },
        workerGroupSpecs: [workerGroup("gpu-b", "gpu-b"), workerGroup("gpu-c", "gpu-c")],
      },
    },
  };
}

describe("validateRayJob against KubeRay v1.7.0's RayJob CRD", () => {
  it("accepts a minimal RayJob", () => {
    expect(validateRayJob(minimalRayJob())).toEqual([]);
  });

  it("accepts a full RayJob with pinned GPU worker groups, secret env and quantities as strings and ints", () => {
    expect(validateRayJob(fullRayJob())).toEqual([]);
  });

  it("requires headGroupSpec.template", () => {
    const job = rayJobWith(({ cluster }) => {
      cluster.headGroupSpec = { rayStartParams: {} };
    });
    expect(validateRayJob(job)).toEqual(["spec.rayClusterSpec.headGroupSpec.template: required"]);
  });

  it("rejects unknown fields under spec and deep in a container", () => {
    const job = rayJobWith(({ spec, pod }) => {
      spec.foo = 1;
      pod.containers = [{ ...HEAD_CONTAINER, imagePullPolicyy: "Always" }];
    });
    expect(validateRayJob(job)).toEqual([
      "spec.foo: unknown field",
      "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].imagePullPolicyy: unknown field",
    ]);
  });

  it("rejects a string where the schema wants an integer", () => {
    const job = rayJobWith(({ spec }) => {
      spec.backoffLimit = "3";
    });
    expect(validateRayJob(job)).toEqual(["spec.backoffLimit: must be integer"]);
  });

  it("requires a worker group's groupName, but not minReplicas and maxReplicas, which the server defaults", () => {
    const job = rayJobWith(({ cluster, pod }) => {
      cluster.workerGroupSpecs = [{ rayStartParams: {}, template: { spec: pod } }];
    });
    expect(validateRayJob(job)).toEqual(["spec.rayClusterSpec.workerGroupSpecs[0].groupName: required"]);
  });

  it("rejects a quantity that is not one, naming the resource", () => {
    const job = rayJobWith(({ pod }) => {
      pod.containers = [{ ...HEAD_CONTAINER, resources: { limits: { "nvidia.com/gpu": "eight" } } }];
    });
    const [problem, ...rest] = validateRayJob(job);
    expect(problem).toMatch(
      /^spec\.rayClusterSpec\.headGroupSpec\.template\.spec\.containers\[0\]\.resources\.limits\[nvidia\.com\/gpu\]: must match pattern/,
    );
    expect(rest).toEqual([]);
  });

  it("rejects two containers with the same name (a list-type map keyed by name)", () => {
    const job = rayJobWith(({ pod }) => {
      pod.containers = [{ ...HEAD_CONTAINER }, { ...HEAD_CONTAINER, image: "busybox" }];
    });
    expect(validateRayJob(job)).toEqual([
      'spec.rayClusterSpec.headGroupSpec.template.spec.containers[1]: duplicate entry {"name":"ray-head"}',
    ]);
  });

  it("checks label keys and values as Kubernetes does", () => {
    const labels = { "bad key!": "ok", good: "v".repeat(64), empty: "" };
    const job = { ...minimalRayJob(), metadata: { name: "demo", labels } };
    expect(validateRayJob(job)).toEqual([
      "metadata.labels[bad key!]: name must be alphanumerics, '-', '_' or '.', starting and ending alphanumeric",
      "metadata.labels[good]: value must be no more than 63 characters",
    ]);
  });

  it("rejects a 48-character name (KubeRay's limit is 47) and accepts 47", () => {
    const named = (name: string) => ({ ...minimalRayJob(), metadata: { name } });
    expect(validateRayJob(named("a".repeat(47)))).toEqual([]);
    expect(validateRayJob(named("a".repeat(48)))).toEqual([
      "metadata.name: must be no more than 47 characters for a RayJob (KubeRay)",
    ]);
  });

  it("rejects a name that is a DNS subdomain but not a DNS-1035 label", () => {
    const job = { ...minimalRayJob(), metadata: { name: "1st.run" } };
    expect(validateRayJob(job)).toEqual([
      "metadata.name: must be a DNS-1035 label (a-z, 0-9 or '-', starting with a letter, ending alphanumeric)",
    ]);
  });

  it("rejects an apiVersion the CRD does not serve", () => {
    const job = { ...minimalRayJob(), apiVersion: "ray.io/v2" };
    expect(validateRayJob(job)).toEqual(["apiVersion: must be one of ray.io/v1, ray.io/v1alpha1"]);
  });

  it("rejects another kind", () => {
    const job = { ...minimalRayJob(), kind: "RayCluster" };
    expect(validateRayJob(job)).toEqual(["kind: must be RayJob"]);
  });

  it("validates ray.io/v1alpha1 against its own schema, which has no backoffLimit", () => {
    const v1Job = rayJobWith(({ spec }) => {
      spec.backoffLimit = 0;
    });
    const job = { ...v1Job, apiVersion: "ray.io/v1alpha1" };
    expect(validateRayJob(job)).toEqual(["spec.backoffLimit: unknown field"]);
  });

  it("compiles each CRD file once", () => {
    const file = "test/fixtures/kuberay/ray.io_rayjobs.yaml";
    expect(crdValidator(file)).toBe(crdValidator(file));
  });
});
