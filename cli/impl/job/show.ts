/** `sf job status ID`: one job, why it failed or why it waits, its runs and its recent history. */
import type { Command } from "commander";
import {
  EnvironmentView,
  type EnvironmentView as EnvironmentViewT,
  HparamsView,
  type HparamsView as HparamsViewT,
} from "../../../contract/readback.schema.js";
import { JobDetailResponse } from "../../../contract/responses.schema.js";
import { type Api, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { c, emit, humanBytes, print, status } from "../../output.js";
import { failureBlock, outputWidth } from "./diagnosis.js";
import { age, colorTable, placementSummary } from "./format.js";

const LAST_EVENTS = 8;

export async function getJob(api: Api, id: string): Promise<JobDetailResponse> {
  return await api.get(route("/v1/jobs/{id}", { id }), JobDetailResponse);
}

function fleetOf(spec: unknown): string | null {
  const f = (spec as { resources?: { fleet?: unknown } } | null)?.resources?.fleet;
  return typeof f === "string" ? f : null;
}

/**
 * What the job's latest run reported about itself: its hyperparameters and environment. A job that has
 * not run has neither; a server too old for these routes leaves them out rather than failing the command.
 */
async function runReports(
  api: Api,
  id: string,
  hasRun: boolean,
): Promise<{ hparams: HparamsViewT | null; environment: EnvironmentViewT | null }> {
  if (!hasRun) return { hparams: null, environment: null };
  const [hp, env] = await Promise.allSettled([
    api.get(route("/v1/jobs/{id}/hparams", { id }), HparamsView),
    api.get(route("/v1/jobs/{id}/environment", { id }), EnvironmentView),
  ]);
  return {
    hparams: hp.status === "fulfilled" ? hp.value : null,
    environment: env.status === "fulfilled" ? env.value : null,
  };
}

export async function show(cmd: Command, id: string, o: { events?: string }): Promise<void> {
  const api = authedApi(cmd);
  const d = await getJob(api, id);
  const reports = await runReports(api, id, d.runs.length > 0);
  const nEvents = o.events === undefined ? LAST_EVENTS : Math.max(0, Number(o.events) || 0);
  emit({ ...d, ...reports }, () => {
    const j = d.job;
    print(`${c.bold(j.id)}  ${j.name}  ${status(j.status)}`);
    const fleet = fleetOf(j.spec) ?? j.fleet_id;
    print(
      c.dim(
        `${j.recipe} · ${j.gpus} GPU${j.gpus === 1 ? "" : "s"} · fleet ${fleet} · ${j.priority_class} priority (${j.priority})${j.team ? ` · team ${j.team}` : ""} · created ${age(j.created_at)} ago`,
      ),
    );
    if (j.status === "QUEUED") {
      if (j.pending_reasons.length === 0) print(`${c.yellow("waiting:")} for the next scheduling pass`);
      for (const r of j.pending_reasons)
        print(`${c.yellow("waiting:")} ${r.message} ${c.dim(`[${r.code}]`)}`);
    }
    // Why it failed comes before the rest: it is what a person opening a failed job wants to read.
    const failure = failureBlock(d, outputWidth());
    if (failure.length > 0) {
      print();
      for (const line of failure) print(line);
    }
    if (d.runs.length > 0) {
      print();
      print(c.bold("Runs"));
      colorTable(
        d.runs.map((r) => ({
          attempt: r.attempt,
          run: r.id,
          status: r.status,
          exit: r.exit_code,
          // A preempted run: the steps it trained past its last stored checkpoint (0: it stopped at one).
          reason:
            typeof r.steps_lost === "number"
              ? `${r.reason ?? "preempted"} (${r.steps_lost} step${r.steps_lost === 1 ? "" : "s"} lost)`
              : r.reason,
          // A run beyond its team's guarantee, on GPUs other teams left idle: they may reclaim them.
          placement: `${placementSummary(r)}${r.borrowed ? " (borrowed)" : ""}`,
          started: r.allocated_at ? `${age(r.allocated_at)} ago` : "-",
          // Where the run continued from (a checkpoint of an earlier run); empty: it started fresh.
          from: r.resumed_from ? `step ${r.resumed_from.step ?? "?"} of ${r.resumed_from.run_id}` : null,
        })),
        ["attempt", "run", "status", "exit", "reason", "placement", "started", "from"],
        { status },
      );
    }
    printHparams(reports.hparams);
    printEnvironment(reports.environment);
    const events = nEvents > 0 ? d.events.slice(-nEvents) : [];
    if (events.length > 0) {
      print();
      print(
        c.bold(
          d.events.length > events.length ? `Events (last ${events.length} of ${d.events.length})` : "Events",
        ),
      );
      colorTable(
        events.map((e) => ({
          when: `${age(e.ts)} ago`,
          change: `${e.from ?? "·"} → ${e.to}`,
          edge: e.edge,
          actor: e.actor,
          note: noteOf(e.detail),
        })),
        ["when", "change", "edge", "actor", "note"],
      );
    }
  });
}

/** The one human-relevant field of an event's detail (a stop reason, a failure reason). */
function noteOf(detail: unknown): string | null {
  if (!detail || typeof detail !== "object") return null;
  const d = detail as Record<string, unknown>;
  // A team took back the GPUs of its guarantee that this job had borrowed.
  if (d.preempted === true && d.cause === "reclaim" && typeof d.reclaiming_team === "string")
    return `reclaimed by team ${d.reclaiming_team}${typeof d.preempted_by === "string" ? ` for ${d.preempted_by}` : ""}: its guaranteed GPUs, which this job borrowed`;
  // A failure's event names its diagnosis: its class once made, "pending" for the seconds before.
  const dg = d.diagnosis;
  const cls = dg === "pending" ? "diagnosing…" : (dg as { class?: unknown } | null)?.class;
  for (const k of ["reason", "message", "note"])
    if (typeof d[k] === "string") return typeof cls === "string" ? `${d[k]} (${cls})` : d[k];
  return null;
}

function scalar(v: unknown): string {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}

function printHparams(h: HparamsViewT | null): void {
  const entries = h ? Object.entries(h.params) : [];
  if (entries.length === 0) return;
  print();
  print(c.bold("Hyperparameters"));
  colorTable(
    entries.map(([name, value]) => ({ name, value: scalar(value) })),
    ["name", "value"],
  );
}

type Probe = Record<string, unknown>;
const obj = (v: unknown): Probe => (v && typeof v === "object" && !Array.isArray(v) ? (v as Probe) : {});
const str = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

/** One line per probed host: host, python, OS, image, CPUs, memory, GPUs, package count. */
function probeLine(p: Probe): string {
  const cpu = obj(p.cpu);
  const gpus = Array.isArray(p.gpus) ? (p.gpus as Probe[]) : [];
  const names = new Map<string, number>();
  for (const g of gpus) names.set(str(g.name) ?? "GPU", (names.get(str(g.name) ?? "GPU") ?? 0) + 1);
  const parts = [
    str(p.hostname) ?? "?",
    str(obj(p.python).version) ? `python ${obj(p.python).version}` : null,
    str(obj(p.platform).os),
    str(obj(p.image).ref) ? `image ${obj(p.image).ref}` : null,
    typeof cpu.count === "number" ? `${cpu.count} CPUs` : null,
    typeof p.memory_total_bytes === "number" ? `${humanBytes(p.memory_total_bytes)} RAM` : null,
    gpus.length ? [...names].map(([n, k]) => `${k}× ${n}`).join(", ") : "no GPUs seen",
    p.packages && typeof p.packages === "object" ? `${Object.keys(p.packages).length} packages` : null,
  ];
  return parts.filter((x) => x !== null).join(" · ");
}

function printEnvironment(e: EnvironmentViewT | null): void {
  if (!e || (e.probes.length === 0 && e.nodes.length === 0)) return;
  print();
  print(c.bold(`Environment ${c.dim(`(run ${e.run_id})`)}`));
  // One line per host: a host that sent several identical probes (the runner, report.init) shows once.
  const seen = new Set<string>();
  for (const p of e.probes) {
    const line = probeLine(p.probe);
    if (!seen.has(line)) print(`  ${line}`);
    seen.add(line);
  }
  const probed = new Set(e.probes.map((p) => p.hostname));
  const others = e.nodes.filter((n) => !probed.has(n.hostname)).map((n) => n.hostname);
  if (others.length) print(`  ${c.dim(`also on: ${others.join(", ")}`)}`);
}
