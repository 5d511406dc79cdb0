/**
 * Everything GET /v1/admin/metrics reports, gathered in one D1 batch (fleets, counters, webhook backlog,
 * dispatch latency) and one read-only RPC per fleet (`FleetDO.stats`: queue, agents, GPUs, outbox), then
 * shaped into exposition families (metrics-exposition.ts). docs/operations.md "Metrics" says what each
 * series means; the names here and there are the same.
 */
import { and, eq, type SQLWrapper, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { API_VERSION, MIN_CLI_VERSION, PRODUCT_VERSION } from "../../contract/version.js";
import { type Db, db, schema } from "../../d1/client.js";
import { type AppEnv, config } from "../env.js";
import { AppError } from "../errors.js";
import { fleetStub } from "./fleets.service.js";
import { errorFields, log } from "./log.js";
import { type CounterRow, counterRowsQuery } from "./metrics-counters.js";
import type { Family, HistogramSeries, Sample } from "./metrics-exposition.js";

type FleetStats = Awaited<ReturnType<ReturnType<typeof fleetStub>["stats"]>>;

/** Seconds: a job dispatched in the pass that queued it is 0; a busy fleet's queue is hours. */
export const DISPATCH_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 1800, 3600, 14400, 86400] as const;

/**
 * A latency histogram's columns per fleet, over the seconds between event `from` and event `to` (the
 * job's `dispatch`): its count, sum and one cumulative count per DISPATCH_BUCKETS bound.
 */
function latencyColumns(to: { ts: SQLWrapper }, from: { ts: SQLWrapper }) {
  const wait = sql`((julianday(${to.ts}) - julianday(${from.ts})) * 86400.0)`;
  return {
    fleetId: schema.jobs.fleetId,
    count: sql<number>`count(*)`.as("n"),
    sum: sql<number>`coalesce(sum(${wait}), 0)`.as("total"),
    // Named: D1 answers rows as objects, and unnamed columns of the same text would collide.
    ...Object.fromEntries(
      DISPATCH_BUCKETS.map((b, i) => [`b${i}`, sql<number>`coalesce(sum(${wait} <= ${b}), 0)`.as(`b${i}`)]),
    ),
  };
}

/**
 * Every dispatch's wait, grouped by fleet: from the event that put the job in QUEUED (submit, resume,
 * retry, a dispatch the agent never acknowledged, a move from another fleet) to its `dispatch` edge, both
 * from the job's event log.
 */
function dispatchLatency(d: Db) {
  const e = alias(schema.jobEvents, "e");
  const q = alias(schema.jobEvents, "q");
  return d
    .select(latencyColumns(e, q))
    .from(e)
    .innerJoin(q, and(eq(q.jobId, e.jobId), eq(q.seq, sql`${e.seq} - 1`), eq(q.toStatus, "QUEUED")))
    .innerJoin(schema.jobs, eq(schema.jobs.id, e.jobId))
    .where(eq(e.edge, "dispatch"))
    .groupBy(schema.jobs.fleetId);
}

/**
 * Jobs placed over several fleets, from submit to start: their `admitted` event (which carries the
 * placement) to their first `dispatch`, wherever it happened (after re-routes), grouped by that fleet.
 */
function placementLatency(d: Db) {
  const e = alias(schema.jobEvents, "e");
  const a = alias(schema.jobEvents, "a");
  const firstDispatch = sql`${e.seq} = (SELECT MIN(f.seq) FROM job_events f WHERE f.job_id = ${e.jobId} AND f.edge = 'dispatch')`;
  return d
    .select(latencyColumns(e, a))
    .from(e)
    .innerJoin(a, and(eq(a.jobId, e.jobId), eq(a.edge, "admitted")))
    .innerJoin(schema.jobs, eq(schema.jobs.id, e.jobId))
    .where(
      and(eq(e.edge, "dispatch"), sql`json_extract(${a.detail}, '$.placement') IS NOT NULL`, firstDispatch),
    )
    .groupBy(schema.jobs.fleetId);
}

function webhookBacklog(d: Db, now: number) {
  const w = schema.webhookDeliveries;
  return d
    .select({
      pending: sql<number>`count(*)`.as("pending"),
      due: sql<number>`coalesce(sum(${w.nextAttemptAt} <= ${now}), 0)`.as("due"),
    })
    .from(w)
    .where(eq(w.state, "pending"));
}

interface Gathered {
  fleets: Array<{ id: string; name: string; stats: FleetStats | null }>;
  counters: CounterRow[];
  backlog: { pending: number; due: number };
  latency: Array<{ fleetId: string; count: number; sum: number } & Record<string, number | string>>;
  placement: Array<{ fleetId: string; count: number; sum: number } & Record<string, number | string>>;
}

