// docs/benchmarks.md from one run's results (bench-results.json): every figure with its same-run
// baseline, which targets hold, and why a missed one is missed. Plots are written next to it.
import { lineChart } from "./plot.mjs";

const yes = (ok) => (ok ? "**holds**" : "**missed**");
const pct = (x) => `${Math.round(x * 100)} %`;
const round = (x) => Math.round(x * 100) / 100;
const x2 = (x) => `${x.toFixed(2)}×`;

/** Target verdicts for the admission benchmark, per concurrency. */
export function admissionTargets(a) {
  const deepest = Math.max(...a.depths);
  return a.concurrencies.map((c) => {
    const at0 = a.admissions[0][c];
    const deep = a.admissions[deepest][c];
    const slurm = a.baselines.slurm[c];
    const noopDo = a.baselines.noop_do[c];
    return {
      concurrency: c,
      rate: at0.rate,
      vs_slurm: slurm ? at0.rate / slurm.rate : null,
      vs_noop_do: at0.rate / noopDo.rate,
      deep_depth: deepest,
      deep_vs_empty: deep.rate / at0.rate,
      holds: {
        slurm_2x: slurm ? at0.rate / slurm.rate >= 2 : null,
        noop_do_half: at0.rate / noopDo.rate >= 0.5,
        depth_80: deep.rate / at0.rate >= 0.8,
      },
    };
  });
}

/**
 * The admission path's own verdicts beyond admissionTargets: against the two-write chain (the structural
 * floor: the user's object, then the fleet's), D1 transactions per admission, the projection lag and a
 * job array: [{ target, measured, holds }] (holds null: not measured in this run).
 */
export function admissionPathTargets(a) {
  const out = [];
  for (const c of a.concurrencies) {
    const chain = a.baselines.chain2?.[c];
    const at0 = a.admissions[0][c];
    const calls = a.fleet_calls_per_admission?.[c];
    out.push({
      target: `admissions ≥ 50 % of a chain of two DO writes, ${c} client(s)`,
      measured: chain
        ? `${at0.rate}/s vs ${chain.rate}/s: ${pct(at0.rate / chain.rate)}${Number.isFinite(calls) ? ` (${calls} fleet-object calls per admission; the chain makes 1 per request)` : ""}`
        : "no chain baseline",
      holds: chain ? at0.rate / chain.rate >= 0.5 : null,
    });
  }
  const d1 = a.d1_batches_per_admission;
  if (d1) {
    for (const c of a.concurrencies.filter((x) => x >= 8)) {
      if (d1[c] === undefined) continue;
      out.push({
        target: `D1 transactions per admission ≤ 0.2 (0 on the path), ${c} client(s)`,
        measured: `${d1[c]} per admission, written after the answers (coalesced flushes)`,
        holds: d1[c] <= 0.2,
      });
    }
  }
  if (a.projection) {
    out.push({
      target: "projection lag (201 → the job's row in D1) p99 ≤ 1 s",
      measured: `p50 ${a.projection.p50_ms} ms, p99 ${a.projection.p99_ms} ms (${a.projection.samples} submits)`,
      holds: a.projection.p99_ms <= 1000,
    });
  }
  if (a.array) {
    const sl = a.array.slurm;
    out.push({
      target: `a ${a.array.jobs.toLocaleString("en")}-job array admitted ≤ 1 s`,
      measured: `${a.array.ms} ms${sl ? ` (Slurm sbatch --array: ${sl.ms} ms; ${x2(sl.ms / a.array.ms)} ours)` : ""}`,
      holds: a.array.ms <= 1000,
    });
  }
  return out;
}

/** Verdicts for the paths after admission: [{ target, measured, holds }]. */
/** Admissions with 3 candidate fleets against with 1 (the same run): the target is ≥ 80 %. */
export function placementTarget(pl) {
  const ratio = pl.points[3].rate / pl.points[1].rate;
  return { ratio, holds: ratio >= 0.8 };
}

