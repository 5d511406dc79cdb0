/**
 * Run Durable Object: one per run (`idFromName(run_id)`), the single writer of that run's logs, metrics,
 * lifecycle events, hyperparameters, hardware samples and artifact records, and the fan-out point of its
 * live log tails. Ingest scales with the number of runs because each run has its own object and SQLite.
 * The ordering rules are pure functions (policy.ts); this class translates RPC calls, the tail
 * `fetch` and the alarm into synchronous SQL blocks; its arguments become rows in ingest-rows.ts, a log
 * batch is stored by log-ingest.ts, live tails are live-tails.ts and the rows' API shapes views.ts.
 * Order: constructor → RPC → fetch → alarm → helpers.
 */
import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { type RunFacts, type RunVerdict, runVerdict } from "../../contract/diagnosis-policy.js";
import {
  type EnvironmentNode,
  type HardwarePoint,
  MAX_ENV_NODES,
  type MetricPoint,
  type RendezvousAnswer,
  type ValidationChunk,
  type ValidationSample,
} from "../../contract/ingest.schema.js";
import { runIsOver } from "../../contract/job-states.js";
import type { ResumeFrom } from "../../contract/launch-request.schema.js";
import type {
  EnvironmentView,
  HardwareSeriesList,
  HardwareSeriesPoints,
  Json,
  LifecycleReportView,
  ValidationSamplesView,
  ValidationStepsView,
} from "../../contract/readback.schema.js";
import { db, schema } from "../../d1/client.js";
import type { SecretRow } from "../../d1/secrets.js";
import type { DoEnv } from "../env.js";
import { stubOf } from "../rpc.js";
import { doSettings } from "../settings.js";
import {
  artifactRow,
  eventRow,
  hardwareRow,
  metricRow,
  sampleRow,
  validationChunkRow,
} from "./ingest-rows.js";
import { LiveTails } from "./live-tails.js";
import { SecretMasks, storeLogBatch } from "./log-ingest.js";
import {
  type Anomaly,
  type FleetWatch,
  hangAt,
  hangDue,
  nanLoss,
  observe,
  type Progress,
  type Watch,
} from "./monitor.js";
import {
  ANOMALY_PENDING_KEY,
  ANOMALY_RETRY_MS,
  DIAGNOSIS_LINES,
  LOG_HOLD_LIMITS,
  NAN_RAISED_KEY,
  PROGRESS_KEY,
  WATCH_KEY,
} from "./policy.js";
import { RendezvousWaiters, rendezvousView } from "./rendezvous.js";
import { RunReportsStore } from "./reports-store.js";
import { SSE_HEADERS } from "./sse-frames.js";
import { RunStore } from "./store.js";
import type {
  ArtifactRecord,
  ArtifactView,
  HardwareQuery,
  LifecycleRecord,
  LogsAccepted,
  LogsIngest,
  LogsPage,
  LogsQuery,
  MetricKeyView,
  MetricSeries,
} from "./types.js";
import {
  artifactView,
  environmentView,
  hardwarePoints,
  hardwareSeriesList,
  hparamsView,
  lifecycleView,
  lineView,
  logsPage,
  metricKeyView,
  metricSeries,
  resumeCheckpoint,
  validationPage,
  validationStepView,
} from "./views.js";

/** Distinct environment probes kept per run (each process's init sends one). */
export const MAX_ENV_PROBES = 1000;

/** While a run goes on, its tokens' checks ask the ledger whether it ended at most this often. */
const LEDGER_RECHECK_MS = 60_000;

export class RunDO extends DurableObject<DoEnv> {
  private readonly store: RunStore;
  private readonly reports: RunReportsStore;
  private readonly tails: LiveTails;
  private readonly masks: SecretMasks;
  private readonly rendezvousWaiters = new RendezvousWaiters();
  private ended = false;
  /** When the ledger was last asked whether this run ended (tokenAdmitted), in memory. */
  private ledgerCheckedAt = 0;