async function gather(env: AppEnv, now: number): Promise<Gathered> {
  const d = db(env.DB);
  const fleetRows = d.select({ id: schema.fleets.id, name: schema.fleets.name }).from(schema.fleets);
  const [fleets, counters, backlog, latency, placement] = await d
    .batch([
      fleetRows.orderBy(schema.fleets.name),
      counterRowsQuery(env.DB),
      webhookBacklog(d, now),
      dispatchLatency(d),
      placementLatency(d),
    ])
    .catch((err: unknown) => {
      log("error", "metrics: D1 unreachable", errorFields(err));
      throw new AppError("UNAVAILABLE", "the ledger database is unreachable");
    });
  // A fleet whose object does not answer is reported down, not allowed to fail the whole scrape.
  const stats = await Promise.all(
    fleets.map((f) =>
      fleetStub(env, f.id)
        .stats()
        .catch((err: unknown) => {
          log("warn", "metrics: fleet stats unavailable", { fleet_id: f.id, ...errorFields(err) });
          return null;
        }),
    ),
  );
  return {
    fleets: fleets.map((f, i) => ({ ...f, stats: stats[i] ?? null })),
    counters,
    backlog: backlog[0] ?? { pending: 0, due: 0 },
    latency,
    placement,
  };
}

type PerFleet = (s: FleetStats) => number;

function perFleet(
  g: Gathered,
  name: string,
  help: string,
  value: PerFleet,
  type: "gauge" | "counter" = "gauge",
): Family {
  const samples = g.fleets.flatMap((f) =>
    f.stats ? [{ labels: { fleet: f.name }, value: value(f.stats) }] : [],
  );
  return { name, help, type, samples };
}

function counter(
  g: Gathered,
  metric: string,
  label: string,
  name: string,
  help: string,
  show = (v: string) => v,
): Family {
  const samples: Sample[] = g.counters
    .filter((r) => r.metric === metric)
    .map((r) => ({ labels: { [label]: show(r.label) }, value: r.value }))
    .sort((a, b) => (a.labels[label]! < b.labels[label]! ? -1 : 1));
  return { name, help, type: "counter", samples };
}

function latencyFamily(
  g: Gathered,
  fleetName: (id: string) => string,
  of: Gathered["latency"] = g.latency,
  name = "starforge_dispatch_latency_seconds",
  help = "Seconds a job waited in QUEUED before it was dispatched (GPUs allocated, launch request issued), per dispatch; a job that moved between fleets counts from its move.",
): Family {
  const rows = new Map(of.map((r) => [r.fleetId, r]));
  const ids = [...new Set([...g.fleets.map((f) => f.id), ...rows.keys()])];
  const series: HistogramSeries[] = ids.map((id) => {
    const r = rows.get(id);
    return {
      labels: { fleet: fleetName(id) },
      counts: DISPATCH_BUCKETS.map((_, i) => Number(r?.[`b${i}`] ?? 0)),
      sum: Number(r?.sum ?? 0),
      count: Number(r?.count ?? 0),
    };
  });
  return {
    name,
    help,
    type: "histogram",
    buckets: DISPATCH_BUCKETS,
    series,
  };
}