export function pipelineTargets(r) {
  const out = [];
  const p = r.pipeline;
  if (p) {
    out.push({
      target: "submit → LaunchRequest at a connected agent: p50 ≤ 50 ms, p99 ≤ 200 ms",
      measured: `p50 ${p.launch.p50_ms} ms, p99 ${p.launch.p99_ms} ms (${p.launch.samples} submits, 1 agent)`,
      holds: p.launch.p50_ms <= 50 && p.launch.p99_ms <= 200,
    });
    if (p.fan_in) {
      out.push({
        target: `${p.fan_in.agents.toLocaleString("en")} agents heartbeating: dispatch p99 within 2× of 1 agent`,
        measured: `p99 ${p.fan_in.p99_ms} ms vs ${p.launch.p99_ms} ms: ${(p.fan_in.p99_ms / p.launch.p99_ms).toFixed(2)}× (p50 ${p.fan_in.p50_ms} vs ${p.launch.p50_ms} ms)`,
        holds: p.fan_in.agents >= 1000 ? p.fan_in.p99_ms <= 2 * p.launch.p99_ms : null,
      });
    }
    const i = p.ingest;
    out.push({
      target: "ingest into one run ≥ 100k points/s and ≥ 50k lines/s, read back equal",
      measured: `${i.points_per_s} points/s, ${i.lines_per_s} lines/s; read back ${i.readback.points_read} points (${i.readback.points_equal ? "equal" : "NOT equal"}), ${i.readback.lines_read} lines (${i.readback.lines_equal ? "equal" : "NOT equal"})`,
      holds:
        i.points_per_s >= 100_000 &&
        i.lines_per_s >= 50_000 &&
        i.readback.points_equal &&
        i.readback.lines_equal,
    });
    out.push({
      target: "ingest ≥ 50 % of raw batched SQLite inserts (better-sqlite3)",
      measured: `points ${pct(i.points_per_s / i.sqlite_baseline.points_per_s)} (${i.sqlite_baseline.points_per_s}/s raw), lines ${pct(i.lines_per_s / i.sqlite_baseline.lines_per_s)} (${i.sqlite_baseline.lines_per_s}/s raw)`,
      holds:
        i.points_per_s >= 0.5 * i.sqlite_baseline.points_per_s &&
        i.lines_per_s >= 0.5 * i.sqlite_baseline.lines_per_s,
    });
    out.push({
      target: "log tail: ingest → SSE follower p99 ≤ 100 ms",
      measured: `p50 ${p.log_tail.p50_ms} ms, p99 ${p.log_tail.p99_ms} ms (${p.log_tail.samples} lines)`,
      holds: p.log_tail.p99_ms <= 100,
    });
  }
  const run = r.running;
  if (run) {
    out.push({
      target: "submit → RUNNING ≥ 10× faster than Slurm's sbatch → RUNNING",
      measured: run.slurm
        ? `p50 ${run.p50_ms} ms vs Slurm ${run.slurm.p50_ms} ms: ${(run.slurm.p50_ms / run.p50_ms).toFixed(1)}× faster`
        : `p50 ${run.p50_ms} ms (no Slurm here)`,
      holds: run.slurm ? run.slurm.p50_ms >= 10 * run.p50_ms : null,
    });
    if (run.placed)
      out.push({
        target: "a job placed over several fleets: submit → RUNNING p95 ≤ 2 s (process runtime)",
        measured: `p90 ${run.placed.p90_ms} ms, p99 ${run.placed.p99_ms} ms (named one fleet: p90 ${run.p90_ms} ms)`,
        holds: run.placed.p99_ms <= 2000,
      });
  }
  return out;
}

