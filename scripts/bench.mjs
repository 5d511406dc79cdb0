#!/usr/bin/env node
// `npm run bench`: every speed claim, measured on this machine next to a baseline from the same run, and
// written to docs/benchmarks.md, docs/bench-results.json and docs/bench/*.png (docs/benchmarks.md says
// what each benchmark does). Traffic goes to loopback only; everything it starts, it stops.
//
//   --quick        a subset for before/after checks during development (< 2 minutes); writes to a
//                  temporary directory unless --out is given, so the committed report stays a full run
//   --only LIST    comma-separated: admissions, placement, scheduling, pipeline, running, cli, console
//   --out DIR      where the report goes (default: docs/ for a full run)
//   --json         also print the results as JSON on stdout
//   --skip-upload  leave out the re-submit benchmark (it starts a control plane and uploads 100 MB)
//   --merge        with --only: keep the sections of the existing report (in the output directory) that
//                  this run does not measure, so one section can be re-measured without the others
//
// Needs `npm run build` (dist/sf.mjs). The Slurm baseline needs the cluster of scripts/start-slurm.sh
// (as CI starts it); without it, the report says the Slurm targets were not measured.
import { execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchAdmissions } from "./bench/admissions.mjs";
import { benchHelp, benchResubmit, HELP_TARGET_MS, sfBuilt } from "./bench/cli.mjs";
import { benchConsole } from "./bench/console.mjs";
import { benchPipeline } from "./bench/pipeline.mjs";
import { benchPlacement } from "./bench/placement.mjs";
import {
  admissionPathTargets,
  admissionTargets,
  markdown,
  pipelineTargets,
  writePlots,
} from "./bench/report.mjs";
import { benchRunning } from "./bench/running.mjs";
import { benchScheduling } from "./bench/scheduling.mjs";
import { slurmVersion } from "./bench/slurm.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean", default: false },
    "skip-upload": { type: "boolean", default: false },
    merge: { type: "boolean", default: false },
  },
});
const log = (m) => process.stderr.write(`bench: ${m}\n`);
const SECTIONS = ["admissions", "placement", "scheduling", "pipeline", "running", "cli", "console"];
const only = new Set((opts.only ?? SECTIONS.join(",")).split(",").map((s) => s.trim()));
for (const o of only) {
  if (!SECTIONS.includes(o)) {
    log(`--only takes ${SECTIONS.join(", ")}; got "${o}"`);
    process.exit(2);
  }
}
if ((only.has("cli") || only.has("pipeline") || only.has("running")) && !sfBuilt()) {
  log("dist/sf.mjs is missing; run `npm run build` first");
  process.exit(2);
}
const quick = opts.quick;
const out = resolve(
  opts.out ?? (quick ? mkdtempSync(join(tmpdir(), "sf-bench-report-")) : join(root, "docs")),
);
mkdirSync(join(out, "bench"), { recursive: true });

const version = (pkg) =>
  JSON.parse(execSync(`node -p "JSON.stringify(require('${pkg}/package.json'))"`, { cwd: root })).version;
