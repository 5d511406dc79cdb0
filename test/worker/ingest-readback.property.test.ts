/**
 * The load-bearing invariant of ingest: what a run reports is read back complete and in order. Log
 * lines split into random batches per (rank, stream), sent in random order with random duplicates, read
 * back through GET logs exactly as emitted — in seq order per (rank, stream), once each — and at every
 * moment in between, a reader sees only a gap-free prefix of each stream. Metrics likewise: the last
 * write per (key, step) wins, ordered by step.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, api, createUser } from "./helpers.js";
import {
  fleetWithNode,
  ingest,
  type LogLine,
  type RunFixture,
  readAllLogs,
  submitRun,
} from "./ingest-helpers.js";

type StreamName = "stdout" | "stderr";

interface EmittedStream {
  rank: number;
  stream: StreamName;
  lines: string[];
  /** Batch boundaries (indices into lines). */
  cuts: number[];
}

interface Batch {
  rank: number;
  stream: StreamName;
  seq: number;
  chunks: string[];
  eof: boolean;
}

const LineText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.constantFrom("", " ", "data: not a frame", "line\nwith a newline", "id: 7", "step 10 loss=1.25"),
);

const Streams = fc.uniqueArray(
  fc.record({
    rank: fc.integer({ min: 0, max: 2 }),
    stream: fc.constantFrom<StreamName>("stdout", "stderr"),
    lines: fc.array(LineText, { maxLength: 40 }),
    cuts: fc.array(fc.nat({ max: 40 }), { maxLength: 8 }),
  }),
  { minLength: 1, maxLength: 4, selector: (s) => `${s.rank}/${s.stream}` },
);

function batchesOf(s: EmittedStream): Batch[] {
  const bounds = [...new Set([0, ...s.cuts.filter((c) => c < s.lines.length), s.lines.length])].sort(
    (a, b) => a - b,
  );
  const out: Batch[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    out.push({
      rank: s.rank,
      stream: s.stream,
      seq: bounds[i]!,
      chunks: s.lines.slice(bounds[i], bounds[i + 1]),
      eof: i + 2 === bounds.length,
    });
  }
  return out;
}

/** A permutation of every batch plus some of them again (the retries), as indices into `batches`. */
function sendOrder(n: number): fc.Arbitrary<number[]> {
  if (n === 0) return fc.constant([]);
  const indices = [...Array(n).keys()];
  return fc
    .array(fc.nat({ max: n - 1 }), { maxLength: Math.min(n, 6) })
    .chain((dups) => fc.shuffledSubarray([...indices, ...dups], { minLength: n + dups.length }));
}

const LogScenario = Streams.chain((streams) => {
  const batches = streams.flatMap(batchesOf);
  return fc.record({
    streams: fc.constant(streams),
    batches: fc.constant(batches),
    order: sendOrder(batches.length),
  });
});

const key = (l: { rank: number; stream: string }) => `${l.rank}/${l.stream}`;

function byStream(lines: LogLine[]): Map<string, LogLine[]> {
  const m = new Map<string, LogLine[]>();
  for (const l of lines) m.set(key(l), [...(m.get(key(l)) ?? []), l]);
  return m;
}

/** What a reader may ever see: per (rank, stream), lines 0..k-1 exactly as emitted, in cursor order. */
function expectGapFreePrefixes(lines: LogLine[], streams: EmittedStream[]): void {
  expect(lines.map((l) => l.cursor)).toEqual(lines.map((_, i) => i));
  const seen = byStream(lines);
  for (const s of streams) {
    const got = seen.get(key(s)) ?? [];
    expect(got.map((l) => l.seq)).toEqual(got.map((_, i) => i));
    expect(got.map((l) => l.line)).toEqual(s.lines.slice(0, got.length));
  }
  expect([...seen.keys()].every((k) => streams.some((s) => key(s) === k))).toBe(true);
}