export async function writePlots(results, dir) {
  const files = [];
  const a = results.admissions;
  if (a) {
    const cs = a.concurrencies;
    const series = a.depths.map((d) => ({
      name: `admissions, ${d} queued`,
      points: cs.map((c) => [c, a.admissions[d][c].rate]),
    }));
    if (Object.keys(a.baselines.slurm).length)
      series.push({
        name: "Slurm sbatch --hold",
        dashed: true,
        points: cs.map((c) => [c, a.baselines.slurm[c].rate]),
      });
    series.push({
      name: "no-op DO RPC",
      dashed: true,
      points: cs.map((c) => [c, a.baselines.noop_do[c].rate]),
    });
    series.push({
      name: "one D1 write",
      dashed: true,
      points: cs.map((c) => [c, a.baselines.noop_d1[c].rate]),
    });
    await lineChart({
      file: `${dir}/admissions.png`,
      title: "Admissions into one fleet vs same-run baselines",
      xLabel: "concurrent clients",
      yLabel: "requests / s (log)",
      xs: cs,
      series,
      logY: true,
    });
    files.push("admissions.png");
  }
  const s = results.scheduling;
  if (s) {
    const qs = [...new Set(s.points.map((p) => p.queue))];
    const ns = [...new Set(s.points.map((p) => p.nodes))];
    const at = (q, n) => s.points.find((p) => p.queue === q && p.nodes === n);
    await lineChart({
      file: `${dir}/scheduling.png`,
      title: "Scheduling a submitted job vs queue depth (engine, in memory)",
      xLabel: "jobs queued",
      yLabel: "ms (log)",
      xs: qs,
      logY: true,
      series: [
        ...ns.map((n) => ({
          name: `submit decision, ${n} nodes`,
          points: qs.map((q) => [q, at(q, n).engine_submit_ms]),
        })),
        ...ns.map((n) => ({
          name: `full pass, ${n} nodes`,
          dashed: true,
          points: qs.map((q) => [q, at(q, n).policy_full_pass_ms]),
        })),
      ],
    });
    files.push("scheduling.png");
  }
  return files;
}

