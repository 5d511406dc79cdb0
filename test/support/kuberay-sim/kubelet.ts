/**
 * The kubelet: secret volumes and env resolved (or FailedMount, CreateContainerConfigError), image
 * pulls (or their failure), containers started and restarted, graceful deletion with the preStop
 * hook, SIGTERM and SIGKILL, and the Events it records.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { type Json, type KubeObject, kubeTime } from "../k8s-sim.js";
import type { OperatorContext, PodState } from "./context.js";
import type { RayJobController } from "./job-controller.js";
import { setCondition } from "./pod-status.js";
import { killMarked, processGroupAlive, removeDirs, signalGroup } from "./process-group.js";
import {
  type Container,
  type ContainerStatus,
  containersOf,
  type PodSpec,
  type SecretMount,
  str,
} from "./views.js";

export class Kubelet {
  private nextIp = 10;

  constructor(
    private readonly ctx: OperatorContext,
    private readonly rayJobs: RayJobController,
  ) {}

  /** ContainerCreating, then the image (or its failure), the env (or CreateContainerConfigError), then Running. */
  startContainers(pod: KubeObject, ps: PodState): void {
    const spec = pod.spec as unknown as PodSpec;
    const host = spec.nodeName ?? "";
    const main = spec.containers[0];
    const image = main?.image ?? "";
    const isHead = pod.metadata.labels?.["ray.io/node-type"] === "head";
    const statuses = (pod.status?.containerStatuses as ContainerStatus[] | undefined) ?? [];
    if (!statuses.length) {
      this.setWaiting(pod, "ContainerCreating", undefined, true);
      this.ctx.event(pod, "Normal", "Pulling", `Pulling image "${image}"`, "kubelet", host, main?.name);
      return;
    }
    if (isHead && this.ctx.jobStateOfPod(pod)?.imagePullFails) {
      this.failPull(pod, image, host, main?.name);
      return;
    }
    const mounts = this.resolveMounts(pod, main);
    if (typeof mounts === "string") {
      // The kubelet cannot mount it: the container is never created (ContainerCreating), FailedMount.
      const waiting = statuses[0]?.state.waiting as Json | undefined;
      if (waiting?.message === mounts) return;
      this.setWaiting(pod, "ContainerCreating", mounts, false);
      this.ctx.event(pod, "Warning", "FailedMount", mounts, "kubelet", host, main?.name);
      return;
    }
    ps.mounts = mounts;
    const env = this.resolveEnv(pod, main);
    if (typeof env === "string") {
      const waiting = statuses[0]?.state.waiting as Json | undefined;
      if (waiting?.message === env) return;
      this.setWaiting(pod, "CreateContainerConfigError", env, false);
      this.ctx.event(pod, "Warning", "Failed", `Error: ${env}`, "kubelet", host, main?.name);
      return;
    }
    ps.env = env;
    for (const c of spec.containers) {
      this.ctx.event(
        pod,
        "Normal",
        "Pulled",
        `Successfully pulled image "${c.image}" in 812ms (812ms including waiting). Image size: 1482219532 bytes.`,
        "kubelet",
        host,
        c.name,
      );
      this.ctx.event(pod, "Normal", "Created", `Created container: ${c.name}`, "kubelet", host, c.name);
      this.ctx.event(pod, "Normal", "Started", `Started container ${c.name}`, "kubelet", host, c.name);
    }
    const startedAt = kubeTime();
    this.ctx.patchPod(pod, (s) => {
      s.phase = "Running";
      s.podIP = s.podIP ?? `10.244.0.${this.nextIp++}`;
      s.podIPs = [{ ip: s.podIP }];
      for (const c of s.containerStatuses) {
        Object.assign(c, {
          state: { running: { startedAt } },
          ready: true,
          started: true,
          containerID: `containerd://${randomHex()}`,
        });
      }
      for (const t of ["Initialized", "ContainersReady", "Ready"]) setCondition(s.conditions, t, "True");
    });
  }

  private failPull(pod: KubeObject, image: string, host: string, container?: string): void {
    const ps = this.ctx.podState(pod);
    const statuses = (pod.status?.containerStatuses as ContainerStatus[] | undefined) ?? [];
    const reason = str((statuses[0]?.state.waiting as Json | undefined)?.reason);
    if (!ps.pullReported) {
      ps.pullReported = true;
      const why = `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
      this.setWaiting(pod, "ErrImagePull", why, false);
      this.ctx.event(
        pod,
        "Warning",
        "Failed",
        `Failed to pull image "${image}": ${why}`,
        "kubelet",
        host,
        container,
      );
      this.ctx.event(pod, "Warning", "Failed", "Error: ErrImagePull", "kubelet", host, container);
    } else if (reason === "ErrImagePull") {
      this.setWaiting(pod, "ImagePullBackOff", `Back-off pulling image "${image}"`, false);
      this.ctx.event(
        pod,
        "Normal",
        "BackOff",
        `Back-off pulling image "${image}"`,
        "kubelet",
        host,
        container,
      );
      this.ctx.event(pod, "Warning", "Failed", "Error: ImagePullBackOff", "kubelet", host, container);
    }
  }

  /** After OOMKilled: the kubelet starts the container again (restartCount+1, lastState.terminated). */
  restartContainer(pod: KubeObject, ps: PodState): void {
    const terminated = ps.restartPending;
    ps.restartPending = undefined;
    const startedAt = kubeTime();
    this.ctx.patchPod(pod, (s) => {
      const c = s.containerStatuses[0];
      if (c)
        Object.assign(c, {
          lastState: { terminated },
          state: { running: { startedAt } },
          ready: true,
          started: true,
          restartCount: c.restartCount + 1,
        });
      for (const t of ["ContainersReady", "Ready"]) setCondition(s.conditions, t, "True");
    });
    const c0 = containersOf(pod)[0];
    this.ctx.event(
      pod,
      "Normal",
      "Started",
      `Started container ${c0?.name}`,
      "kubelet",
      str(pod.spec?.nodeName),
      c0?.name,
    );
  }

  /**
   * Graceful deletion: SIGTERM to the pod's processes, SIGKILL once the grace period (scaled) is over,
   * then the pod is removed. A head pod going while its RayJob runs takes the Ray job with it.
   */
  terminate(pod: KubeObject): void {
    const ps = this.ctx.podState(pod);
    const e = this.ctx.entrypoints.get(pod.metadata.uid);
    if (ps.terminatingAt === undefined) {
      ps.terminatingAt = Date.now();
      this.loseHeadOf(pod);
      // The kubelet runs the container's preStop hook first, and only then sends SIGTERM.
      const hook = containersOf(pod)[0]?.lifecycle?.preStop?.exec?.command;
      if (e && hook?.length) ps.preStop = this.runPreStop(hook, ps.env ?? {});
      else if (e) signalGroup(e.pgid, "SIGTERM");
      for (const c of containersOf(pod)) {
        this.ctx.event(
          pod,
          "Normal",
          "Killing",
          `Stopping container ${c.name}`,
          "kubelet",
          str(pod.spec?.nodeName),
          c.name,
        );
      }
    }
    const grace = (pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000 * this.ctx.graceScale;
    if (ps.preStop) {
      if (!ps.preStop.done && Date.now() - ps.terminatingAt < grace) return;
      ps.preStop = undefined;
      // SIGTERM to a Ray container's PID 1 (`ray start --block`) ends every Ray process at once.
      if (e) killMarked(pod.metadata.uid);
    }
    if (e && processGroupAlive(e.pgid)) {
      if (Date.now() - ps.terminatingAt < grace) return;
      signalGroup(e.pgid, "SIGKILL");
      return;
    }
    if (e) {
      clearTimeout(e.killTimer);
      killMarked(pod.metadata.uid);
      removeDirs(e.dirs);
      this.ctx.entrypoints.delete(pod.metadata.uid);
    }
    this.ctx.store.remove("pods", this.ctx.ns, pod.metadata.name);
  }

  /** Runs a preStop exec hook as the kubelet does: in the container (here: with its environment). */
  private runPreStop(command: string[], env: Record<string, string>): { done: boolean } {
    const state = { done: false };
    const child = spawn(command[0]!, command.slice(1), {
      env: { ...env, PATH: this.ctx.options.path ?? process.env.PATH ?? "/usr/bin:/bin" },
      stdio: "ignore",
    });
    child.on("exit", () => {
      state.done = true;
    });
    child.on("error", () => {
      state.done = true;
    });
    return state;
  }

  /** A head pod deleted under a Running RayJob (preempted, or removed by hand). */
  private loseHeadOf(pod: KubeObject): void {
    if (pod.metadata.labels?.["ray.io/node-type"] !== "head") return;
    const job = this.ctx.jobOfPod(pod);
    if (job && !job.metadata.deletionTimestamp) this.rayJobs.headLost(job.metadata.name);
  }

  /**
   * The container's secret volumes (files and where they are mounted), or why the kubelet cannot mount
   * them (`MountVolume.SetUp failed …`). The entrypoint process sees them at their mount paths, as the
   * head pod would: the simulator writes them there (on this host) and removes them with the pod.
   */
  private resolveMounts(pod: KubeObject, c: Container | undefined): SecretMount[] | string {
    const volumes = (pod.spec as unknown as PodSpec).volumes ?? [];
    const out: SecretMount[] = [];
    for (const m of c?.volumeMounts ?? []) {
      const v = volumes.find((x) => x.name === m.name);
      if (!v?.secret) continue;
      const s = this.ctx.store.get("secrets", this.ctx.ns, v.secret.secretName);
      if (!s) {
        if (v.secret.optional) continue;
        return `MountVolume.SetUp failed for volume "${v.name}" : secret "${v.secret.secretName}" not found`;
      }
      const files: Record<string, string> = {};
      for (const [k, b64] of Object.entries((s.data ?? {}) as Record<string, string>)) files[k] = decode(b64);
      out.push({ mountPath: m.mountPath, mode: v.secret.defaultMode ?? 0o644, files });
    }
    return out;
  }

  /** The head container's env as the kubelet builds it, or why it cannot (CreateContainerConfigError). */
  private resolveEnv(pod: KubeObject, c: Container | undefined): Record<string, string> | string {
    const env: Record<string, string> = { HOSTNAME: pod.metadata.name };
    const secret = (name: string) => this.ctx.store.get("secrets", this.ctx.ns, name);
    for (const from of c?.envFrom ?? []) {
      if (!from.secretRef) continue;
      const s = secret(from.secretRef.name);
      if (!s && !from.secretRef.optional) return `secret "${from.secretRef.name}" not found`;
      for (const [k, v] of Object.entries((s?.data ?? {}) as Record<string, string>)) env[k] = decode(v);
    }
    for (const v of c?.env ?? []) {
      const ref = v.valueFrom?.secretKeyRef;
      if (!ref) {
        env[v.name] = v.value ?? "";
        continue;
      }
      const s = secret(ref.name);
      const data = (s?.data ?? {}) as Record<string, string>;
      if (!s && !ref.optional) return `secret "${ref.name}" not found`;
      if (s && data[ref.key] === undefined && !ref.optional)
        return `couldn't find key ${ref.key} in Secret ${this.ctx.ns}/${ref.name}`;
      if (data[ref.key] !== undefined) env[v.name] = decode(data[ref.key] ?? "");
    }
    return env;
  }

  private setWaiting(pod: KubeObject, reason: string, message: string | undefined, first: boolean): void {
    const spec = pod.spec as unknown as PodSpec;
    const notReady = `containers with unready status: [${spec.containers.map((c) => c.name).join(" ")}]`;
    this.ctx.patchPod(pod, (s) => {
      if (first) {
        s.hostIP = "10.0.0.10";
        s.startTime = kubeTime();
        s.containerStatuses = spec.containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: "",
          ready: false,
          started: false,
          restartCount: 0,
          lastState: {},
          state: {},
        }));
        setCondition(s.conditions, "Initialized", "True");
        setCondition(s.conditions, "ContainersReady", "False", "ContainersNotReady", notReady);
        setCondition(s.conditions, "Ready", "False", "ContainersNotReady", notReady);
      }
      const c = s.containerStatuses[0];
      if (c) c.state = { waiting: { reason, ...(message ? { message } : {}) } };
    });
  }
}

function decode(base64: string): string {
  return Buffer.from(base64, "base64").toString("utf8");
}

function randomHex(): string {
  return randomUUID().replaceAll("-", "").repeat(2);
}