/** The families of one scrape, in a fixed order. */
export async function collectMetrics(env: AppEnv, now: number): Promise<Family[]> {
  const g = await gather(env, now);
  const names = new Map(g.fleets.map((f) => [f.id, f.name]));
  const fleetName = (id: string) => names.get(id) ?? id;
  return [
    {
      name: "starforge_build_info",
      help: "Always 1; the labels say what is running.",
      type: "gauge",
      samples: [
        {
          labels: {
            version: PRODUCT_VERSION,
            api_version: String(API_VERSION),
            min_cli_version: MIN_CLI_VERSION,
            build: config(env).build,
          },
          value: 1,
        },
      ],
    },
    {
      name: "starforge_fleet_up",
      help: "1 when the fleet's Durable Object answered this scrape; when 0, the series it reports are missing.",
      type: "gauge",
      samples: g.fleets.map((f) => ({ labels: { fleet: f.name }, value: f.stats ? 1 : 0 })),
    },
    {
      name: "starforge_fleet_jobs",
      help: "Jobs of the fleet by status (QUEUED is the queue depth).",
      type: "gauge",
      samples: g.fleets.flatMap((f) =>
        Object.entries(f.stats?.jobs ?? {}).map(([status, n]) => ({
          labels: { fleet: f.name, status },
          value: n,
        })),
      ),
    },
    {
      name: "starforge_preemptions_total",
      help: "Running jobs the fleet preempted (stopped with a checkpoint and queued again in their place), by cause: priority (a job of a higher priority class needed their GPUs) or reclaim (a team took back its guaranteed GPUs).",
      type: "counter",
      samples: g.fleets.flatMap((f) =>
        Object.entries(f.stats?.preempted ?? {}).map(([cause, n]) => ({
          labels: { fleet: f.name, cause },
          value: n,
        })),
      ),
    },
    {
      name: "starforge_preemption_lost_gpu_seconds_total",
      help: "GPU-seconds preempted runs had trained since their last stored checkpoint when they left: work lost to preemption (a victim that checkpoints on its notice loses almost none).",
      type: "counter",
      samples: g.fleets.flatMap((f) =>
        f.stats ? [{ labels: { fleet: f.name }, value: f.stats.preemption_lost_gpu_seconds ?? 0 }] : [],
      ),
    },
    perFleet(g, "starforge_agents_enrolled", "Agents enrolled in the fleet.", (s) => s.agents.enrolled),
    perFleet(
      g,
      "starforge_agents_connected",
      "Agents with an open socket to the fleet now.",
      (s) => s.agents.connected,
    ),
    perFleet(
      g,
      "starforge_agents_lost",
      "Agents whose socket went away and that have not come back.",
      (s) => s.agents.lost,
    ),
    perFleet(g, "starforge_gpus", "GPUs of the fleet's nodes.", (s) => s.gpus.total),
    perFleet(g, "starforge_gpus_allocated", "GPUs booked by runs.", (s) => s.gpus.allocated),
    perFleet(
      g,
      "starforge_outbox_entries",
      "State changes the fleet has not yet written to D1.",
      (s) => s.outbox.entries,
    ),
    perFleet(
      g,
      "starforge_outbox_oldest_age_seconds",
      "Age of the oldest state change not yet written to D1 (0: none); the lag of the ledger behind the fleet.",
      (s) => s.outbox.oldest_age_seconds,
    ),
    perFleet(
      g,
      "starforge_outbox_d1_batches_total",
      "D1 transactions the fleet's outbox flushes wrote; coalesced, each carries many admissions.",
      (s) => s.outbox.d1_batches,
      "counter",
    ),
    counter(
      g,
      "admissions",
      "fleet",
      "starforge_admissions_total",
      "Submits admitted (POST /v1/jobs answered 201).",
      fleetName,
    ),
    counter(
      g,
      "admission_rejections",
      "code",
      "starforge_admission_rejections_total",
      "Submits refused (POST /v1/jobs answered 4xx or 5xx), by error code.",
    ),
    counter(
      g,
      "fleet_submit_calls",
      "fleet",
      "starforge_fleet_submit_calls_total",
      "Calls submits made to the fleet's object; submits that meet in one isolate share one (group commit).",
      fleetName,
    ),
    latencyFamily(g, fleetName),
    counter(
      g,
      "placements",
      "fleet",
      "starforge_placements_total",
      "Jobs placed over several fleets at submit (resources.fleets or fleet_selector), by the fleet chosen.",
      fleetName,
    ),
    {
      name: "starforge_failures_total",
      help: 'Failed runs by the class their diagnosis found (CUDA_OOM, NCCL_TIMEOUT, …; docs/operations.md "Failure diagnosis").',
      type: "counter",
      samples: g.fleets.flatMap((f) =>
        Object.entries(f.stats?.failures ?? {}).map(([cls, n]) => ({
          labels: { fleet: f.name, class: cls },
          value: n,
        })),
      ),
    },
    {
      name: "starforge_reroutes_total",
      help: "Waiting jobs that moved to this fleet from another of theirs, by reason: starts_sooner (this fleet could start them now) or site_lost (every agent of their fleet was gone).",
      type: "counter",
      samples: g.fleets.flatMap((f) =>
        Object.entries(f.stats?.rerouted_in ?? {}).map(([reason, n]) => ({
          labels: { fleet: f.name, reason },
          value: n,
        })),
      ),
    },
    latencyFamily(
      g,
      fleetName,
      g.placement,
      "starforge_placement_latency_seconds",
      "Seconds from submit to dispatch of jobs placed over several fleets, by the fleet that started them (after any re-routes).",
    ),
    counter(
      g,
      "ingested_items",
      "kind",
      "starforge_ingested_items_total",
      "Items accepted by job-side ingest (log lines, metric points, …), by kind.",
    ),
    {
      name: "starforge_webhook_deliveries_pending",
      help: "Webhook deliveries not yet delivered or given up on.",
      type: "gauge",
      samples: [{ value: Number(g.backlog.pending) }],
    },
    {
      name: "starforge_webhook_deliveries_due",
      help: "Pending webhook deliveries whose next attempt is due now (the dispatchers' backlog).",
      type: "gauge",
      samples: [{ value: Number(g.backlog.due) }],
    },
  ];
}
