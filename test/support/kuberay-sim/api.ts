/**
 * What a test sees of the simulated KubeRay operator: its options, and the faults and Ray job moves it
 * can be told to make.
 */

export interface KubeRaySimOptions {
  mode: "process" | "script";
  /** PATH of the entrypoint process (default: this process's). */
  path?: string;
  tickMs?: number;
  /** Multiplies every grace period (pod termination, Ray's stop wait), so tests need not wait 30 s. */
  graceScale?: number;
}

export interface KubeRaySim {
  /** The entrypoint's stdout and stderr (every run of the RayJob of that name, in order). */
  logs(rayJob: string): string;
  /** Script mode: the Ray job starts (PENDING → RUNNING) once submitted. */
  run(rayJob: string): void;
  /** Script mode: the Ray job ends (after run(), or from PENDING). */
  finish(rayJob: string, status: "SUCCEEDED" | "FAILED", message?: string): void;
  imagePullFails(rayJob: string): void;
  unschedulable(rayJob: string, message: string): void;
  oomKill(rayJob: string, pod?: string): void;
  evict(rayJob: string, pod: string): void;
  preempt(rayJob: string, pod: string): void;
  restartHead(rayJob: string): void;
  suspend(rayJob: string): void;
  /** Process groups of entrypoints that still have a live process. */
  liveProcessGroups(): number[];
  /** Errors the reconcilers threw (a bug in the simulator or an impossible object). */
  readonly errors: string[];
  stop(): Promise<void>;
}
