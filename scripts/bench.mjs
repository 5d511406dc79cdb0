#!/usr/bin/env node
// `npm run bench`: every speed claim, measured on this machine next to a baseline from the same run, and
// written to docs/benchmarks.md, docs/bench-results.json and docs/bench/*.png (docs/benchmarks.md says
// what each benchmark does). Traffic goes to loopback only; everything it starts, it stops.
//
//   --quick        a subset for before/after checks during development (< 2 minutes); writes to a
//                  temporary directory unless --out is given, so the committed report stays a full run
//   --only LIST    comma-separated: admissions, scheduling, pipeline, running, cli, console
//   --out DIR      where the report goes (default: docs/ for a full run)
//   --json         also print the results as JSON on stdout
//   --skip-upload  leave out the re-submit benchmark (it starts a control plane and uploads 100 MB)
//
// Needs `npm run build` (dist/sf.mjs). The Slurm baseline needs the cluster of scripts/start-slurm.sh
// (as CI starts it); without it, the report says the Slurm targets were not measured.
import { execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchAdmissions } from "./bench/admissions.mjs";
import { benchHelp, benchResubmit, HELP_TARGET_MS, sfBuilt } from "./bench/cli.mjs";
import { jsonClient } from "./bench/latency.mjs";
import { closedLoop } from "./bench/load.mjs";
import { benchPipeline } from "./bench/pipeline.mjs";
import { admissionTargets, markdown, pipelineTargets, writePlots } from "./bench/report.mjs";
import { benchRunning } from "./bench/running.mjs";
import { benchScheduling } from "./bench/scheduling.mjs";
import { benchUser, charlmSpec } from "./bench/setup.mjs";
import { slurmVersion } from "./bench/slurm.mjs";
import { startWorkerd } from "./bench/workerd.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean", default: false },
    "skip-upload": { type: "boolean", default: false },
  },
});
const log = (m) => process.stderr.write(`bench: ${m}\n`);
const SECTIONS = ["admissions", "scheduling", "pipeline", "running", "cli", "console"];
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
          }
        : {
            concurrencies: [1, 8, 32, 128],
            depths: [0, 1000, 10_000],
            requests: 1000,
            baselineRequests: 3000,
            slurmRequests: 500,
          },
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
      `admissions, ${t.concurrency} client(s): ${t.rate}/s; vs Slurm ${t.vs_slurm?.toFixed(2) ?? "n/a"}× (target 2×), vs no-op DO ${(t.vs_noop_do * 100).toFixed(0)} % (target 50 %), ${t.deep_depth} queued vs 0: ${(t.deep_vs_empty * 100).toFixed(0)} % (target 80 %)`,
    );
  }
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

/**
 * "console jobs page, 1,000 jobs": GET /console/jobs as a signed-in user who has `jobs` jobs (16 running on
 * two 8-GPU nodes, the rest queued), one client, after a warm-up. Measured next to, in the same run and
 * on the same workerd: GET /v1/jobs?limit=50 (the read the page makes, as a bearer-token call) and the
 * no-op route. Also the page with filters (state, method and a name search: the LIKE scans).
 */
async function benchConsole({ jobs, requests }) {
  const w = await startWorkerd();
  const api = jsonClient(w.url);
  try {
    const user = await benchUser(api, w.adminToken, {
      max_gpus: 16,
      max_jobs: 100_000,
      daily_gpu_hours: 1_000_000,
    });
    await api(w.adminToken, "POST", "/v1/fleets", { name: "bench-console", kind: "process" });
    for (const n of ["n1", "n2"]) {
      await api(w.adminToken, "POST", "/v1/fleets/bench-console/nodes", {
        name: `console-${n}`,
        series: "h200",
        gpus: 8,
      });
    }
    const spec = charlmSpec(user.charlmDigest, "bench-console");
    await closedLoop({
      url: `${w.url}/v1/jobs`,
      concurrency: 8,
      total: jobs,
      expect: 201,
      make: (i) => ({
        method: "POST",
        headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
        body: JSON.stringify({ ...spec, metadata: { name: `bench-${i}`, labels: {} } }),
      }),
    });
    // Sign in as a browser does; the session cookie is what the page needs.
    const signIn = await fetch(`${w.url}/console/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: w.url },
      body: new URLSearchParams({ token: user.token, next: "/console/jobs" }).toString(),
    });
    const cookie = signIn.headers.get("set-cookie")?.split(";")[0];
    if (signIn.status !== 303 || !cookie) throw new Error(`console sign-in: ${signIn.status}`);
    const page = () => ({ method: "GET", headers: { cookie } });
    const measure = async (url, make, n = requests) => {
      await closedLoop({ url, concurrency: 1, total: Math.min(50, n), make });
      return closedLoop({ url, concurrency: 1, total: n, make });
    };
    const rows = await fetch(`${w.url}/console/jobs`, { headers: { cookie } }).then((r) => r.text());
    const shown = (rows.match(/<tr data-job-id=/g) ?? []).length;
    if (shown !== 50) throw new Error(`the console jobs page showed ${shown} rows, not 50`);
    const consolePage = await measure(`${w.url}/console/jobs`, () => page());
    const filtered = await measure(
      `${w.url}/console/jobs?state=QUEUED&state=RUNNING&method=python%2Fcharlm&q=bench-9`,
      () => page(),
    );
    const apiList = await measure(`${w.url}/v1/jobs?limit=50`, () => ({
      method: "GET",
      headers: { authorization: `Bearer ${user.token}` },
    }));
    const noop = await measure(`${w.noopUrl}/noop`, () => ({ method: "GET" }));
    const TARGET_MS = 100;
    return {
      jobs,
      rows_per_page: shown,
      requests,
      page: consolePage,
      filtered,
      api: apiList,
      noop,
      target_ms: TARGET_MS,
      holds: consolePage.p99_ms <= TARGET_MS,
    };
  } finally {
    await w.stop();
  }
}
