/** Rows of the Run DO as the API shows them: ISO times, null for absent ids, JSON decoded. */
import { nowIso } from "../../contract/ids.js";
import type { ResumeFrom } from "../../contract/launch-request.schema.js";
import type {
  EnvironmentView,
  HardwareSeriesList,
  HardwareSeriesPoints,
  Json,
  LifecycleReportView,
  ValidationSamplesView,
  ValidationSampleView,
  ValidationStepView,
} from "../../contract/readback.schema.js";
import {
  type HardwareRow,
  NO_GPU,
  NO_ID,
  type NodeRow,
  type ProbeRow,
  type ValidationSampleRow,
  type ValidationStepRow,
} from "./reports-store.js";
import type { ArtifactRow, EventRow, LineRow, LogStreamName, MetricRow, StreamRow } from "./store.js";
import type { ArtifactView, LogLineView, LogsPage, MetricKeyView, MetricSeries } from "./types.js";

export function lineView(l: LineRow): LogLineView {
  return {
    cursor: l.cursor,
    rank: l.rank,
    stream: l.stream as LogStreamName,
    seq: l.seq,
    ts: nowIso(l.ts),
    line: l.line,
  };
}

/** A page of released lines read from `offset`, with where every stream stands. */
export function logsPage(rows: LineRow[], offset: number, ended: boolean, streams: StreamRow[]): LogsPage {
  const last = rows[rows.length - 1];
  return {
    lines: rows.map(lineView),
    // Filtered reads skip other streams' cursors; the next page still starts after the last one seen.
    next_offset: last ? last.cursor + 1 : Math.max(offset, 0),
    ended,
    streams: streams.map((s) => ({
      rank: s.rank,
      stream: s.stream,
      released_to: s.next_seq,
      held: s.held,
      eof_seq: s.eof_seq,
    })),
  };
}

/** One page of a metric: `rows` were read with one more than `limit`, to know if more follow. */
export function metricSeries(key: string, rows: MetricRow[], limit: number): MetricSeries {
  const page = rows.slice(0, limit);
  return {
    key,
    points: page.map((m) => ({ step: m.step, value: m.value, ts: nowIso(m.ts) })),
    next_after: rows.length > limit ? page[page.length - 1]!.step : null,
  };
}

export function metricKeyView(m: MetricRow & { count: number }): MetricKeyView {
  return { key: m.key, count: m.count, last: { step: m.step, value: m.value, ts: nowIso(m.ts) } };
}

export function artifactView(a: ArtifactRow): ArtifactView {
  return {
    path: a.path,
    kind: a.kind,
    step: a.step,
    size_bytes: a.size,
    digest: a.digest,
    verified: a.verified === 1,
    stored: a.r2_key !== null,
    metrics: a.metrics ? (JSON.parse(a.metrics) as Record<string, Json>) : null,
    registered_at: nowIso(a.registered_at),
  };
}

export function lifecycleView(e: EventRow): LifecycleReportView {
  return {
    rank: e.rank,
    event: e.event,
    ts: nowIso(e.ts),
    exit_code: e.exit_code,
    reason: e.reason,
    received_at: nowIso(e.received_at),
  };
}

function hardwareIds(h: HardwareRow) {
  return {
    node_id: h.node_id === NO_ID ? null : h.node_id,
    worker_id: h.worker_id === NO_ID ? null : h.worker_id,
    gpu_idx: h.gpu_idx === NO_GPU ? null : h.gpu_idx,
    gpu_uuid: h.gpu_uuid,
  };
}

export function hardwareSeriesList(
  runId: string,
  rows: Array<HardwareRow & { count: number }>,
): HardwareSeriesList {
  return {
    run_id: runId,
    series: rows.map((h) => ({
      key: h.key,
      ...hardwareIds(h),
      count: h.count,
      last: { ts: nowIso(h.ts), value: h.value },
    })),
  };
}

/**
 * One key's samples grouped by series. `rows` is a page in time order fetched with one row more than
 * `limit`; a page never ends inside a group of samples with the same time, so paging by time (`after`)
 * loses none of them.
 */