export function markdown(r) {
  const L = [];
  const env = r.environment;
  L.push("# Benchmarks");
  L.push("");
  L.push(
    r.merged
      ? `Written by \`npm run bench -- --only ${r.merged.sections.join(",")} --merge\` on ${r.finished_at} at commit \`${env.commit}\`: those sections were measured then; the others are kept from earlier runs (${keptSections(r)}) (raw: [bench-results.json](bench-results.json)). Within each section every figure sits next to a baseline measured in the same run, on the same machine, at the same concurrency: the machine is shared and noisy, so ratios are what carry over.`
      : `Written by \`npm run bench\`${r.quick ? " --quick" : ""} on ${r.finished_at} at commit \`${env.commit}\`; every number below is from that one run (raw: [bench-results.json](bench-results.json)). Each figure sits next to a baseline measured in the same run, on the same machine, at the same concurrency: the machine is shared and noisy, so ratios are what carry over.`,
  );
  L.push("");
  L.push(
    `Machine: ${env.cpus} × ${env.cpu_model}, ${env.memory_gib} GiB RAM, ${env.os}. Node ${env.node}, workerd from Miniflare ${env.miniflare}, wrangler ${env.wrangler}, Slurm: ${env.slurm ?? "not running"}.`,
  );
  if (r.merged?.machine)
    L.push(
      `\nThe kept sections ran on: ${r.merged.machine}. Compare ratios across sections, not absolute numbers.`,
    );
  L.push("");
  L.push("## Targets");
  L.push("");
  L.push("| target | measured | holds? |");
  L.push("|---|---|---|");
  const a = r.admissions;
  let targets = null;
  if (a) {
    targets = admissionTargets(a);
    for (const t of targets) {
      L.push(
        `| admissions ≥ 2× Slurm, ${t.concurrency} client(s) | ${t.rate}/s vs ${a.baselines.slurm[t.concurrency]?.rate ?? "—"}/s: ${t.vs_slurm === null ? "no Slurm here" : x2(t.vs_slurm)} | ${t.holds.slurm_2x === null ? "not measured" : yes(t.holds.slurm_2x)} |`,
      );
    }
    for (const t of targets) {
      L.push(
        `| admissions ≥ 50 % of a no-op DO RPC (the earlier target; an admission now makes two writing DO hops, see the chain), ${t.concurrency} client(s) | ${t.rate}/s vs ${a.baselines.noop_do[t.concurrency].rate}/s: ${pct(t.vs_noop_do)} | ${yes(t.holds.noop_do_half)} |`,
      );
    }
    for (const t of admissionPathTargets(a))
      L.push(`| ${t.target} | ${t.measured} | ${t.holds === null ? "not measured" : yes(t.holds)} |`);
    for (const t of targets) {
      L.push(
        `| admissions with ${t.deep_depth.toLocaleString("en")} queued ≥ 80 % of with 0, ${t.concurrency} client(s) | ${a.admissions[t.deep_depth][t.concurrency].rate}/s vs ${t.rate}/s: ${pct(t.deep_vs_empty)} | ${yes(t.holds.depth_80)}${t.deep_depth < 10_000 ? " (quick run: not 10,000)" : ""} |`,
      );
    }
  }
  const pl = r.placement;
  if (pl) {
    L.push(
      `| admissions with 3 candidate fleets ≥ 80 % of with 1, ${pl.concurrency} clients | ${pl.points[3].rate}/s vs ${pl.points[1].rate}/s: ${pct(pl.vs_single[3])} (10 candidates: ${pct(pl.vs_single[10])}) | ${yes(placementTarget(pl).holds)} |`,
    );
  }
  const s = r.scheduling;
  if (s) {
    const biggest = s.points.reduce((m, p) => (p.queue * p.nodes > m.queue * m.nodes ? p : m));
    L.push(
      `| scheduling decision ≤ 2 ms at 10k queued × 1k nodes | ${biggest.engine_submit_ms} ms at ${biggest.queue.toLocaleString("en")} × ${biggest.nodes.toLocaleString("en")} (engine in memory) | ${biggest.queue >= 10_000 && biggest.nodes >= 1_000 ? yes(biggest.engine_submit_ms <= 2) : "not measured (quick run)"} |`,
    );
    if (biggest.engine_preempt_ms !== undefined)
      L.push(
        `| decision with a preemption ≤ 2 ms at 10k queued × 1k nodes | ${biggest.engine_preempt_ms} ms at ${biggest.queue.toLocaleString("en")} × ${biggest.nodes.toLocaleString("en")} (engine in memory) | ${biggest.queue >= 10_000 && biggest.nodes >= 1_000 ? yes(biggest.engine_preempt_ms <= 2) : "not measured (quick run)"} |`,
      );
  }
  for (const t of pipelineTargets(r))
    L.push(`| ${t.target} | ${t.measured} | ${t.holds === null ? "not measured" : yes(t.holds)} |`);
  const c = r.cli;
  if (c?.help) {
    L.push(
      `| \`sf --help\` cold start ≤ 150 ms | ${c.help.sf_median_ms} ms (node -e "": ${c.help.node_baseline_median_ms} ms, ${c.help.ratio}×) | ${yes(c.help.pass)} |`,
    );
  }
  if (c?.resubmit) {
    L.push(
      c.resubmit.error
        ? `| unchanged re-submit uploads 0 bytes | error: ${c.resubmit.error} | **missed** |`
        : `| unchanged re-submit of a ${c.resubmit.workspace_mb} MB workspace uploads 0 bytes | ${c.resubmit.bytes} B (first submit: ${c.resubmit.first_upload.bytes} B) | ${yes(c.resubmit.pass)} |`,
    );
  }
  const k = r.console;
  if (k) {
    L.push(
      `| console jobs page for ${k.jobs.toLocaleString("en")} jobs ≤ ${k.target_ms} ms | p99 ${k.page.p99_ms} ms (p50 ${k.page.p50_ms} ms; ${k.page_vs_api}× the API read it renders) | ${yes(k.holds)} |`,
    );
  }
  for (const m of NOT_YET) L.push(`| ${m} | not measured yet | — |`);
  L.push("");
  if (a) {
    L.push("## Admissions into one fleet");
    L.push("");
    L.push(
      `${a.tool}. A request is what \`sf submit\` sends: a JobSpec (python/charlm, one GPU) and a fresh Idempotency-Key. The fleet has two admin-registered 8-GPU nodes, so its first 16 jobs start and every later one waits for capacity. Warm-up: ${a.warmup_requests} submits at 1 client and as many at 8 on a fleet of their own, and ${a.warmup_requests} requests to each baseline; then ${a.requests_per_point} submits per point (baselines: ${a.baseline_requests_per_point}; Slurm: the count in its row). Depth = jobs waiting when the point starts (each depth on a fresh fleet filled once; its rounds follow one another, each starting deeper by the last one's submits).${a.rounds > 1 ? ` At each concurrency the baselines and the admissions into an empty fleet are measured ${a.rounds} times, interleaved (Slurm's ${a.rounds} rounds come last, so that cancelling its held jobs overlaps nothing), and each figure is its median round: a ratio compares two medians of the same minutes, not two single seconds of a shared machine.` : ""}`,
    );
    L.push("");
    L.push("![admissions](bench/admissions.png)");
    L.push("");
    L.push(
      "| clients | depth | admissions/s | with D1 projection/s | p50 | p99 | re-sent | no-op route/s | no-op DO RPC/s | two DO writes/s | one D1 write/s | Slurm sbatch --hold/s |",
    );
    L.push("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const cc of a.concurrencies) {
      for (const d of a.depths) {
        const p = a.admissions[d][cc];
        const b = a.baselines;
        L.push(
          `| ${cc} | ${d.toLocaleString("en")} | ${p.rate} | ${p.projected_rate ?? "—"} | ${p.p50_ms} ms | ${p.p99_ms} ms | ${p.resent ?? "—"} | ${b.noop_route[cc].rate} | ${b.noop_do[cc].rate} | ${b.chain2?.[cc]?.rate ?? "—"} | ${b.noop_d1[cc].rate} | ${b.slurm[cc] ? `${b.slurm[cc].rate} (${b.slurm[cc].requests})` : "—"} |`,
        );
      }
    }
    L.push("");
    L.push(ADMISSION_NOTES(targets, a));
    L.push("");
  }
  if (s) {
    L.push("## Scheduling decision vs queue depth × nodes");
    L.push("");
    L.push(
      `${s.tool} (${s.repeats} repeats). Every node is full (8 GPUs booked), so every job waits: the case where a decision looks at the most. *Full pass*: the pure policy (scheduler/policy.ts) over the whole queue. *Submit decision*: the Fleet engine's rules (decide.ts) over the in-memory ledger for one submit to a steady fleet, which is decided alone (rules/schedule.ts \`scheduleSubmitted\`), including building its view of the nodes. The Durable Object runs the same rules over SQLite; its whole cost per submit shows in the admission figures above.`,
    );
    L.push("");
    L.push("![scheduling](bench/scheduling.png)");
    L.push("");
    L.push(
      "| queued | nodes | submit decision | submit that preempts | full pass | full pass per job | full pass, 3 teams' quotas |",
    );
    L.push("|---|---|---|---|---|---|---|");
    for (const p of s.points)
      L.push(
        `| ${p.queue.toLocaleString("en")} | ${p.nodes.toLocaleString("en")} | ${p.engine_submit_ms} ms | ${p.engine_preempt_ms ?? "—"} ${p.engine_preempt_ms === undefined ? "" : "ms"} | ${p.policy_full_pass_ms} ms | ${p.policy_ms_per_job} ms | ${p.policy_full_pass_teams_ms ?? "—"} ${p.policy_full_pass_teams_ms === undefined ? "" : "ms"} |`,
      );
    L.push("");
    L.push(
      "A submit's decision does not grow with the queue (it is decided alone); it grows with the nodes, because the decision builds the view of every node's free GPUs. A full pass (after a run ends, a node joins, a quota changes) groups the nodes once and summarizes each group's free GPUs until something is dispatched, so a job that fits nowhere is answered without scanning the nodes: on a full fleet it grows with queue + nodes, not queue × nodes; the queue is ordered by (priority, user) groups, not by a quadratic scan. _Submit that preempts_: every node runs one normal 8-GPU job past its minimum runtime and a `high` 8-GPU job is submitted to the steady fleet: it is decided alone, chooses its victim among the running jobs (listed once per change of the running set, lowest class first) and holds that node's GPUs. _3 teams' quotas_: the same full pass with the jobs spread over 3 teams that each hold a guarantee of a quarter of the GPUs (the rest borrowed), so every decision also orders by team (in guarantee first, borrowed per weight) and checks guarantees, borrow and lend limits (scheduler/teams.ts).",
    );
    L.push("");
  }
  const p = r.pipeline;
  if (p) {
    L.push("## After admission: launch, fan-in, ingest, log tail");
    L.push("");
    L.push(
      `On the same kind of workerd as the admissions (no wrangler proxy), with simulated agents (scripts/bench/agent.mjs: real WebSockets, the real frames, hello, \`ping\` heartbeats every ${p.fan_in ? p.fan_in.heartbeat_ms / 1000 : 2} s, an ack for every command; they run nothing). *Launch*: ${p.launch.tool}; each job is then stopped and its GPU released before the next submit (1 agent with 8 GPUs). *Fan-in*: the same with ${p.fan_in?.agents ?? 0} agents of one GPU each connected to one fleet. *Ingest*: ${p.ingest.tool}; ${p.ingest.points.toLocaleString("en")} points and ${p.ingest.lines.toLocaleString("en")} lines into one run, then all read back through \`GET /v1/jobs/:id/{metrics,logs}\` and compared; the baseline inserts the same rows into SQLite (better-sqlite3, in memory, one transaction per 256 rows, same keys and upserts) in this process. *Log tail*: ${p.log_tail.tool}.`,
    );
    L.push("");
    L.push("| measurement | p50 | p90 | p99 |");
    L.push("|---|---|---|---|");
    L.push(
      `| submit → LaunchRequest, 1 agent | ${p.launch.p50_ms} ms | ${p.launch.p90_ms} ms | ${p.launch.p99_ms} ms |`,
    );
    if (p.fan_in)
      L.push(
        `| submit → LaunchRequest, ${p.fan_in.agents} agents | ${p.fan_in.p50_ms} ms | ${p.fan_in.p90_ms} ms | ${p.fan_in.p99_ms} ms |`,
      );
    L.push(
      `| log line → SSE follower | ${p.log_tail.p50_ms} ms | ${p.log_tail.p90_ms} ms | ${p.log_tail.p99_ms} ms |`,
    );
    L.push("");
    L.push(
      `Ingest: ${p.ingest.points_per_s} points/s and ${p.ingest.lines_per_s} lines/s through the control plane; raw SQLite: ${p.ingest.sqlite_baseline.points_per_s} points/s and ${p.ingest.sqlite_baseline.lines_per_s} lines/s. Each ingest batch crosses HTTP, the Worker (token, schema of every item) and a Run DO RPC before its SQLite transaction, all on workerd's one thread here; the raw baseline is only the SQLite part, so the ratio is the share of the work that is the database.`,
    );
    L.push("");
  }
  const run = r.running;
  if (run) {
    L.push("## Submit → RUNNING");
    L.push("");
    L.push(
      `${run.tool}; ${run.samples} jobs after one warm-up: p50 ${run.p50_ms} ms, p90 ${run.p90_ms} ms, p99 ${run.p99_ms} ms.${run.placed ? ` The same job placed over two fleets (\`resources.fleets\`; the other has no node): p50 ${run.placed.p50_ms} ms, p90 ${run.placed.p90_ms} ms, p99 ${run.placed.p99_ms} ms (p99 stands in for the p95 target: it is the stricter).` : ""}${run.slurm ? ` Slurm (${run.slurm.tool}): p50 ${run.slurm.p50_ms} ms, p99 ${run.slurm.p99_ms} ms; its scheduler starts pending jobs on its own cycle.` : ""}`,
    );
    L.push("");
    const pre = run.preemption;
    if (pre) {
      L.push("## Preemption latency");
      L.push("");
      L.push(
        `${pre.tool}; ${pre.samples} preemptions after one warm-up, same control plane. Submit → the victim stopped (its job QUEUED again: the decision made and its stop sent to its agent): p50 ${pre.victim_stopped.p50_ms} ms, p99 ${pre.victim_stopped.p99_ms} ms. Submit → the preemptor RUNNING (the victim checkpointed on SIGTERM and exited, its GPUs went to the preemptor, which launched): p50 ${pre.preemptor_running.p50_ms} ms, p99 ${pre.preemptor_running.p99_ms} ms. The second is mostly the victim's own exit: it writes its checkpoint, the runner uploads it and drains the logs, the agent reports the end; its class would give it up to 60 s.`,
      );
      L.push("");
    }
  }
  if (c) {
    L.push("## The CLI");
    L.push("");
    if (c.help)
      L.push(
        `\`sf --help\` cold start: median of ${c.help.runs} runs of \`node dist/sf.mjs --help\`, interleaved with as many of \`node -e ""\`: ${c.help.sf_median_ms} ms vs ${c.help.node_baseline_median_ms} ms (+${c.help.overhead_ms} ms).`,
      );
    if (c.resubmit && !c.resubmit.error)
      L.push(
        `\nUnchanged re-submit: a throwaway control plane (\`npm start\`'s own script), a project with one experiment holding ${c.resubmit.workspace_mb} MB of data, \`sf submit --json\` twice: the first uploaded ${c.resubmit.first_upload.bytes} B in ${c.resubmit.first_upload.files} files, the second ${c.resubmit.bytes} B.`,
      );
    L.push("");
  }
  if (pl) {
    L.push("## Placement over several fleets");
    L.push("");
    L.push(
      `Admissions of one-GPU charlm jobs naming 1 fleet (\`resources.fleet\`, the baseline), or the first 3 or all ${pl.fleets} of ${pl.fleets} fleets (\`resources.fleets\`; each fleet has two admin-registered 8-GPU nodes), ${pl.concurrency} clients, ${pl.requests_per_point} submits per point after ${pl.warmup_requests} of each kind, ${pl.rounds} rounds interleaved (each figure its median round). A placed submit reads the fleets' capacity summaries (at most once a second per isolate) and ranks its candidates in memory; no fleet is asked. *Placing adds* is its median latency over the single-fleet submit's.`,
    );
    L.push("");
    L.push("| candidate fleets | admissions/s | vs 1 fleet | p50 | p99 | placing adds (p50) |");
    L.push("|---|---|---|---|---|---|");
    for (const k of Object.keys(pl.points)) {
      const p = pl.points[k];
      L.push(
        `| ${k} | ${p.rate} | ${pct(pl.vs_single[k])} | ${p.p50_ms} ms | ${p.p99_ms} ms | ${k === "1" ? "—" : `${pl.placement_ms[k]} ms`} |`,
      );
    }
    L.push("");
  }
  if (k) {
    L.push("## The web console's jobs page");
    L.push("");
    L.push(
      `GET /console/jobs as a signed-in user who has ${k.jobs.toLocaleString("en")} jobs (16 running, the rest queued; the page shows ${k.rows_per_page}), one client, ${k.requests} requests after a warm-up, on the same workerd as its baselines.`,
    );
    L.push("");
    L.push("| request | p50 | p90 | p99 |");
    L.push("| --- | --- | --- | --- |");
    for (const [label, m] of [
      ["console jobs page", k.page],
      ["the page with filters (states, method, name search)", k.filtered],
      ["GET /v1/jobs?limit=50 (the read the page renders)", k.api],
      ["no-op route (baseline)", k.noop],
    ])
      L.push(`| ${label} | ${m.p50_ms} ms | ${m.p90_ms} ms | ${m.p99_ms} ms |`);
    L.push("");
  }
  if (NOT_YET.length) {
    L.push("## Not measured yet");
    L.push("");
    L.push(`This report claims nothing about: ${NOT_YET.map((m) => m.replace(/\|/g, "/")).join("; ")}.`);
    L.push("");
  }
  return `${L.join("\n")}\n`;
}

