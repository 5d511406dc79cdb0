/**
 * Ray's job supervisor on the head, in process mode: it runs the RayJob's entrypoint as `bash -c` in
 * its own process group with the head container's env and secret volumes, collects its output, and
 * gives Ray's verdict and message when it exits.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "../k8s-sim.js";
import { type Entrypoint, type JobState, type OperatorContext, type RayRun, TERMINAL } from "./context.js";
import { POD_MARKER, removeDirs, signalNumber } from "./process-group.js";
import { specOf, statusOf, str } from "./views.js";

/** Runs each RayJob's entrypoint as Ray's job supervisor does: on the head, with the head container's environment. */
export class JobSupervisor {
  constructor(private readonly ctx: OperatorContext) {}

  startEntrypoint(job: KubeObject, st: JobState, run: RayRun): void {
    const head = this.ctx.headPod(str(statusOf(job).rayClusterName));
    if (!head) return;
    const env = this.ctx.podState(head).env ?? {};
    const mounted: string[] = [];
    for (const m of this.ctx.podState(head).mounts ?? []) {
      mkdirSync(m.mountPath, { recursive: true, mode: 0o700 });
      for (const [file, content] of Object.entries(m.files))
        writeFileSync(join(m.mountPath, file), content, { mode: m.mode });
      mounted.push(m.mountPath);
    }
    const home = mkdtempSync(join(tmpdir(), "kuberay-sim-home-"));
    const cwd = mkdtempSync(join(tmpdir(), "kuberay-sim-job-"));
    const child = spawn("bash", ["-c", specOf(job).entrypoint ?? ""], {
      cwd,
      // The marker stands for the container's cgroup: whatever the entrypoint starts (also in its own
      // session) ends with the container.
      env: {
        ...env,
        PATH: this.ctx.options.path ?? process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        [POD_MARKER]: head.metadata.uid,
      },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const name = job.metadata.name;
    const append = (d: Buffer) => this.ctx.logBuffers.set(name, this.ctx.logs(name) + d.toString("utf8"));
    child.stdout?.on("data", append);
    child.stderr?.on("data", append);
    const e: Entrypoint = {
      pgid: child.pid ?? -1,
      dirs: [home, cwd, ...mounted],
      lost: false,
      stopping: false,
    };
    // A head container restarted in place: the previous run's process group is already killed.
    const previous = this.ctx.entrypoints.get(head.metadata.uid);
    if (previous) removeDirs(previous.dirs);
    this.ctx.entrypoints.set(head.metadata.uid, e);
    child.on("error", (err) => this.ended(name, st, run, e, null, null, err));
    child.on("exit", (code, signal) => this.ended(name, st, run, e, code, signal));
    Object.assign(run, { status: "RUNNING", message: "Job is currently running.", startTime: Date.now() });
  }

  /** Ray's verdict on an entrypoint that exited: its words (job_supervisor.py, common.py). */
  private ended(
    name: string,
    st: JobState,
    run: RayRun,
    e: Entrypoint,
    code: number | null,
    signal: NodeJS.Signals | null,
    err?: Error,
  ): void {
    if (e.lost || st.run !== run || TERMINAL.has(run.status)) return;
    run.endTime = Date.now();
    if (e.stopping)
      return void Object.assign(run, { status: "STOPPED", message: "Job was intentionally stopped." });
    if (code === 0)
      return void Object.assign(run, { status: "SUCCEEDED", message: "Job finished successfully." });
    // Python's Popen.returncode: -N for a process killed by signal N.
    const exit = err ? 1 : (code ?? -(signalNumber(signal) ?? 9));
    const tail = this.tailOf(name, run);
    const message = tail
      ? `Job entrypoint command failed with exit code ${exit}, last available logs (truncated to 20,000 chars):\n${tail}`
      : `Job entrypoint command failed with exit code ${exit}. No logs available.`;
    Object.assign(run, { status: "FAILED", message });
  }

  /** The last 10 lines of this run's output, at most 20,000 characters (Ray's NUM_LOG_LINES_ON_ERROR). */
  private tailOf(name: string, run: RayRun): string {
    const text = this.ctx.logs(name).slice(run.logFrom);
    return text.split("\n").filter(Boolean).slice(-10).join("\n").slice(-20_000);
  }
}
