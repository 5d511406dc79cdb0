// Scheduling decision time against queue depth × nodes: the pure policy's full pass, and the Fleet
// engine's rules in memory (a submit decided alone in a steady fleet, and a full pass). The subjects
// (scripts/bench/scheduling-engine.ts) are bundled with esbuild, as the Worker is, and run in this Node.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { median, round } from "./load.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const log = (m) => process.stderr.write(`bench: ${m}\n`);

export async function benchScheduling({ queues, nodes, repeats }) {
  const dir = mkdtempSync(join(tmpdir(), "sf-bench-sched-"));
  try {
    const out = join(dir, "engine.mjs");
    await build({
      entryPoints: [join(root, "scripts/bench/scheduling-engine.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: out,
      logLevel: "error",
    });
    const engine = await import(pathToFileURL(out).href);
    const points = [];
    for (const n of nodes) {
      for (const q of queues) {
        engine.policyPass(q, n); // warm-up
        const pass = median(Array.from({ length: repeats }, () => engine.policyPass(q, n).ms));
        engine.policyPass(q, n, true); // warm-up
        const teams = median(Array.from({ length: repeats }, () => engine.policyPass(q, n, true).ms));
        const e = engine.engineSubmit(q, n, 50);
        // One victim per sample, each a whole node: at most one sample per node.
        const pre = engine.enginePreempt(q, n, Math.min(20, n));
        points.push({
          queue: q,
          nodes: n,
          policy_full_pass_ms: round(pass, 3),
          policy_full_pass_teams_ms: round(teams, 3),
          policy_ms_per_job: round(pass / q, 4),
          engine_submit_ms: round(e.submitMs, 3),
          engine_full_pass_ms: round(e.fullPassMs, 2),
          engine_preempt_ms: round(pre.preemptMs, 3),
        });
        log(
          `scheduling ${q} queued × ${n} nodes: pass ${round(pass, 1)} ms (with 3 teams' quotas ${round(teams, 1)} ms), submit ${round(e.submitMs, 3)} ms, submit that preempts ${round(pre.preemptMs, 3)} ms`,
        );
      }
    }
    return {
      tool: "performance.now() around the decision in this Node process; median of the policy passes",
      repeats,
      points,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
