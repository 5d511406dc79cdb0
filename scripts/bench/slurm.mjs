// The Slurm baseline: `sbatch --hold` (a job queued and held, never run) from `concurrency` parallel shell
// loops, against the one-host cluster of scripts/start-slurm.sh (the one CI starts). Each point's jobs
// are cancelled afterwards. Returns null when no Slurm answers here (the report then says so).
import { spawn, spawnSync } from "node:child_process";
import { round } from "./load.mjs";

const STATE = process.env.SF_SLURM_STATE || "/var/lib/starforge-ci/slurm";
const env = () => ({ ...process.env, SLURM_CONF: process.env.SLURM_CONF || `${STATE}/slurm.conf` });

export function slurmVersion() {
  const r = spawnSync("sbatch", ["--version"], { env: env(), encoding: "utf8" });
  if (r.status !== 0) return null;
  const ping = spawnSync("scontrol", ["ping"], { env: env(), encoding: "utf8" });
  return ping.status === 0 && /UP/.test(ping.stdout) ? r.stdout.trim() : null;
}

/** Cancels the point's jobs and waits until slurmctld has let go of them, so the next point starts quiet. */
async function cancel(name) {
  spawnSync("scancel", ["--name", name], { env: env() });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const q = spawnSync("squeue", ["-h", "-n", name, "-o", "%i"], { env: env(), encoding: "utf8" });
    if (q.status === 0 && q.stdout.trim() === "") return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `total` held submissions from `concurrency` loops; rate over the wall time. */
export async function sbatchRate({ concurrency, total }) {
  const name = `sf-bench-${process.pid}`;
  const each = Math.ceil(total / concurrency);
  const loop = `for i in $(seq ${each}); do sbatch --hold -Q -J ${name} -o /dev/null --wrap true >/dev/null || exit 1; done`;
  const t0 = process.hrtime.bigint();
  try {
    const codes = await Promise.all(
      Array.from(
        { length: concurrency },
        () =>
          new Promise((ok) => {
            const p = spawn("bash", ["-c", loop], { env: env(), stdio: "ignore" });
            p.on("exit", (code) => ok(code));
          }),
      ),
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (codes.some((c) => c !== 0)) throw new Error("sbatch failed; is scripts/start-slurm.sh's cluster up?");
    return {
      requests: each * concurrency,
      concurrency,
      seconds: round(seconds, 3),
      rate: round((each * concurrency) / seconds),
    };
  } finally {
    await cancel(name);
  }
}

/** One `sbatch --hold --array=0-(size-1)`: how long Slurm takes to accept a job array of `size`. */
export async function sbatchArray(size) {
  const name = `sf-bench-array-${process.pid}`;
  const t0 = process.hrtime.bigint();
  try {
    const r = spawnSync(
      "sbatch",
      ["--hold", "-Q", "-J", name, "-o", "/dev/null", `--array=0-${size - 1}`, "--wrap", "true"],
      { env: env(), encoding: "utf8" },
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`sbatch --array failed: ${r.stderr}`);
    return { jobs: size, seconds: round(seconds, 3), ms: round(seconds * 1000) };
  } finally {
    await cancel(name);
  }
}
