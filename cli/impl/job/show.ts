/** `sf job status ID`: one job, why it waits, its runs and its recent history. */
import type { Command } from "commander";
import type { Api } from "../../api.js";
import { authedApi } from "../../context.js";
import { c, emit, print, status } from "../../output.js";
import { age, colorTable, placementSummary } from "./format.js";
import { JobDetailResponse, parse } from "./schemas.js";

const LAST_EVENTS = 8;

export async function getJob(api: Api, id: string): Promise<JobDetailResponse> {
  return parse(JobDetailResponse, await api.get(`/v1/jobs/${encodeURIComponent(id)}`), "job");
}

function fleetOf(spec: unknown): string | null {
  const f = (spec as { resources?: { fleet?: unknown } } | null)?.resources?.fleet;
  return typeof f === "string" ? f : null;
}

export async function show(cmd: Command, id: string, o: { events?: string }): Promise<void> {
  const api = authedApi(cmd);
  const d = await getJob(api, id);
  const nEvents = o.events === undefined ? LAST_EVENTS : Math.max(0, Number(o.events) || 0);
  emit(d, () => {
    const j = d.job;
    print(`${c.bold(j.id)}  ${j.name}  ${status(j.status)}`);
    const fleet = fleetOf(j.spec) ?? j.fleet_id;
    print(
      c.dim(
        `${j.recipe} · ${j.gpus} GPU${j.gpus === 1 ? "" : "s"} · fleet ${fleet} · priority ${j.priority} · created ${age(j.created_at)} ago`,
      ),
    );
    if (j.status === "QUEUED") {
      if (j.pending_reasons.length === 0) print(`${c.yellow("waiting:")} for the next scheduling pass`);
      for (const r of j.pending_reasons)
        print(`${c.yellow("waiting:")} ${r.message} ${c.dim(`[${r.code}]`)}`);
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
          reason: r.reason,
          placement: placementSummary(r),
          started: r.allocated_at ? `${age(r.allocated_at)} ago` : "-",
          // Where the run continued from (a checkpoint of an earlier run); empty: it started fresh.
          from: r.resumed_from ? `step ${r.resumed_from.step ?? "?"} of ${r.resumed_from.run_id}` : null,
        })),
        ["attempt", "run", "status", "exit", "reason", "placement", "started", "from"],
        { status },
      );
    }
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
  for (const k of ["reason", "message", "note"]) if (typeof d[k] === "string") return d[k];
  return null;
}