  constructor(ctx: DurableObjectState, env: DoEnv) {
    super(ctx, env);
    this.store = new RunStore(ctx.storage.sql);
    this.reports = new RunReportsStore(ctx.storage.sql);
    this.tails = new LiveTails({
      page: (cursor, limit) => this.store.linesFrom(cursor, limit).map(lineView),
      ended: () => this.ended,
    });
    this.masks = new SecretMasks(this.store, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
      this.ended = this.store.getMeta("ended_at") !== null;
      await this.armAlarm();
    });
  }

  // RPC: ingest ------------------------------------------------------------------------

  /**
   * Whether the run's job-side token is still good: while the run may report, and for
   * SF_RUN_TOKEN_GRACE_SECONDS after it ended (its last logs, checkpoint and report). Whether it ended is
   * learnt from the runner's final report, from the control plane (markOver) or, at most once a minute
   * while it runs, from the ledger.
   */
  async tokenAdmitted(
    runId: string,
  ): Promise<{ ok: true } | { ok: false; endedAt: number; graceSeconds: number }> {
    const now = Date.now();
    if (!this.ended && now - this.ledgerCheckedAt > LEDGER_RECHECK_MS) {
      this.ledgerCheckedAt = now;
      this.bind(runId);
      await this.checkLedger();
    }
    const endedAt = Number(this.store.getMeta("ended_at"));
    const graceMs = doSettings(this.env).runTokenGraceMs;
    if (!this.ended || !Number.isFinite(endedAt) || now <= endedAt + graceMs) return { ok: true };
    return { ok: false, endedAt, graceSeconds: Math.round(graceMs / 1000) };
  }

  /**
   * Stores a batch of log lines. With `seq` (stdout/stderr), chunk i is the line with seq `seq + i` and a
   * replay is a no-op. Without it (the console stream of unsequenced writers, the original client) each
   * chunk is terminal text: it is split into lines that continue after the highest seq of that stream, so
   * a retried batch is stored twice (at least once, as the original promised) but can never take the
   * seq numbers of a sequenced stream.
   */
  async ingestLogs(runId: string, batch: LogsIngest): Promise<LogsAccepted> {
    const masks = await this.masks.get();
    const now = Date.now();
    const result = this.tx(() => {
      this.bind(runId);
      return storeLogBatch(this.store, batch, masks, now, this.ended);
    });
    this.tails.notify();
    await this.armAlarm();
    return result;
  }

  /**
   * The run's secrets, as sealed in the ledger, so its logs are stored masked (the Fleet DO calls this
   * before the launch leaves it). Kept sealed here; opened in memory when lines arrive.
   */
  async maskSecrets(runId: string, sealed: SecretRow[]): Promise<void> {
    this.tx(() => {
      this.bind(runId);
      this.masks.seal(sealed);
    });
    this.masks.forget();
  }

  /**
   * Stores a batch of metric points (NaN and infinities are not charted) and watches the run's progress:
   * a loss that became NaN or infinite, and the step reports a hang is judged by (run/monitor.ts), are
   * reported to its fleet (`fleetId`, from its ingest token) while the run goes on.
   */
  async ingestMetrics(runId: string, points: MetricPoint[], fleetId?: string): Promise<{ accepted: number }> {
    const now = Date.now();
    const finite = points.filter((p): p is MetricPoint & { value: number } => typeof p.value === "number");
    this.tx(() => {
      this.bind(runId);
      this.store.upsertMetrics(finite.map((p) => metricRow(p, now)));
      const progress = observe(this.progress(), points, now);
      if (progress) this.store.setMeta(PROGRESS_KEY, JSON.stringify(progress));
    });
    if (!this.ended && fleetId) {
      await this.loadWatch(runId, fleetId);
      const nan = nanLoss(points);
      if (nan && this.store.getMeta(NAN_RAISED_KEY) === null) await this.raise(runId, nan);
    }
    await this.armAlarm();
    return { accepted: points.length };
  }

  async ingestHardware(runId: string, points: HardwarePoint[]): Promise<{ accepted: number }> {
    const now = Date.now();
    this.tx(() => {
      this.bind(runId);
      for (const p of points) this.reports.upsertHardware(hardwareRow(p, now));
    });
    return { accepted: points.length };
  }

  /**
   * Keeps an environment probe once per distinct content. `full` means the run already holds
   * MAX_ENV_PROBES different ones and this new one was not kept.
   */
  async recordEnvironment(
    runId: string,
    p: { digest: string; hostname: string | null; body: string },
  ): Promise<{ stored: boolean; full: boolean }> {
    return this.tx(() => {
      this.bind(runId);
      if (this.reports.probeCount() >= MAX_ENV_PROBES) {
        const known = this.reports.probes().some((x) => x.digest === p.digest);
        return { stored: false, full: !known };
      }
      return { stored: this.reports.insertProbe({ ...p, received_at: Date.now() }), full: false };
    });
  }

  /** Upserts nodes by hostname; returns how many were kept (new ones past MAX_ENV_NODES are not). */
  async recordNodes(runId: string, nodes: EnvironmentNode[]): Promise<{ kept: boolean[] }> {
    const now = Date.now();
    return this.tx(() => {
      this.bind(runId);
      const known = new Set(this.reports.nodes().map((n) => n.hostname));
      const kept = nodes.map((n) => {
        if (!known.has(n.hostname) && known.size >= MAX_ENV_NODES) return false;
        known.add(n.hostname);
        this.reports.upsertNode({ hostname: n.hostname, body: JSON.stringify(n), updated_at: now });
        return true;
      });
      return { kept };
    });
  }

  async recordValidation(
    runId: string,
    chunk: Omit<ValidationChunk, "run_id" | "samples">,
    samples: ValidationSample[],
  ): Promise<{ accepted: number }> {
    const now = Date.now();
    this.tx(() => {
      this.bind(runId);
      this.reports.upsertValidationChunk(validationChunkRow(chunk, now));
      for (const s of samples) this.reports.upsertSample(chunk.step, sampleRow(s));
    });
    return { accepted: samples.length };
  }

  async setHparams(runId: string, params: Record<string, unknown>): Promise<{ accepted: number }> {
    const now = Date.now();
    const entries = Object.entries(params);
    this.tx(() => {
      this.bind(runId);
      for (const [k, v] of entries) this.store.setHparam(k, JSON.stringify(v ?? null), now);
    });
    return { accepted: entries.length };
  }

  /**
   * Records a lifecycle report (the first of each event per rank is kept). `runOver` is the control
   * plane's verdict after the Fleet DO applied the same report; once over, held log lines are released.
   */
  async recordLifecycle(
    runId: string,
    e: LifecycleRecord,
    runOver: boolean,
  ): Promise<{ recorded: boolean; ended: boolean }> {
    const now = Date.now();
    const recorded = this.tx(() => {
      this.bind(runId);
      const fresh = this.store.insertEvent(eventRow(e, now));
      if (runOver) this.end(now);
      return fresh;
    });
    this.tails.notify();
    await this.armAlarm();
    return { recorded, ended: this.ended };
  }

  /** The Worker saw in the ledger that this run is over (stopped, finished). Idempotent. */
  async markOver(runId: string): Promise<void> {
    this.tx(() => {
      this.bind(runId);
      this.end(Date.now());
    });
    this.tails.notify();
    await this.armAlarm();
  }

  async registerArtifact(runId: string, a: ArtifactRecord): Promise<ArtifactView> {
    const row = artifactRow(a, Date.now());
    this.tx(() => {
      this.bind(runId);
      this.store.upsertArtifact(row);
    });
    return artifactView(row);
  }

  /**
   * One node rank joins the run's rendezvous and waits up to `waitMs` for the rest of the world (a long
   * poll: the runner asks again until its own deadline). The caller checked the epoch and the world's
   * size against the Fleet DO, which owns the run.
   */
  async rendezvous(
    runId: string,
    epoch: number,
    nnodes: number,
    me: { node_rank: number; addr: string; port: number | null },
    waitMs: number,
  ): Promise<RendezvousAnswer> {
    this.tx(() => {
      this.bind(runId);
      this.store.joinRendezvous({ epoch, ...me, joined_at: Date.now() });
    });
    this.rendezvousWaiters.wake();
    return this.rendezvousWaiters.wait(
      () => rendezvousView(this.store.rendezvousRows(epoch), nnodes),
      waitMs,
    );
  }

  // RPC: readback ------------------------------------------------------------------------

  async readLogs(q: LogsQuery): Promise<LogsPage> {
    this.releaseDue();
    const rows = this.store.linesFrom(q.offset, q.limit, { rank: q.rank, stream: q.stream });
    return logsPage(rows, q.offset, this.ended, this.store.streams());
  }

  async readMetric(key: string, after: number, limit: number): Promise<MetricSeries> {
    return metricSeries(key, this.store.metricPoints(key, after, limit + 1), limit);
  }

  async metricKeys(): Promise<MetricKeyView[]> {
    return this.store.metricKeys().map(metricKeyView);
  }

  async readHparams(): Promise<{ params: Record<string, Json>; updated_at: string | null }> {
    return hparamsView(this.store.hparams());
  }

  async readHardware(runId: string, q: HardwareQuery): Promise<HardwareSeriesList | HardwareSeriesPoints> {
    const filter = { key: q.key, node: q.node, gpu: q.gpu };
    if (q.key === undefined) return hardwareSeriesList(runId, this.reports.hardwareSeries(filter));
    return hardwarePoints(runId, q.key, this.reports.hardwarePoints(filter, q.after, q.limit + 1), q.limit);
  }

  async readLifecycle(): Promise<LifecycleReportView[]> {
    return this.store.events().map(lifecycleView);
  }

  async readEnvironment(runId: string): Promise<EnvironmentView> {
    return environmentView(runId, this.reports.probes(), this.reports.nodes());
  }

  async readValidation(
    runId: string,
    q: { step?: number; after: number; limit: number },
  ): Promise<ValidationStepsView | ValidationSamplesView | null> {
    if (q.step === undefined) {
      return { run_id: runId, steps: this.reports.validationSteps().map(validationStepView) };
    }
    const step = this.reports.validationSteps(q.step)[0];
    if (!step) return null;
    return validationPage(runId, step, this.reports.samples(q.step, q.after, q.limit + 1), q.limit);
  }

  async artifacts(): Promise<ArtifactView[]> {
    return this.store.artifacts().map(artifactView);
  }

  /**
   * Steps this run trained past the checkpoint its job resumes from: the last step its training reported
   * minus its newest stored checkpoint's step (else `resumedFrom`, the step it started at; else 0). Null
   * when its training reported no steps.
   */
  async stepsLost(resumedFrom: number | null): Promise<number | null> {
    const last = this.store
      .metricKeys()
      .reduce<number | null>((m, k) => (m === null || k.step > m ? k.step : m), null);
    if (last === null) return null;
    const ckpt = resumeCheckpoint(this.store.artifacts());
    return Math.max(0, last - (ckpt?.step ?? resumedFrom ?? 0));
  }

  /**
   * Why this run failed (its Fleet DO asks, with what it knows: fleet/diagnoser.ts): the classifier over
   * each rank's last DIAGNOSIS_LINES stored lines and the facts (contract/diagnosis-policy.ts).
   */
  async diagnose(facts: RunFacts): Promise<RunVerdict> {
    const logs = new Map(facts.ranks.map((r) => [r.rank, this.store.lastLines(r.rank, DIAGNOSIS_LINES)]));
    return runVerdict(facts, logs);
  }

  /** The checkpoint a later run of this job would continue from (see `resumeCheckpoint`). */
  async latestCheckpoint(): Promise<Omit<ResumeFrom, "run_id"> | null> {
    return resumeCheckpoint(this.store.artifacts());
  }

  /** One artifact and where its bytes are (null when it was registered by path only). */
  async artifact(path: string): Promise<{ view: ArtifactView; r2Key: string | null } | null> {
    const row = this.store.artifact(path);
    return row ? { view: artifactView(row), r2Key: row.r2_key } : null;
  }

  // fetch: only the SSE live tail, forwarded by the Worker after it checked the reader ------------

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const runId = url.searchParams.get("run");
    const from = Number(url.searchParams.get("from") ?? "0");
    if (url.pathname !== "/tail" || !runId || !Number.isSafeInteger(from) || from < 0) {
      return new Response("expected /tail?run=<id>&from=<cursor>", { status: 400 });
    }
    const now = Date.now();
    this.tx(() => {
      this.bind(runId);
      if (url.searchParams.get("over") === "1") this.end(now);
      this.store.releaseAll(now, false);
    });
    const readable = this.tails.open(from, now);
    await this.armAlarm();
    return new Response(readable, { headers: SSE_HEADERS });
  }

  // alarm: gives up on overdue log holes, keeps tails alive, notices a run that ended elsewhere ----

  override async alarm(): Promise<void> {
    try {
      this.releaseDue();
      await this.watchProgress(Date.now());
      // Any alarm with tails open doubles as their keep-alive (an extra comment early is harmless).
      if (this.tails.size > 0) {
        if (!this.ended) await this.checkLedger();
        this.tails.keepAlive();
      }
      this.tails.notify();
    } finally {
      await this.armAlarm();
    }
  }

  // helpers ---------------------------------------------------------------------------

  /** One synchronous SQL transaction; the cursor counter is saved with it (or dropped with a rollback). */
  private tx<T>(fn: () => T): T {
    try {
      return this.store.transaction(this.ctx.storage, () => {
        const result = fn();
        this.store.endCursors(true);
        return result;
      });
    } catch (err) {
      this.store.endCursors(false);
      throw err;
    }
  }

  /** Remembers which run this object holds (the alarm needs it to read the ledger). */
  private bind(runId: string): void {
    if (this.store.getMeta("run_id") === null) this.store.setMeta("run_id", runId);
  }

  /** Releases holes that waited too long; called before reads so a reader never waits on a dead hole. */
  private releaseDue(): void {
    if (this.store.oldestHeld() === null) return;
    this.tx(() => this.store.releaseAll(Date.now(), this.ended));
  }

  /** The run is over: nothing more is worth waiting for, so every held line is released now. */
  private end(now: number, endedAt = now): void {
    if (!this.ended) {
      this.store.setMeta("ended_at", String(endedAt));
      this.ended = true;
    }
    this.store.releaseAll(now, true);
  }

  /** A run can also end without a runner report (a user stop, an agent-reported exit): ask the ledger. */
  private async checkLedger(): Promise<void> {
    const runId = this.store.getMeta("run_id");
    if (!runId) return;
    const [row] = await db(this.env.DB)
      .select({ status: schema.runs.status, endedAt: schema.runs.endedAt })
      .from(schema.runs)
      .where(eq(schema.runs.id, runId));
    // The ledger's end time, so the token's grace runs from when the run really ended.
    const at = row?.endedAt ? Date.parse(row.endedAt) : Date.now();
    if (row && runIsOver(row.status, row.endedAt)) {
      this.tx(() => this.end(Date.now(), Number.isFinite(at) ? Math.min(at, Date.now()) : Date.now()));
    }
  }

  // live anomalies (run/monitor.ts) -------------------------------------------------------

  private progress(): Progress | null {
    const raw = this.store.getMeta(PROGRESS_KEY);
    return raw === null ? null : (JSON.parse(raw) as Progress);
  }

  private watch(): Watch | null {
    const raw = this.store.getMeta(WATCH_KEY);
    return raw === null ? null : (JSON.parse(raw) as Watch);
  }

  /** What the run's job asks of its watch, from its fleet (once; a fleet that does not know it: not yet). */
  private async loadWatch(runId: string, fleetId: string): Promise<void> {
    if (this.store.getMeta(WATCH_KEY) !== null) return;
    const w = await stubOf<FleetWatch>(this.env.FLEET, fleetId).watchOf(runId);
    if (w) this.store.setMeta(WATCH_KEY, JSON.stringify(w));
  }

  /** The alarm's look at the run: a hang due, or an anomaly its fleet has not taken yet. */
  private async watchProgress(now: number): Promise<void> {
    const runId = this.store.getMeta("run_id");
    if (this.ended || !runId) return;
    const pending = this.store.getMeta(ANOMALY_PENDING_KEY);
    if (pending !== null) await this.raise(runId, JSON.parse(pending) as Anomaly);
    const w = this.watch();
    const progress = this.progress();
    const hang = w ? hangAt(progress, w, now) : null;
    if (hang && progress) {
      this.store.setMeta(PROGRESS_KEY, JSON.stringify({ ...progress, hang_raised_at_step: progress.step }));
      await this.raise(runId, hang);
    }
  }

  /** Reports an anomaly to the run's fleet; one it could not reach is tried again by the alarm. */
  private async raise(runId: string, a: Anomaly): Promise<void> {
    const w = this.watch();
    if (!w) return;
    if (a.class === "NAN_LOSS") this.store.setMeta(NAN_RAISED_KEY, "1");
    try {
      await stubOf<FleetWatch>(this.env.FLEET, w.fleet_id).runAnomaly(runId, {
        ...a,
        policy: w.policy,
        at: Date.now(),
      });
      this.store.deleteMeta(ANOMALY_PENDING_KEY);
    } catch (err) {
      console.error(`run ${runId}: its ${a.class} could not reach its fleet; trying again`, err);
      this.store.setMeta(ANOMALY_PENDING_KEY, JSON.stringify(a));
    }
  }

  /** The alarm is a cursor over what is due next: the oldest hole's deadline, the next keep-alive. */
  private async armAlarm(): Promise<void> {
    const due: number[] = [];
    const oldest = this.store.oldestHeld();
    if (oldest !== null) due.push(oldest + LOG_HOLD_LIMITS.maxWaitMs);
    const keepAlive = this.tails.due();
    if (keepAlive !== null) due.push(keepAlive);
    const watch = this.watch();
    if (!this.ended && watch) {
      const hang = hangDue(this.progress(), watch);
      if (hang !== null) due.push(hang);
      if (this.store.getMeta(ANOMALY_PENDING_KEY) !== null) due.push(Date.now() + ANOMALY_RETRY_MS);
    }
    if (due.length === 0) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.min(...due));
  }
}
