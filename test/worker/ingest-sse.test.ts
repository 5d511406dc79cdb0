/**
 * The live log tail (SSE): lines arrive as they are released, each with its cursor as the event id; a
 * client that drops and resumes with Last-Event-ID (or offset) gets every line exactly once; idle tails
 * get keep-alive comments; the stream ends with `event: end` when the run is over.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser } from "./helpers.js";
import {
  follow,
  ingest,
  type LogLine,
  type RunFixture,
  type SseFrame,
  SseReader,
  startRun,
} from "./ingest-helpers.js";
import { testEnv } from "./test-env.js";

function linesOf(frames: SseFrame[]): LogLine[] {
  return frames.filter((f) => f.data !== undefined && f.event === undefined).map((f) => JSON.parse(f.data!));
}

async function sendLines(f: RunFixture, rank: number, stream: string, seq: number, lines: string[]) {
  const r = await ingest(f.token, "/logs", { run_id: f.runId, rank, stream, seq, chunks: lines });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** Reads frames until `n` log lines have arrived. */
async function readLines(tail: SseReader, n: number): Promise<LogLine[]> {
  const out: LogLine[] = [];
  while (out.length < n) {
    const frame = await tail.next();
    if (!frame) throw new Error(`stream closed after ${out.length} of ${n} lines`);
    out.push(...linesOf([frame]));
  }
  return out;
}

const range = (from: number, to: number, tag: string) =>
  [...Array(to - from).keys()].map((i) => `${tag} ${from + i}`);

describe("live log tail", () => {
  it("streams live lines, and resumes after a disconnect with Last-Event-ID: every line exactly once", async () => {
    const f = await startRun("sse-a");
    await sendLines(f, 0, "stdout", 0, range(0, 10, "out"));

    const first = await follow(f);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const tail = new SseReader(first);
    const backlog = await readLines(tail, 10);

    // Released while the client listens; rank 1's batches arrive out of order and show only in order.
    await sendLines(f, 1, "stderr", 5, range(5, 10, "err"));
    await sendLines(f, 1, "stderr", 0, range(0, 5, "err"));
    await sendLines(f, 0, "stdout", 10, range(10, 12, "out"));
    const live = await readLines(tail, 6);
    await tail.cancel();
    const seen = [...backlog, ...live];
    const lastId = seen[seen.length - 1]!.cursor;

    // While the client is away: the rest of the live lines, more output, and the end of the run.
    await sendLines(f, 0, "stdout", 12, range(12, 20, "out"));
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started" });
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "succeeded", exit_code: 0 });

    const resumed = new SseReader(await follow(f, "", { "last-event-id": String(lastId) }));
    const rest = await resumed.until((fr) => fr.event === "end");
    const end = rest[rest.length - 1]!;
    expect(end.event).toBe("end");
    expect(await resumed.next()).toBeNull();

    const all = [...seen, ...linesOf(rest)];
    expect(all.map((l) => l.cursor)).toEqual(all.map((_, i) => i));
    const frameIds = rest.filter((fr) => fr.id !== undefined).map((fr) => Number(fr.id));
    expect(frameIds).toEqual(linesOf(rest).map((l) => l.cursor));
    expect(JSON.parse(end.data!)).toEqual({ next_offset: all.length });
    const of = (rank: number, stream: string) =>
      all.filter((l) => l.rank === rank && l.stream === stream).map((l) => l.line);
    expect(of(0, "stdout")).toEqual(range(0, 20, "out"));
    expect(of(1, "stderr")).toEqual(range(0, 10, "err"));
  });

  it("resumes from an offset, and a tail of a finished run sends the rest and ends at once", async () => {
    const f = await startRun("sse-b");
    await sendLines(f, 0, "stdout", 0, range(0, 5, "x"));
    await api(f.op, "POST", `/v1/jobs/${f.jobId}/stop`);
    const tail = new SseReader(await follow(f, "&offset=3"));
    const frames = await tail.until((fr) => fr.event === "end");
    expect(linesOf(frames).map((l) => [l.cursor, l.line])).toEqual([
      [3, "x 3"],
      [4, "x 4"],
    ]);
    expect(frames[frames.length - 1]!.event).toBe("end");
    expect(await tail.next()).toBeNull();
  });

  it("sends keep-alive comments while idle, and ends when the ledger says the run is over", async () => {
    const f = await startRun("sse-c");
    const tail = new SseReader(await follow(f));
    const hello = await tail.next();
    expect(hello?.comments.length).toBeGreaterThan(0);
    const stub = testEnv.RUN.get(testEnv.RUN.idFromName(f.runId));

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await tail.next()).toEqual({ comments: ["keep-alive"] });

    // A user stop ends the run without any runner report; the tail learns it from the ledger.
    await api(f.op, "POST", `/v1/jobs/${f.jobId}/stop`);
    await runDurableObjectAlarm(stub);
    const rest = await tail.until((fr) => fr.event === "end");
    expect(rest[rest.length - 1]!.event).toBe("end");
    expect(await tail.next()).toBeNull();
  });

  it("refuses a malformed Last-Event-ID and another user's job", async () => {
    const f = await startRun("sse-d");
    const bad = await follow(f, "", { "last-event-id": "not-a-number" });
    expect(bad.status).toBe(400);
    await bad.body?.cancel();
    const stranger = await createUser("sse-d2");
    const other = await api(stranger, "GET", `/v1/jobs/${f.jobId}/logs?follow=1`);
    expect(other.status).toBe(403);
  });
});
