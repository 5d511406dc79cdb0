/**
 * A real loopback HTTP server speaking job-side ingest (contract/ingest.schema.ts), for the capsule
 * tests: it records every request, stores log lines by (rank, stream, seq) so duplicates collapse the
 * way the Run DO's do, serves /artifact/upload with PUT URLs on itself, holds the rendezvous of a
 * distributed run (long polls included), and can be told to fail.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RendezvousAnswer, RendezvousBody } from "../../../contract/ingest.schema.js";
import { type RendezvousRow, rendezvousView } from "../../../durable-objects/run/rendezvous.js";

export const INGEST_PREFIX = "/v1/ingest";

/** What to do with one request: answer normally, refuse with 500, or store it and still answer 500
 * (the response was "lost": the client must retry, and the server must not count it twice). */
export type Fault = "ok" | "fail" | "fail-after-accept";
export type FaultPlan = (path: string, nthForPath: number) => Fault;

export interface Recorded {
  method: string;
  path: string;
  token: string | undefined;
  status: number;
  body: unknown;
}

export interface LogBatch {
  run_id: string;
  chunks: string[];
  seq?: number;
  rank?: number;
  stream?: "stdout" | "stderr";
  eof?: boolean;
}

export interface MetricPoint {
  key: string;
  step: number;
  value: number;
  ts?: string | number;
}

export interface Upload {
  id: string;
  bytes: Buffer;
  digest: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One run's rendezvous: its world (what the real server takes from the run's placement), who joined,
 * whether the run is over, and the long polls waiting for it to complete. */
interface RendezvousRun {
  nnodes: number;
  rows: Map<number, RendezvousRow>;
  failed: string | null;
  waiters: Set<() => void>;
}

type Reply = { status: number; answer: unknown };

const refusal = (status: number, code: string, message: string): Reply => ({
  status,
  answer: { error: { code, message } },
});

export class IngestServer {
  readonly requests: Recorded[] = [];
  readonly uploads = new Map<string, Upload>();
  /** (rank/stream) -> seq -> line, after dedupe. */
  private readonly lines = new Map<string, Map<number, string>>();
  duplicateLines = 0;
  conflictingLines = 0;
  fault: FaultPlan = () => "ok";
  private readonly counts = new Map<string, number>();
  private readonly rendezvousRuns = new Map<string, RendezvousRun>();
  /** How long a rendezvous answer takes to come back once decided (a slow network or control plane). */
  rendezvousLatencyMs = 0;
  /** What GET /notice answers (the control plane's StopNotice for the run), null: not being stopped. */
  notice: Record<string, unknown> | null = null;
  private server: Server | null = null;
  port = 0;

