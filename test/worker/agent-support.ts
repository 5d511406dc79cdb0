/** A scripted agent for workerd tests: a real WebSocket through the Worker, speaking the real frames. */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { AgentFrame, Inventory, JournalEntry, ServerFrame } from "../../contract/agent-frames.schema.js";
import { digestOf } from "../../contract/digest.js";
import { ADMIN, api } from "./helpers.js";

export async function enroll(fleet: string): Promise<{ credential: string; nodeId: string }> {
  const t = await api(ADMIN, "POST", `/v1/fleets/${fleet}/enrollment-tokens`);
  const r = await api(null, "POST", "/v1/agents/enroll", { token: t.body.token });
  expect(r.status).toBe(201);
  return { credential: r.body.credential, nodeId: r.body.node_id };
}

/** A scripted agent's inventory: a docker node by default, since the test jobs (customSpec) run an image. */
export function inventory(
  name: string,
  gpus: number,
  series = "h200",
  runtime: Inventory["runtime"] = "docker",
): Inventory {
  return {
    hostname: name,
    runtime,
    gpu_series: series,
    gpus: Array.from({ length: gpus }, (_, index) => ({ index, name: `sim ${series}`, simulated: true })),
    cpus: 8,
    memory_mb: 32_000,
    labels: {},
    agent_version: "test",
  };
}

export class ScriptedAgent {
  readonly frames: ServerFrame[] = [];
  readonly raw: string[] = [];
  private waiters: Array<() => void> = [];
  private seq = 0;

  /** Resolves when the server closes the socket (its code and reason). */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((ok) =>
      ws.addEventListener("close", (e) => ok({ code: e.code, reason: e.reason })),
    );
    ws.addEventListener("message", (e) => {
      const text = typeof e.data === "string" ? e.data : "";
      this.raw.push(text);
      if (text !== "pong") this.frames.push(JSON.parse(text) as ServerFrame);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** The answer to an upgrade with this credential, when it is refused (the body read as JSON). */
  static async refused(credential: string): Promise<{ status: number; code: string; message: string }> {
    const res = await SELF.fetch("http://sf.test/v1/agents/connect", {
      headers: { upgrade: "websocket", authorization: `Bearer ${credential}` },
    });
    expect(res.status).not.toBe(101);
    const body = (await res.json()) as { error: { code: string; message: string } };
    return { status: res.status, code: body.error.code, message: body.error.message };
  }

  static async connect(credential: string): Promise<ScriptedAgent> {
    const res = await SELF.fetch("http://sf.test/v1/agents/connect", {
      headers: { upgrade: "websocket", authorization: `Bearer ${credential}` },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    return new ScriptedAgent(ws);
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  send(frame: AgentFrame): void {
    this.ws.send(JSON.stringify(frame));
  }

  id(): string {
    return `t${++this.seq}`;
  }

  hello(inv: Inventory, journal: JournalEntry[] = []): void {
    this.send({ v: 1, type: "hello", id: this.id(), inventory: inv, journal, orphans: [] });
  }

  report(
    r: { run_id: string; epoch: number; rank?: number },
    event: Extract<AgentFrame, { type: "report" }>["event"],
    extra: { exit_code?: number | null; reason?: string | null; infra?: boolean } = {},
  ): string {
    const id = this.id();
    this.send({
      v: 1,
      type: "report",
      id,
      run_id: r.run_id,
      epoch: r.epoch,
      rank: r.rank ?? 0,
      event,
      exit_code: extra.exit_code ?? null,
      reason: extra.reason ?? null,
      infra: extra.infra ?? false,
      ts: new Date().toISOString(),
    });
    return id;
  }

  /** Waits for the first frame (from `from` on) that matches. */
  async next<T extends ServerFrame["type"]>(
    type: T,
    pred: (f: Extract<ServerFrame, { type: T }>) => boolean = () => true,
    from = 0,
    timeoutMs = 5000,
  ): Promise<Extract<ServerFrame, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.frames
        .slice(from)
        .find(
          (f): f is Extract<ServerFrame, { type: T }> =>
            f.type === type && pred(f as Extract<ServerFrame, { type: T }>),
        );
      if (hit) return hit;
      if (Date.now() > deadline)
        throw new Error(
          `no ${type} frame within ${timeoutMs} ms; got ${this.frames.map((f) => f.type).join(", ")}`,
        );
      await new Promise<void>((ok) => {
        this.waiters.push(ok);
        setTimeout(ok, 100);
      });
    }
  }

  close(): void {
    this.ws.close(1000, "test done");
  }
}

/** Uploads two small files as the capsule and publishes it, so launches can be assembled. */
export async function publishTestCapsule(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const [name, text] of [
    ["bootstrap.sh", "#!/bin/bash\nexit 0\n"],
    ["runner.pyz", "not really a zipapp"],
  ] as const) {
    const digest = await digestOf(text);
    const r = await SELF.fetch(`http://sf.test/v1/blobs/${digest}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN}` },
      body: text,
    });
    expect([200, 201]).toContain(r.status);
    files[name] = digest;
  }
  const pub = await api(ADMIN, "PUT", "/v1/capsule", { files });
  expect(pub.status).toBe(200);
  return files;
}
