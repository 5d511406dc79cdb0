/**
 * Local process groups standing in for containers: signals to a group, killing every process that
 * carries a pod's marker (its cgroup), liveness read from /proc, and the directories they leave.
 * Linux only.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { constants } from "node:os";

export function signalNumber(signal: NodeJS.Signals | null): number | undefined {
  return signal ? constants.signals[signal] : undefined;
}

/** The environment variable that marks every process of a simulated container. */
export const POD_MARKER = "KUBERAY_SIM_POD";

/** SIGKILLs every process of a simulated container (its cgroup, as the container runtime would). */
export function killMarked(podUid: string): void {
  const needle = `${POD_MARKER}=${podUid}`;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(needle))
        process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (pgid <= 0) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/** Whether any process of the group is alive (not a zombie): read from /proc, as PID 1 here may not reap. */
export function processGroupAlive(pgid: number): boolean {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

export function removeDirs(dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