const results = {
  quick,
  started_at: new Date().toISOString(),
  environment: {
    commit: execSync("git rev-parse --short HEAD", { cwd: root }).toString().trim(),
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? "unknown",
    memory_gib: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    miniflare: version("miniflare"),
    wrangler: version("wrangler"),
    slurm: slurmVersion(),
  },
};
const timed = async (name, f) => {
  const t0 = Date.now();
  log(`${name}…`);
  const r = await f();
  log(`${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return r;
};

if (only.has("admissions")) {
  results.admissions = await timed("admissions", () =>
    benchAdmissions(
      quick
        ? {
            concurrencies: [1, 8],
            depths: [0, 1000],
            requests: 300,
            baselineRequests: 1000,
            slurmRequests: 200,
            lagSamples: 50,
            arraySize: 1000,
            rounds: 1,
          }
        : {
            concurrencies: [1, 8, 32, 128],
            depths: [0, 1000, 10_000],
            // As many as each baseline's point: at 1 client a point of 1,000 lasted about a second.
            requests: 3000,
            baselineRequests: 3000,
            slurmRequests: 500,
          },
    ),
  );
}
if (only.has("placement")) {
  results.placement = await timed("placement", () =>
    benchPlacement(
      quick
        ? { requests: 300, concurrency: 8, rounds: 1, warmup: 200 }
        : { requests: 1500, concurrency: 8, rounds: 3, warmup: 1000 },
    ),
  );
}
if (only.has("scheduling")) {
  results.scheduling = await timed("scheduling", () =>
    benchScheduling(
      quick
        ? { queues: [100, 1000, 10_000], nodes: [10, 100], repeats: 1 }
        : { queues: [100, 1000, 10_000], nodes: [10, 100, 1000], repeats: 3 },
    ),
  );
}
if (only.has("pipeline")) {
  results.pipeline = await timed("pipeline", () =>
    benchPipeline(
      quick
        ? { samples: 50, fanInAgents: 200, heartbeatMs: 2000, points: 20_000, lines: 10_000, tailSamples: 30 }
        : {
            samples: 300,
            fanInAgents: 1000,
            heartbeatMs: 2000,
            points: 100_000,
            lines: 50_000,
            tailSamples: 200,
          },
    ),
  );
}
if (only.has("running")) {
  results.running = await timed("running", () =>
    benchRunning({ samples: quick ? 3 : 15, slurm: results.environment.slurm !== null }),
  );
}
if (only.has("cli")) {
  results.cli = await timed("cli", async () => ({
    help: benchHelp(quick ? 5 : 15),
    resubmit:
      opts["skip-upload"] || quick
        ? null
        : await benchResubmit().catch((err) => ({ error: String(err?.message ?? err), pass: false })),
  }));
}
if (only.has("console")) {
  results.console = await timed("console", () =>
    benchConsole(quick ? { jobs: 1000, requests: 100 } : { jobs: 1000, requests: 300 }),
  );
}
results.finished_at = new Date().toISOString();
// The commit each section was measured at (a merged report keeps sections of earlier runs).
results.section_commits = Object.fromEntries(
  SECTIONS.filter((s) => results[s]).map((s) => [s, results.environment.commit]),
);
if (opts.merge) {
  const previous = JSON.parse(readFileSync(join(out, "bench-results.json"), "utf8"));
  const before = previous.environment ?? {};
  // A report written before section_commits: its own sections are its commit, the ones it kept its `from`.
  const keptFrom = (s) =>
    previous.section_commits?.[s] ??
    (previous.merged && !previous.merged.sections.includes(s) ? previous.merged.from : before.commit) ??
    null;
  for (const section of SECTIONS)
    if (!only.has(section) && previous[section]) {
      results[section] = previous[section];
      results.section_commits[section] = keptFrom(section);
    }
  results.merged = {
    from: before.commit ?? null,
    machine: `${before.cpus} × ${before.cpu_model}, ${before.memory_gib} GiB RAM`,
    sections: [...only],
  };
  // The kept sections were measured with the previous run's Slurm (when it had one).
  results.environment.slurm ??= previous.environment?.slurm ?? null;
}

writeFileSync(join(out, "bench-results.json"), `${JSON.stringify(results, null, 2)}\n`);
await writePlots(results, join(out, "bench"));
writeFileSync(join(out, "benchmarks.md"), markdown(results));
// A report inside the repository is put in the house format (biome formats markdown too), so a committed
// report passes `npm run lint`; biome does not format files outside the project.
if (out.startsWith(`${root}/`)) {
  const biome = join(root, "node_modules", ".bin", "biome");
  execSync(`${JSON.stringify(biome)} format --write ${JSON.stringify(join(out, "benchmarks.md"))}`, {
    cwd: root,
    stdio: "ignore",
  });
}
log(`report: ${join(out, "benchmarks.md")}`);
if (opts.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);

// The summary on stdout, one line per target.
const lines = [];
if (results.admissions) {
  for (const t of admissionTargets(results.admissions)) {
    lines.push(
      `admissions, ${t.concurrency} client(s): ${t.rate}/s; vs Slurm ${t.vs_slurm?.toFixed(2) ?? "n/a"}× (target 2×), vs no-op DO ${(t.vs_noop_do * 100).toFixed(0)} %, ${t.deep_depth} queued vs 0: ${(t.deep_vs_empty * 100).toFixed(0)} % (target 80 %)`,
    );
  }
  for (const t of admissionPathTargets(results.admissions))
    lines.push(
      `${t.target}: ${t.measured} (${t.holds === null ? "not measured" : t.holds ? "holds" : "missed"})`,
    );
}
for (const t of pipelineTargets(results))
  lines.push(
    `${t.target}: ${t.measured} (${t.holds === null ? "not measured" : t.holds ? "holds" : "missed"})`,
  );
if (results.console) {
  const k = results.console;
  lines.push(
    `console jobs page, ${k.jobs} jobs: p50 ${k.page.p50_ms} ms, p99 ${k.page.p99_ms} ms (target ≤ ${k.target_ms} ms: ${k.holds ? "holds" : "missed"}); GET /v1/jobs p50 ${k.api.p50_ms} ms, no-op p50 ${k.noop.p50_ms} ms`,
  );
}
if (results.cli?.help)
  lines.push(`sf --help: ${results.cli.help.sf_median_ms} ms (target ≤ ${HELP_TARGET_MS} ms)`);
if (results.cli?.resubmit)
  lines.push(
    `unchanged re-submit: ${results.cli.resubmit.error ?? `${results.cli.resubmit.bytes} B`} (target 0 B)`,
  );
if (!opts.json) for (const l of lines) console.log(l);