  constructor(readonly token: string) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}${INGEST_PREFIX}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        res.writeHead(599).end(String(err));
      });
    });
    await new Promise<void>((ok) => this.server!.listen(0, "127.0.0.1", ok));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const srv = this.server;
    this.server = null;
    // Long polls still open end now (their connections are closed below).
    for (const run of this.rendezvousRuns.values()) for (const end of [...run.waiters]) end();
    if (srv) {
      srv.closeAllConnections();
      await new Promise<void>((ok) => srv.close(() => ok()));
    }
  }

  /** Accepted (2xx) JSON bodies posted to one ingest path, in arrival order. */
  accepted<T>(path: string): T[] {
    return this.requests.filter((r) => r.path === path && r.status < 300).map((r) => r.body as T);
  }

  lifecycle(): { event: string; exit_code?: number; reason?: string; rank?: number; ts?: string }[] {
    return this.accepted("/lifecycle");
  }

  metrics(key: string): MetricPoint[] {
    return this.accepted<{ points: MetricPoint[] }>("/metrics")
      .flatMap((b) => b.points)
      .filter((p) => p.key === key);
  }

  /** A stream's lines in seq order; throws if any seq is missing (lines must be gap-free). */
  logLines(stream: "stdout" | "stderr", rank = 0): string[] {
    const bySeq = this.lines.get(`${rank}/${stream}`) ?? new Map<number, string>();
    const out: string[] = [];
    for (let seq = 0; seq < bySeq.size; seq++) {
      const line = bySeq.get(seq);
      if (line === undefined) throw new Error(`${stream}: seq ${seq} missing of ${bySeq.size}`);
      out.push(line);
    }
    return out;
  }

  /**
   * The world of a run's rendezvous: how many node ranks must join (the real server takes it from the
   * run's placement). Without it, POST /rendezvous for the run answers 404, as for a run it does not know.
   */
  rendezvousWorld(nnodes: number, runId = "run_test"): this {
    const run = this.rendezvousRuns.get(runId);
    if (run) run.nnodes = nnodes;
    else this.rendezvousRuns.set(runId, { nnodes, rows: new Map(), failed: null, waiters: new Set() });
    return this;
  }

  /**
   * The run is over (a rank failed to launch, the run was cancelled): every rendezvous answer from now
   * on is `failed` with this reason. The real server answers so at a poll's start, so a rank already
   * waiting learns it at its next poll; here the polls already waiting are answered at once too, which
   * keeps the tests short and changes nothing the runner may rely on.
   */
  failRendezvous(reason: string, runId = "run_test"): void {
    const run = this.rendezvousRuns.get(runId);
    if (!run) throw new Error(`no rendezvous world for ${runId}: call rendezvousWorld first`);
    run.failed = reason;
    for (const wake of [...run.waiters]) wake();
  }

  /** Node ranks registered at a run's rendezvous so far (registration happens when a poll arrives). */
  rendezvousJoined(runId = "run_test"): number[] {
    return [...(this.rendezvousRuns.get(runId)?.rows.keys() ?? [])].sort((a, b) => a - b);
  }

  /** POST /rendezvous: check, register, and answer at once or when the world completes (long poll). */
  private async rendezvous(raw: unknown, fault: Fault): Promise<Reply> {
    const parsed = RendezvousBody.safeParse(raw);
    if (!parsed.success) return refusal(400, "BAD_REQUEST", `invalid request: ${parsed.error.message}`);
    const body = parsed.data;
    const run = this.rendezvousRuns.get(body.run_id);
    if (!run) return refusal(404, "NOT_FOUND", `no run ${body.run_id}`);
    const nnodes = run.nnodes;
    if (body.node_rank >= nnodes) {
      return refusal(400, "BAD_REQUEST", `node_rank ${body.node_rank} is outside this run's ${nnodes} nodes`);
    }
    if (body.nnodes != null && body.nnodes !== nnodes) {
      return refusal(400, "BAD_REQUEST", `this run has ${nnodes} nodes, not ${body.nnodes}`);
    }
    if (body.node_rank === 0 && body.port == null) {
      return refusal(400, "BAD_REQUEST", "node rank 0 registers the port it listens on (MASTER_PORT)");
    }
    const failed = (): RendezvousAnswer => ({
      state: "failed",
      nnodes,
      joined: [],
      missing: [],
      master: null,
      hosts: null,
      reason: run.failed,
    });
    if (run.failed !== null) return { status: 200, answer: RendezvousAnswer.parse(failed()) };
    run.rows.set(body.node_rank, {
      epoch: 1,
      node_rank: body.node_rank,
      addr: body.addr,
      port: body.node_rank === 0 ? body.port! : null,
      joined_at: Date.now(),
    });
    for (const wake of [...run.waiters]) wake();
    if (fault === "fail-after-accept") return { status: 500, answer: "registered, but the answer is lost" };
    const view = (): RendezvousAnswer =>
      RendezvousAnswer.parse(run.failed !== null ? failed() : rendezvousView([...run.rows.values()], nnodes));
    if (view().state === "waiting" && body.wait_ms > 0) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          run.waiters.delete(check);
          resolve();
        };
        const check = (): void => {
          if (view().state !== "waiting" || this.server === null) done();
        };
        const timer = setTimeout(done, body.wait_ms);
        run.waiters.add(check);
      });
    }
    return { status: 200, answer: view() };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://x");
    const method = req.method ?? "GET";

    if (method === "PUT" && url.pathname.startsWith("/upload/")) {
      const id = url.pathname.slice("/upload/".length);
      const digest = `sha256:${createHash("sha256").update(raw).digest("hex")}`;
      this.uploads.set(id, { id, bytes: raw, digest, headers: req.headers });
      this.requests.push({ method, path: url.pathname, token: undefined, status: 200, body: null });
      res.writeHead(200).end();
      return;
    }

    const path = url.pathname.startsWith(INGEST_PREFIX) ? url.pathname.slice(INGEST_PREFIX.length) : "?";
    const header = req.headers["x-starforge-token"];
    const token = Array.isArray(header) ? header[0] : header;
    const n = (this.counts.get(path) ?? 0) + 1;
    this.counts.set(path, n);
    const record = (status: number, body: unknown): void => {
      this.requests.push({ method, path, token, status, body });
    };
    if (method === "GET" && path === "/notice" && token === this.token) {
      record(200, null);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ notice: this.notice }));
      return;
    }
    if (method !== "POST" || path === "?") {
      record(404, null);
      res.writeHead(404).end();
      return;
    }
    if (token !== this.token) {
      record(401, null);
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad token"}');
      return;
    }
    const body: unknown = JSON.parse(raw.toString("utf8"));
    const fault = this.fault(path, n);
    if (fault === "fail") {
      record(500, body);
      res.writeHead(500).end("injected failure");
      return;
    }
    if (path === "/rendezvous") {
      const reply = await this.rendezvous(body, fault);
      if (this.rendezvousLatencyMs > 0) await new Promise((ok) => setTimeout(ok, this.rendezvousLatencyMs));
      record(reply.status, body);
      const json = typeof reply.answer !== "string";
      res
        .writeHead(reply.status, json ? { "content-type": "application/json" } : {})
        .end(json ? JSON.stringify(reply.answer) : reply.answer);
      return;
    }
    let answer: unknown = { ok: true };
    if (path === "/logs") this.storeLines(body as LogBatch);
    if (path === "/artifact/upload") {
      const id = `u${this.uploads.size + this.requests.length}`;
      answer = {
        method: "PUT",
        url: `http://127.0.0.1:${this.port}/upload/${id}`,
        headers: { "content-type": "application/octet-stream", "x-upload-id": id },
        expires_at: new Date(Date.now() + 600_000).toISOString(),
      };
    }
    if (fault === "fail-after-accept") {
      record(500, body);
      res.writeHead(500).end("stored, but the answer is lost");
      return;
    }
    record(200, body);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  }

  /** Unsequenced `/logs` chunks (the original client's terminal text), in arrival order. */
  readonly consoleChunks: string[] = [];
  consoleEof = false;

  private storeLines(batch: LogBatch): void {
    if (batch.seq === undefined) {
      this.consoleChunks.push(...batch.chunks);
      if (batch.eof) this.consoleEof = true;
      return;
    }
    const key = `${batch.rank ?? 0}/${batch.stream ?? "stdout"}`;
    let bySeq = this.lines.get(key);
    if (!bySeq) {
      bySeq = new Map();
      this.lines.set(key, bySeq);
    }
    const first = batch.seq ?? bySeq.size;
    batch.chunks.forEach((line, i) => {
      const prev = bySeq.get(first + i);
      if (prev === undefined) bySeq.set(first + i, line);
      else if (prev === line) this.duplicateLines++;
      else this.conflictingLines++;
    });
  }
}