/** Targets with no measurement yet (none at present); each becomes a "not measured yet" row. */
const NOT_YET = [];

/** "scheduling, pipeline at `abc1234`; cli at `def5678`": where a merged report's kept sections were measured. */
function keptSections(r) {
  const byCommit = new Map();
  for (const [section, commit] of Object.entries(r.section_commits ?? {})) {
    if (r.merged.sections.includes(section)) continue;
    byCommit.set(commit, [...(byCommit.get(commit) ?? []), section]);
  }
  if (byCommit.size === 0) return `at commit \`${r.merged.from}\``;
  return [...byCommit].map(([commit, sections]) => `${sections.join(", ")} at \`${commit}\``).join("; ");
}

function ADMISSION_NOTES(targets, a) {
  const c1 = a.concurrencies[0];
  const chain = a.baselines.chain2?.[c1]?.rate;
  const lines = [
    "**Where an admission's time goes.** An admission makes two Durable Object hops that each write, one after the other: the user's object (token, account, quota and Idempotency-Key checked, the job's slot reserved, atomically across fleets) and the fleet's (the job queued, scheduled and written to its outbox). The *two DO writes* column is that floor and nothing else: two RPCs in a row to SQLite-backed objects that each write the JobSpec as one row, one pair per request. Admissions are group-committed (decision 113): submits that reach an object while the isolate's call to it is in flight share its next call, served in one turn and one storage commit, so past one client an admission pays a share of each hop (the *fleet-object calls per admission* in the targets); the chain is not batched. " +
      `D1 is not on the path: the fleet writes its jobs to D1 after the answers, changes of ~100 ms in one batch (the *D1 transactions per admission* rows). workerd runs on one thread here: past a few clients everything shares one core, which is why no column scales with clients the way Slurm's multi-threaded slurmctld does on two cores.${chain ? ` With ${c1} client(s) the floor is ${chain}/s and admissions run at ${a.admissions[0][c1].rate}/s: the rest of an admission (HTTP, JSON, the spec's checks against the cached catalog, scheduling) costs ${round(1000 / a.admissions[0][c1].rate - 1000 / chain)} ms on top of the two writes' ${round(1000 / chain)} ms.` : ""}`,
  ];
  lines.push(
    "",
    "**Saturation on the local workerd.** Past a few clients workerd always has work queued, and its event loop then polls sockets and timers only when the queue empties: a connection it was not reading waits (the p99 column), the outbox's flush timer waits (so the batches per admission fall, and the projection's work is done after the point: *with D1 projection* counts the point's time until D1 held all its jobs), and when the loop polls again kept-alive connections waiting for their next request are closed unread. The load generator sends such a request again with its Idempotency-Key (*re-sent*; the latency counts from the first send). docs/operations.md, \"Known problem: the local stack under sustained saturation\", has the trace.",
  );
  const missed = targets?.filter((t) => t.holds.slurm_2x === false) ?? [];
  const belowHalf = a.concurrencies.filter((c) => {
    const chain2 = a.baselines.chain2?.[c]?.rate;
    return chain2 && a.admissions[0][c].rate / chain2 < 0.5;
  });
  if (missed.length > 0 || belowHalf.length > 0) {
    const why = [];
    if (missed.length > 0)
      why.push(
        `2× Slurm is missed at ${missed.map((t) => `${t.concurrency} client(s) (${x2(t.vs_slurm)})`).join(", ")}: slurmctld accepts held jobs on both cores, while everything of ours here runs on workerd's one thread, so the figure to compare is the two-DO-write floor beside it.`,
      );
    if (belowHalf.length > 0)
      why.push(
        `Half of that floor is missed at ${belowHalf.map((c) => `${c} client(s) (${pct(a.admissions[0][c].rate / a.baselines.chain2[c].rate)}; rounds ${a.admissions[0][c].rounds?.map((r, i) => pct(r / a.baselines.chain2[c].rounds[i])).join(", ") ?? "—"})`).join(", ")}. Where calls are shared (more clients) an admission pays a fraction of the two hops and passes half the floor; with one client nothing is shared. Measured as workerd's CPU per admission with one client (decision 115): the floor costs about 400 µs, an admission about 1,000, and the difference is spread thin: the request's log line (~35 µs), the spec's checks and the request's hash (~70 µs), the rest of the HTTP layer and authentication (~80 µs), the user's commit (~150 µs against ~115 µs for the floor's one-row commit) and the fleet's (~200 µs: the job's row and indexes and three outbox entries), scheduling and the outbox entries (~35 µs each), and the projection to D1 and to the user's object (~100 µs, which with one client blocks the next admission while it runs: the p99 column). No statement, RPC, page or hash is left that is worth more than a few percent alone; decisions 109, 110, 113, 115 and 118 took those that were (a profile of workerd with V8's perf map puts no JavaScript function above 3 % of an admission). The user's object and the fleet's are asked at once after a user's first submit (decision 119: +9 % at 1 client); what is left is spread over the HTTP layer, the two commits and the projection, none alone worth more than a few percent.`,
      );
    lines.push("", `**Why the missed targets are missed, and what is next.** ${why.join(" ")}`);
  }
  return lines.join("\n");
}
