/**
 * What sf says when a request gets no proper answer, over real sockets on loopback: connection refused,
 * TLS with a self-signed, expired or foreign-name certificate (generated here with openssl), a URL that
 * is not a control plane, and a server that accepts the connection and never answers (a coded TIMEOUT
 * within SF_HTTP_TIMEOUT_SECONDS, never a hang; streams and uploads measured by inactivity instead, and
 * a timed-out submit retried with its Idempotency-Key). DNS failures cannot be produced without leaving
 * loopback; test/unit/cli-network-errors.test.ts covers their wording.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, route } from "../../cli/api.js";
import { CliError } from "../../cli/errors.js";
import { postJob } from "../../cli/impl/submit/post.js";
import { JobAnswer, JobDetailResponse } from "../../contract/responses.schema.js";
import { freePort } from "../support/control-plane.js";
import { newSfHome, sf } from "../support/sf.js";
import {
  type Certs,
  controlPlaneLike,
  json,
  makeCerts,
  type Stub,
  startStub,
  versionHeaders,
} from "./starforge-stub.js";

const TOKEN = { SF_TOKEN: "sfp_test-token" };
const OURS = versionHeaders({ api: "1", minCli: "0.1.0", server: "0.1.0" });

const stubs: Stub[] = [];
async function stub(...args: Parameters<typeof startStub>): Promise<Stub> {
  const s = await startStub(...args);
  stubs.push(s);
  return s;
}

let certs: Certs;

beforeAll(() => {
  certs = makeCerts();
});

afterAll(async () => {
  await Promise.all(stubs.map((s) => s.close()));
});

/** Accepts TCP connections and never sends a byte: the server that hung CI. */
async function silentServer(): Promise<{
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((s) => {
    count++;
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

describe("no server there", () => {
  it("connection refused: exit 6, UNREACHABLE, says so", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await sf(["whoami", "--server", url], { home: newSfHome(), env: TOKEN, timeoutMs: 30_000 });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`cannot reach ${url}: connection refused`);
    expect(r.stderr).toContain("[UNREACHABLE]");
  });
});

describe("TLS", () => {
  it("a self-signed certificate: exit 6, TLS_ERROR naming the cause, hint NODE_EXTRA_CA_CERTS, which then works", async () => {
    const s = await stub(controlPlaneLike({ api: "1" }), certs.selfSigned);
    const home = newSfHome();
    const r = await sf(["whoami", "--server", s.url], { home, env: TOKEN });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`TLS problem talking to ${s.url}: its certificate is self-signed`);
    expect(r.stderr).toContain("DEPTH_ZERO_SELF_SIGNED_CERT");
    expect(r.stderr).toContain("[TLS_ERROR]");
    expect(r.stderr).toMatch(/hint: .*NODE_EXTRA_CA_CERTS/);

    const trusted = await sf(["whoami", "--server", s.url], {
      home,
      env: { ...TOKEN, NODE_EXTRA_CA_CERTS: certs.selfSigned.cert },
    });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain("ada (operator)");
  });

  it("an expired certificate (even a trusted one): TLS_ERROR, 'expired'", async () => {
    const s = await stub(controlPlaneLike({ api: "1" }), certs.expired);
    const r = await sf(["whoami", "--server", s.url], {
      home: newSfHome(),
      env: { ...TOKEN, NODE_EXTRA_CA_CERTS: certs.expired.cert },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("TLS problem");
    expect(r.stderr).toContain("its certificate has expired (CERT_HAS_EXPIRED");
    expect(r.stderr).toContain("[TLS_ERROR]");
  });

  it("a certificate for another host name: TLS_ERROR, 'hostname mismatch'", async () => {
    const s = await stub(controlPlaneLike({ api: "1" }), certs.otherHost);
    const r = await sf(["whoami", "--server", s.url], {
      home: newSfHome(),
      env: { ...TOKEN, NODE_EXTRA_CA_CERTS: certs.otherHost.cert },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("hostname mismatch");
    expect(r.stderr).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(r.stderr).toContain("[TLS_ERROR]");
  });

  it("https:// to a plain-HTTP server: says it does not speak TLS", async () => {
    const s = await stub(controlPlaneLike({ api: "1" }));
    const url = s.url.replace("http://", "https://");
    const r = await sf(["whoami", "--server", url], { home: newSfHome(), env: TOKEN });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("does not speak TLS on this port");
    expect(r.stderr).toContain("[TLS_ERROR]");
  });

  it("http:// to a TLS server: the connection is closed, and the hint says https://", async () => {
    const s = await stub(controlPlaneLike({ api: "1" }), certs.selfSigned);
    const url = s.url.replace("https://", "http://");
    const r = await sf(["whoami", "--server", url], { home: newSfHome(), env: TOKEN });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("[UNREACHABLE]");
    expect(r.stderr).toMatch(/hint: .*https:\/\//);
  });
});

describe("a URL that answers but is not a control plane", () => {
  it("an HTML site: NOT_STARFORGE (exit 6), 'is this the control plane's URL?', and login sends it no token", async () => {
    const s = await stub(() => ({
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: "<!doctype html><title>Welcome</title>",
    }));
    const home = newSfHome();
    const login = await sf(["login", "--server", s.url, "--token", "sfp_secret"], { home });
    expect(login.code).toBe(6);
    expect(login.stderr).toContain(
      `${s.url}/v1/health answered HTTP 200 with an HTML page, not the StarForge API`,
    );
    expect(login.stderr).toContain("[NOT_STARFORGE]");
    expect(login.stderr).toContain("is this the control plane's URL?");
    expect(s.seen.some((q) => q.headers.authorization)).toBe(false);

    const whoami = await sf(["whoami", "--server", s.url], { home, env: TOKEN });
    expect(whoami.code).toBe(6);
    expect(whoami.stderr).toContain("[NOT_STARFORGE]");
  });

  it("another JSON API's 404 on /v1/health: NOT_STARFORGE", async () => {
    const s = await stub(() => json(404, { message: "Not Found" }));
    const r = await sf(["version", "--server", s.url], { home: newSfHome() });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(
      `${s.url}/v1/health answered HTTP 404 with application/json, not the StarForge API`,
    );
    expect(r.stderr).toContain("[NOT_STARFORGE]");
  });
});

describe("timeouts", () => {
  it("a server that accepts and never answers: TIMEOUT, exit 6, within SF_HTTP_TIMEOUT_SECONDS", async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      const r = await sf(["whoami", "--server", silent.url], {
        home: newSfHome(),
        env: { ...TOKEN, SF_HTTP_TIMEOUT_SECONDS: "1" },
        timeoutMs: 30_000,
      });
      const took = Date.now() - started;
      expect(r.code).toBe(6);
      expect(r.stderr).toContain(`${silent.url} did not answer GET /v1/me within 1 s`);
      expect(r.stderr).toContain("[TIMEOUT]");
      expect(r.stderr).toContain("SF_HTTP_TIMEOUT_SECONDS");
      expect(silent.connections()).toBe(1);
      expect(took).toBeGreaterThanOrEqual(1_000);
      expect(took).toBeLessThan(15_000);
    } finally {
      await silent.close();
    }
  });

  it("a bad SF_HTTP_TIMEOUT_SECONDS is a usage error (exit 2, BAD_ENV)", async () => {
    const r = await sf(["whoami", "--server", "http://127.0.0.1:1"], {
      home: newSfHome(),
      env: { ...TOKEN, SF_HTTP_TIMEOUT_SECONDS: "soon" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SF_HTTP_TIMEOUT_SECONDS must be a positive number of seconds, got "soon"');
    expect(r.stderr).toContain("[BAD_ENV]");
  });

  it("`sf job logs -f` reconnects when a log stream gets no answer or goes silent, and finishes", async () => {
    const detail = JobDetailResponse.parse({
      job: {
        id: "job_1",
        name: "exp1",
        user_id: "usr_1",
        fleet_id: "default",
        status: "SUCCEEDED",
        priority: 10,
        gpus: 1,
        recipe: "python/charlm",
        pending_reasons: [],
        current_run_id: "run_1",
        created_at: "2026-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
        spec: {},
      },
      runs: [
        {
          id: "run_1",
          attempt: 1,
          epoch: 1,
          status: "SUCCEEDED",
          placement: [{ rank: 0, pool: "default", node_id: "node_1", gpu_indices: [0] }],
          gpus: 1,
          allocated_at: "2026-01-01T00:00:00Z",
          ended_at: "2026-01-01T00:01:00Z",
          exit_code: 0,
          reason: null,
          resumed_from: null,
        },
      ],
      events: [],
    });
    const line = (cursor: number) =>
      `id: ${cursor}\ndata: ${JSON.stringify({ cursor, rank: 0, stream: "stdout", seq: cursor, ts: "2026-01-01T00:00:00Z", line: `line ${cursor}` })}\n\n`;
    let follows = 0;
    const lastEventIds: Array<string | undefined> = [];
    const s = await stub((req, res) => {
      if (req.url === "/v1/jobs/job_1") return json(200, detail, OURS);
      if (req.url.startsWith("/v1/jobs/job_1/logs") && req.url.includes("follow=1")) {
        follows++;
        lastEventIds.push(req.headers["last-event-id"] as string | undefined);
        // 1st: no answer at all. 2nd: one line, then silence. 3rd: the rest and the end.
        if (follows === 1) return "hang";
        res.writeHead(200, { "content-type": "text/event-stream", ...OURS });
        if (follows === 2) res.write(line(0));
        else res.end(`${line(1)}${line(2)}event: end\ndata: {}\n\n`);
        return "handled";
      }
      return json(404, { error: { code: "NOT_FOUND", message: req.url } }, OURS);
    });
    const started = Date.now();
    const r = await sf(["job", "logs", "job_1", "-f", "--server", s.url], {
      home: newSfHome(),
      env: { ...TOKEN, SF_HTTP_IDLE_TIMEOUT_SECONDS: "1" },
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("line 0\nline 1\nline 2\n");
    expect(follows).toBe(3);
    expect(lastEventIds).toEqual([undefined, undefined, "0"]);
    expect(r.stderr).toContain("sent nothing for 1 s");
    expect(r.stderr).toContain("reconnecting");
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe("timeouts inside the client (the Api every command uses)", () => {
  const fast = { totalMs: 1_000, idleMs: 1_000 };
  /** A documented download route: the stubs below answer any path. */
  const DOWNLOAD = route("/v1/jobs/{id}/logs/download", { id: "job_1" });

  /** Answers with `chunks` pieces `gapMs` apart (or stops after `stallAfter` of them). */
  async function trickle(chunks: number, gapMs: number, stallAfter?: number): Promise<Stub> {
    return stub((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", ...OURS });
      let i = 0;
      const tick = () => {
        if (stallAfter !== undefined && i >= stallAfter) return;
        if (i === chunks) {
          res.end("]");
          return;
        }
        res.write(i === 0 ? "[0" : `,${i}`);
        i++;
        setTimeout(tick, gapMs);
      };
      tick();
      return "handled";
    });
  }

  it("a body that keeps moving is not cut by the inactivity clock, but is by the total one", async () => {
    const s = await trickle(6, 300);
    const api = new Api(s.url, null, fast);
    const streamed = await api.fetch("GET", DOWNLOAD);
    expect(JSON.parse(await streamed.text())).toEqual([0, 1, 2, 3, 4, 5]);

    const err = await api
      .fetch("GET", DOWNLOAD, undefined, { timeout: "total" })
      .then((res) => res.text())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe("TIMEOUT");
  });

  it("a body that stops moving fails as TIMEOUT, not a hang", async () => {
    const s = await trickle(6, 100, 2);
    const res = await new Api(s.url, null, fast).fetch("GET", DOWNLOAD);
    const err = await res.text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe("TIMEOUT");
    expect((err as CliError).message).toContain("sent nothing for 1 s");
  });

  it("an upload slower than the clock in total but never idle goes through", async () => {
    const s = await stub((req) => json(200, { received: req.body.length }, OURS));
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(ctl) {
        if (n === 6) {
          ctl.close();
          return;
        }
        await new Promise((r) => setTimeout(r, 300));
        ctl.enqueue(new Uint8Array(1000).fill(65));
        n++;
      },
    });
    const res = await new Api(s.url, null, fast).fetch(
      "PUT",
      route("/v1/blobs/{digest}", { digest: "x" }),
      undefined,
      { raw: body },
    );
    expect(await res.json()).toEqual({ received: 6000 });
  });

  it("a submit whose POST timed out is retried with the same Idempotency-Key", async () => {
    const job = JobAnswer.parse({
      job: {
        id: "job_1",
        name: "exp1",
        user_id: "usr_1",
        fleet_id: "default",
        status: "QUEUED",
        priority: 10,
        gpus: 1,
        recipe: "python/charlm",
        pending_reasons: [],
        current_run_id: null,
        created_at: "2026-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
        runs: [],
      },
    });
    let posts = 0;
    const s = await stub((req) => {
      if (req.method !== "POST" || req.url !== "/v1/jobs")
        return json(404, { error: { code: "NOT_FOUND", message: "" } });
      posts++;
      return posts === 1 ? "hang" : json(201, job, OURS);
    });
    const got = await postJob(
      new Api(s.url, "sfp_x", { totalMs: 500, idleMs: 500 }),
      {} as never,
      "sf-key-1",
    );
    expect(got.id).toBe("job_1");
    const keys = s.seen.filter((q) => q.url === "/v1/jobs").map((q) => q.headers["idempotency-key"]);
    expect(keys).toEqual(["sf-key-1", "sf-key-1"]);
  });
});
