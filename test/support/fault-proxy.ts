/**
 * A loopback HTTP proxy in front of the real ingest, for tests of clients that retry: per request it
 * forwards and answers (`ok`), refuses without forwarding (`refuse`, the server never saw it), or
 * forwards and then answers an error (`lose-answer`, the server stored it but the client must think it
 * failed). It records what it forwarded, so a test knows exactly what reached the server.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type ProxyFault = "ok" | { refuse: number } | { loseAnswer: number };
/** Decides the fate of the n-th request (1-based) to an ingest path such as "/logs". */
export type ProxyPlan = (path: string, nth: number) => ProxyFault;

export interface Forwarded {
  path: string;
  body: string;
  status: number;
  /** The client was told it failed (the answer was replaced by an error). */
  lost: boolean;
}

export class FaultProxy {
  readonly forwarded: Forwarded[] = [];
  readonly refused: Array<{ path: string; status: number }> = [];
  private readonly counts = new Map<string, number>();
  private server: Server | null = null;
  port = 0;

  /** `target`: the control plane's base URL; `prefix`: the part of the path the plan does not see. */
  constructor(
    private readonly target: string,
    private readonly plan: ProxyPlan,
    private readonly prefix = "/v1/ingest",
  ) {}

  /** The base URL to give the client instead of the real one (same path prefix). */
  get url(): string {
    return `http://127.0.0.1:${this.port}${this.prefix}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        ({ status, body }) => res.writeHead(status, { "content-type": "application/json" }).end(body),
        (err: unknown) => res.writeHead(599).end(String(err)),
      );
    });
    await new Promise<void>((ok) => this.server!.listen(0, "127.0.0.1", ok));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const srv = this.server;
    this.server = null;
    if (!srv) return;
    srv.closeAllConnections();
    await new Promise<void>((ok) => srv.close(() => ok()));
  }

  /** Bodies forwarded to `path`, in the order the server received them. */
  bodies<T>(path: string): T[] {
    return this.forwarded.filter((f) => f.path === path).map((f) => JSON.parse(f.body) as T);
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: string }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const url = req.url ?? "/";
    const path = url.startsWith(this.prefix) ? url.slice(this.prefix.length) : url;
    const nth = (this.counts.get(path) ?? 0) + 1;
    this.counts.set(path, nth);
    const fault = this.plan(path, nth);
    if (typeof fault === "object" && "refuse" in fault) {
      this.refused.push({ path, status: fault.refuse });
      return {
        status: fault.refuse,
        body: '{"error":{"code":"INJECTED","message":"refused by the test proxy"}}',
      };
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v;
    }
    const res = await fetch(`${this.target}${url}`, { method: req.method, headers, body: body || undefined });
    const answer = await res.text();
    const lost = typeof fault === "object" && "loseAnswer" in fault;
    this.forwarded.push({ path, body, status: res.status, lost });
    if (lost)
      return { status: fault.loseAnswer, body: '{"error":{"code":"INJECTED","message":"answer lost"}}' };
    return { status: res.status, body: answer };
  }
}