export function hardwarePoints(
  runId: string,
  key: string,
  rows: HardwareRow[],
  limit: number,
): HardwareSeriesPoints {
  let page = rows;
  let nextAfter: number | null = null;
  if (rows.length > limit) {
    const lastTs = rows[limit - 1]!.ts;
    let end = limit;
    if (rows[limit]!.ts === lastTs) {
      const first = rows.findIndex((r) => r.ts === lastTs);
      // One instant with more samples than a page: return what was read of it rather than loop forever.
      end = first > 0 ? first : rows.length;
    }
    page = rows.slice(0, end);
    nextAfter = page[page.length - 1]!.ts;
  }
  const series = new Map<string, HardwareSeriesPoints["series"][number]>();
  for (const h of page) {
    const id = JSON.stringify([h.node_id, h.worker_id, h.gpu_idx]);
    let s = series.get(id);
    if (!s) {
      s = { ...hardwareIds(h), points: [] };
      series.set(id, s);
    }
    if (h.gpu_uuid !== null) s.gpu_uuid = h.gpu_uuid;
    s.points.push({ ts: nowIso(h.ts), value: h.value });
  }
  const ordered = [...series.values()].sort(
    (a, b) =>
      (a.node_id ?? "").localeCompare(b.node_id ?? "") ||
      (a.worker_id ?? "").localeCompare(b.worker_id ?? "") ||
      (a.gpu_idx ?? -1) - (b.gpu_idx ?? -1),
  );
  return { run_id: runId, key, series: ordered, next_after: nextAfter };
}

export function environmentView(runId: string, probes: ProbeRow[], nodes: NodeRow[]): EnvironmentView {
  return {
    run_id: runId,
    probes: probes.map((p) => ({
      hostname: p.hostname,
      received_at: nowIso(p.received_at),
      probe: JSON.parse(p.body) as Record<string, Json>,
    })),
    nodes: nodes.map((n) => {
      const body = JSON.parse(n.body) as Record<string, Json>;
      return {
        ...body,
        hostname: n.hostname,
        cpu: body.cpu ?? null,
        gpu: body.gpu ?? null,
        updated_at: nowIso(n.updated_at),
      };
    }),
  };
}

export function validationStepView(v: ValidationStepRow): ValidationStepView {
  return {
    step: v.step,
    total_chunks: v.total_chunks,
    chunks_received: v.chunks_received,
    total_samples: v.total_samples,
    samples_received: v.samples_received,
    complete: v.chunks_received >= v.total_chunks && v.samples_received >= v.total_samples,
    avg_reward: v.avg_reward,
    dist: v.dist === null ? null : (JSON.parse(v.dist) as Json),
    updated_at: nowIso(v.updated_at),
  };
}

/** One page of a step's samples: `rows` were read with one more than `limit`, to know if more follow. */
export function validationPage(
  runId: string,
  step: ValidationStepRow,
  rows: ValidationSampleRow[],
  limit: number,
): ValidationSamplesView {
  const page = rows.slice(0, limit);
  return {
    run_id: runId,
    step: validationStepView(step),
    samples: page.map(validationSampleView),
    next_after: rows.length > limit ? page[page.length - 1]!.idx : null,
  };
}

export function hparamsView(rows: Array<{ key: string; value: string; updated_at: number }>): {
  params: Record<string, Json>;
  updated_at: string | null;
} {
  const params: Record<string, Json> = {};
  for (const r of rows) params[r.key] = JSON.parse(r.value) as Json;
  const latest = rows.reduce((m, r) => Math.max(m, r.updated_at), -1);
  return { params, updated_at: latest < 0 ? null : nowIso(latest) };
}

/**
 * The checkpoint a later run of this job would continue from: every stored checkpoint file of the
 * highest step (a checkpoint may be several files); without step numbers, the newest registration.
 * Only files whose bytes are stored and whose digest is known qualify: the next run verifies them.
 */
export function resumeCheckpoint(artifacts: ArtifactRow[]): Omit<ResumeFrom, "run_id"> | null {
  const usable = artifacts.filter((a) => a.kind === "checkpoint" && a.r2_key !== null && a.digest !== null);
  if (usable.length === 0) return null;
  const stepped = usable.filter((a) => a.step !== null);
  const top = stepped.length > 0 ? Math.max(...stepped.map((a) => a.step as number)) : null;
  const chosen =
    top !== null
      ? stepped.filter((a) => a.step === top)
      : [usable.reduce((a, b) => (b.registered_at >= a.registered_at ? b : a))];
  return {
    step: top,
    files: chosen.map((a) => ({ path: a.path, digest: a.digest as string, size_bytes: a.size ?? 0 })),
  };
}

export function validationSampleView(s: ValidationSampleRow): ValidationSampleView {
  const body = JSON.parse(s.body) as Record<string, Json>;
  return {
    ...body,
    idx: s.idx,
    reward: s.reward,
    user: body.user ?? null,
    assistant: body.assistant ?? null,
    env: body.env ?? null,
  };
}