async function latestLines(f: RunFixture): Promise<LogLine[]> {
  return (await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs?run=${f.runId}&limit=5000`)).body.lines;
}

let op: string;
let round = 0;

/** A fresh run per property case (a Run DO holds one run), released again afterwards. */
async function withRun(fn: (f: RunFixture) => Promise<void>): Promise<void> {
  const f = await submitRun(op, "rb-prop", `case-${round++}`);
  try {
    await fn(f);
  } finally {
    await api(op, "POST", `/v1/jobs/${f.jobId}/stop`);
  }
}

beforeAll(async () => {
  op = await createUser("rb-prop");
  await api(ADMIN, "PUT", "/v1/users/rb-prop/quota", {
    max_gpus: 1000,
    max_jobs: 1000,
    daily_gpu_hours: 1e6,
  });
  await fleetWithNode("rb-prop");
});

describe("logs read back exactly as emitted", () => {
  it("survives batches replayed and reordered, and never shows a reader a gap", async () => {
    await fc.assert(
      fc.asyncProperty(LogScenario, async ({ streams, batches, order }) => {
        await withRun(async (f) => {
          for (const i of order) {
            const b = batches[i]!;
            const r = await ingest(f.token, "/logs", { run_id: f.runId, ...b });
            expect(r.status, JSON.stringify(r.body)).toBe(200);
            expectGapFreePrefixes(await latestLines(f), streams);
          }
          const all = await readAllLogs(f);
          expectGapFreePrefixes(all, streams);
          expect(all).toHaveLength(streams.reduce((n, s) => n + s.lines.length, 0));
        });
      }),
      { numRuns: 20 },
    );
  }, 60_000);

  it("appends batches without seq (the original client) to the console stream in arrival order, at least once", async () => {
    await withRun(async (f) => {
      await ingest(f.token, "/logs", { run_id: f.runId, chunks: ["a", "b"] });
      await ingest(f.token, "/logs", { run_id: f.runId, chunks: ["c"] });
      await ingest(f.token, "/logs", { run_id: f.runId, chunks: ["c"] });
      const lines = await readAllLogs(f);
      expect(lines.map((l) => [l.rank, l.stream, l.seq, l.line])).toEqual([
        [0, "console", 0, "a"],
        [0, "console", 1, "b"],
        [0, "console", 2, "c"],
        [0, "console", 3, "c"],
      ]);
    });
  });

  it("holds lines behind a hole and releases them, skipping it, once the run is over", async () => {
    await withRun(async (f) => {
      const r = await ingest(f.token, "/logs", { run_id: f.runId, seq: 0, chunks: ["0"] });
      expect(r.body).toMatchObject({ accepted: 1, released_to: 1, held: 0 });
      const gap = await ingest(f.token, "/logs", { run_id: f.runId, seq: 3, chunks: ["3", "4"] });
      expect(gap.body).toMatchObject({ accepted: 2, released_to: 1, held: 2 });
      expect((await readAllLogs(f)).map((l) => l.line)).toEqual(["0"]);
      // Stopping the job ends the run: nothing more is worth waiting for.
      await api(f.op, "POST", `/v1/jobs/${f.jobId}/stop`);
      const page = await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs?run=${f.runId}`);
      expect(page.body.ended).toBe(true);
      expect(page.body.lines.map((l: LogLine) => [l.seq, l.line])).toEqual([
        [0, "0"],
        [3, "3"],
        [4, "4"],
      ]);
      // The missing lines arriving late are kept, after what was already shown.
      await ingest(f.token, "/logs", { run_id: f.runId, seq: 1, chunks: ["1", "2"] });
      expect((await readAllLogs(f)).map((l) => [l.cursor, l.seq])).toEqual([
        [0, 0],
        [1, 3],
        [2, 4],
        [3, 1],
        [4, 2],
      ]);
    });
  });
});

const MetricPoint = fc.record({
  key: fc.constantFrom("loss", "acc", "lr/group0"),
  step: fc.nat({ max: 30 }),
  value: fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v)),
  ts: fc.oneof(
    fc.constant(undefined),
    fc.constant("2026-11-01T10:00:00.000Z"),
    fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }),
  ),
});

const MetricScenario = fc
  .array(fc.array(MetricPoint, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 })
  .chain((batches) => fc.record({ batches: fc.constant(batches), order: sendOrder(batches.length) }));

describe("metrics read back as the last write per (key, step)", () => {
  it("orders points by step whatever the arrival order, and a replay changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(MetricScenario, async ({ batches, order }) => {
        await withRun(async (f) => {
          const expected = new Map<string, Map<number, number>>();
          for (const i of order) {
            const points = batches[i]!.map((p) => (p.ts === undefined ? { ...p, ts: undefined } : p));
            const r = await ingest(f.token, "/metrics", { run_id: f.runId, points });
            expect(r.status, JSON.stringify(r.body)).toBe(200);
            for (const p of points) {
              const m = expected.get(p.key) ?? new Map<number, number>();
              m.set(p.step, p.value);
              expected.set(p.key, m);
            }
          }
          const keys = await api(f.op, "GET", `/v1/jobs/${f.jobId}/metrics?run=${f.runId}`);
          expect(
            keys.body.keys.map((k: { key: string; count: number; last: { step: number; value: number } }) => [
              k.key,
              k.count,
              k.last.step,
              k.last.value,
            ]),
          ).toEqual(
            [...expected.keys()].sort().map((k) => {
              const m = expected.get(k)!;
              const last = Math.max(...m.keys());
              return [k, m.size, last, m.get(last)];
            }),
          );
          for (const [k, m] of expected) {
            const series = await api(
              f.op,
              "GET",
              `/v1/jobs/${f.jobId}/metrics?run=${f.runId}&key=${encodeURIComponent(k)}`,
            );
            expect(series.body.points.map((p: { step: number; value: number }) => [p.step, p.value])).toEqual(
              [...m.entries()].sort(([a], [b]) => a - b),
            );
            expect(series.body.next_after).toBeNull();
          }
        });
      }),
      { numRuns: 12 },
    );
  }, 60_000);

  it("pages a long series with after/next_after", async () => {
    await withRun(async (f) => {
      const points = [...Array(25).keys()].map((step) => ({ key: "loss", step, value: 1 / (step + 1) }));
      await ingest(f.token, "/metrics", { run_id: f.runId, points });
      const steps: number[] = [];
      let after = -1;
      for (;;) {
        const r = await api(
          f.op,
          "GET",
          `/v1/jobs/${f.jobId}/metrics?run=${f.runId}&key=loss&limit=10&after=${after}`,
        );
        steps.push(...r.body.points.map((p: { step: number }) => p.step));
        if (r.body.next_after === null) break;
        after = r.body.next_after;
      }
      expect(steps).toEqual([...Array(25).keys()]);
    });
  });
});
