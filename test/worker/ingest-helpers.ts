/** Helpers for the ingest and readback tests: a job with a live run and its token, ingest calls, SSE frames. */
import { SELF } from "cloudflare:test";
import { mintIngestToken } from "../../contract/ingest-token.js";
import {
  ADMIN,
  type ApiResponse,
  api,
  createFleet,
  createUser,
  customSpec,
  registerNode,
} from "./helpers.js";
import { testEnv } from "./test-env.js";

export interface RunFixture {
  /** The job owner's token. */
  op: string;
  fleet: string;
  fleetId: string;
  jobId: string;
  runId: string;
  epoch: number;
  /** The run's ingest token, minted as the Fleet DO mints it into a LaunchRequest. */
  token: string;
}

export function runToken(c: { runId: string; jobId: string; fleetId: string; epoch: number }) {
  return mintIngestToken(testEnv.SF_JWT_SECRET!, {
    sub: c.runId,
    job: c.jobId,
    fleet: c.fleetId,
    epoch: c.epoch,
  });
}

/** A fleet with one 8-GPU node for `name` (created once per name). */
export async function fleetWithNode(name: string): Promise<{ id: string; name: string }> {
  const f = await createFleet(name);
  await registerNode(name, `${name}-n1`, 8);
  return f;
}

/** Submits a 1-GPU job to `fleet` as `op`; the registered node dispatches it at once, so it has a run. */
export async function submitRun(op: string, fleet: string, name = "exp"): Promise<RunFixture> {
  const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet, gpus: 1, name }));
  if (r.status !== 201) throw new Error(`submit: ${r.status} ${JSON.stringify(r.body)}`);
  const jobId = r.body.job.id as string;
  const detail = await api(op, "GET", `/v1/jobs/${jobId}`);
  const run = detail.body.runs[detail.body.runs.length - 1] as { id: string; epoch: number } | undefined;
  if (!run) throw new Error(`job ${jobId} was not dispatched: ${JSON.stringify(detail.body.job)}`);
  const c = { runId: run.id, jobId, fleetId: detail.body.job.fleet_id as string, epoch: run.epoch };
  return { op, fleet, ...c, token: await runToken(c) };
}

/** A new user, fleet and node, and one dispatched job of that user. */
export async function startRun(name: string): Promise<RunFixture> {
  const op = await createUser(name);
  await fleetWithNode(name);
  return submitRun(op, name);
}

export async function fleetTotals(fleet: string): Promise<{ allocated: number; gpus: number }> {
  return (await api(ADMIN, "GET", `/v1/fleets/${fleet}`)).body.totals;
}

/** POSTs to an ingest path the way the capsule client does (X-StarForge-Token). */
// biome-ignore lint/suspicious/noExplicitAny: test responses are read loosely by design
export async function ingest<T = any>(
  token: string | null,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const h: Record<string, string> = { "content-type": "application/json", ...headers };
  if (token) h["x-starforge-token"] = token;
  const res = await SELF.fetch(`http://sf.test/v1/ingest${path}`, {
    method: "POST",
    headers: h,
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
}

export interface LogLine {
  cursor: number;
  rank: number;
  stream: "stdout" | "stderr" | "console";
  seq: number;
  ts: string;
  line: string;
}

/** Every released line of a run, read through GET logs in pages of `limit`. */
export async function readAllLogs(f: RunFixture, limit = 97): Promise<LogLine[]> {
  const out: LogLine[] = [];
  let offset = 0;
  for (;;) {
    const r = await api(
      f.op,
      "GET",
      `/v1/jobs/${f.jobId}/logs?run=${f.runId}&offset=${offset}&limit=${limit}`,
    );
    if (r.status !== 200) throw new Error(`logs: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...(r.body.lines as LogLine[]));
    if (r.body.lines.length === 0) return out;
    offset = r.body.next_offset as number;
  }
}

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comments: string[];
}

/** Reads an event stream frame by frame (frames end with a blank line). */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";

  constructor(res: Response) {
    if (!res.body) throw new Error("event stream without a body");
    this.reader = res.body.getReader();
  }

  /** The next frame, or null when the server closed the stream. */
  async next(): Promise<SseFrame | null> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const raw = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return parseFrame(raw);
      }
      const { done, value } = await this.reader.read();
      if (done) return null;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** Frames until one satisfies `stop` (included) or the stream ends. */
  async until(stop: (f: SseFrame) => boolean): Promise<SseFrame[]> {
    const frames: SseFrame[] = [];
    for (;;) {
      const f = await this.next();
      if (!f) return frames;
      frames.push(f);
      if (stop(f)) return frames;
    }
  }

  /** Disconnects, as a client that goes away does. */
  async cancel(): Promise<void> {
    await this.reader.cancel();
  }
}

function parseFrame(raw: string): SseFrame {
  const f: SseFrame = { comments: [] };
  for (const line of raw.split("\n")) {
    if (line.startsWith(":")) f.comments.push(line.slice(1).trim());
    else if (line.startsWith("id: ")) f.id = line.slice(4);
    else if (line.startsWith("event: ")) f.event = line.slice(7);
    else if (line.startsWith("data: ")) f.data = line.slice(6);
  }
  return f;
}

export function follow(f: RunFixture, query = "", headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`http://sf.test/v1/jobs/${f.jobId}/logs?follow=1&run=${f.runId}${query}`, {
    headers: { authorization: `Bearer ${f.op}`, ...headers },
  });
}
