/**
 * A SIMULATOR of the KubeRay operator (v1.x RayJob and RayCluster controllers) and of what it relies on in
 * a cluster — the scheduler (binding pods to the node their affinity names), the kubelet (image pull,
 * container start, restarts, graceful pod deletion, Events) and Ray's job supervisor on the head (running
 * the entrypoint) — for tests of forgelet's KubeRay runtime. It works on a K8sSim's store directly, as
 * in-cluster controllers would (so it keeps running through an API outage), one reconcile step per object
 * per tick.
 *
 * The sequences follow ray-operator/controllers/ray/rayjob_controller.go and raycluster_controller.go
 * (KubeRay master, Aug 2026 ≈ v1.7) and Ray's dashboard job manager for job statuses and messages. In
 * "process" mode the entrypoint runs here as `bash -c` in its own process group with the head container's
 * env (secretKeyRef resolved); in "script" mode the test moves the Ray job with run()/finish().
 *
 * It does NOT do: Services, the K8sJobMode submitter Job/pod or SidecarMode container (the job is
 * submitted as if by them), InteractiveMode, autoscaling, GCS fault tolerance, batch schedulers,
 * deletionStrategy, clusterSelector, the validating webhook, CRD defaulting, real scheduling (no
 * resource fit, taints only from the named node), $(VAR) expansion, fieldRef/configMap env, image pulls,
 * or isolation of the entrypoint (it runs on this machine). Linux only (/proc for process groups).
 *
 * This module is the simulator's public face; its parts live in kuberay-sim/: api.ts (the interface),
 * operator.ts (the loop and the test's handles), job-controller.ts, cluster-controller.ts,
 * scheduler.ts, kubelet.ts, faults.ts, job-supervisor.ts and process-group.ts (the entrypoint's
 * processes), and the shared context.ts, views.ts and pod-status.ts.
 */
export type { KubeRaySim, KubeRaySimOptions } from "./kuberay-sim/api.js";
export { startKubeRaySim } from "./kuberay-sim/operator.js";
export { processGroupAlive } from "./kuberay-sim/process-group.js";
