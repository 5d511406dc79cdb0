/**
 * A real loopback HTTP server speaking job-side ingest (contract/ingest.schema.ts), for the capsule
 * tests: it records every request, stores log lines by (rank, stream, seq) so duplicates collapse the
 * way the Run DO's do, serves /artifact/upload with PUT URLs on itself, and can be told to fail.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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

export class IngestServer {
  readonly requests: Recorded[] = [];
  readonly uploads = new Map<string, Upload>();
  /** (rank/stream) -> seq -> line, after dedupe. */
  private readonly lines = new Map<string, Map<number, string>>();
  duplicateLines = 0;
  conflictingLines = 0;
  fault: FaultPlan = () => "ok";
  private readonly counts = new Map<string, number>();
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
