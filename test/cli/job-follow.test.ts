/**
 * Tier 3: `sf job logs` against the shared control plane, with a forgelet of this file's own that really
 * runs the jobs. The follow is read through a TCP proxy that we cut mid-stream: sf must reconnect with
 * Last-Event-ID and print every line exactly once, in order, then exit by the job's final status.
 */
import { spawn } from "node:child_process";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SseParser } from "../../cli/impl/job/sse.js";
import { type ControlPlane, call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { baseSpec, recipeDigest, waitForStatus } from "../support/jobs.js";
import { newSfHome, SF_BIN, sf, sfJson } from "../support/sf.js";
import { fleetWithAgent, newUser, sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let token = "";
let home = "";
/** This file's fleet with one agent (8 simulated H200s), where its jobs run. */
let fleet = "";
let agent: ForgeletProc | undefined;
/** Names this file's jobs start with (`<LINES>-<n>`). */
const LINES = unique("lines");

/** A loopback proxy to the control plane that can drop every connection it carries at once. */
interface CutProxy {
  url: string;
  /** How many follow requests (`follow=1`) went through it. */
  follows: () => number;
  cut: () => number;
  close: () => Promise<void>;
}

async function startProxy(target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let follows = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.on("data", (d: Buffer) => {
      follows += d.toString("latin1").split("follow=1").length - 1;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  return {
    url,
    follows: () => follows,
    cut() {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

/** A custom job whose train.sh prints `line 1` … `line N`, one every `tick` seconds, then exits `code`. */
async function lineJob(lines: number, tick: number, code = 0): Promise<string> {
  const trainSh = `#!/usr/bin/env bash\nset -euo pipefail\nfor i in $(seq 1 ${lines}); do echo "line $i"; sleep ${tick}; done\nexit ${code}\n`;
  const workspace = await uploadWorkspace(cp.url, token, [
    { path: "exp/train.sh", content: trainSh, mode: 0o755 },
  ]);
  const spec = baseSpec({
    name: `${LINES}-${lines}`,
    fleet,
    recipe: {
      name: "custom/custom",
      version: "1.0.0",
      digest: await recipeDigest(cp, token, "custom/custom"),
    },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: null },
    workspace,
    experimentDir: "exp",
  });
  const r = await call(cp, token, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (r.body.job as { id: string }).id;
}

async function storedLines(id: string): Promise<string[]> {
  const r = await call(cp, token, "GET", `/v1/jobs/${id}/logs?limit=5000`);
  return (r.body.lines as Array<{ line: string }>).map((l) => l.line);
}

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
const stdoutLines = (s: string) => s.split("\n").filter((l) => l !== "");

beforeAll(async () => {
  cp = sharedControlPlane();
  // Her own user: "the caller's most recent job" below is one of this file's.
  ({ token } = await newUser(cp, "flo"));
  home = newSfHome();
  const login = await sf(["login", "--server", cp.url, "--token", token], { home });
  expect(login.code, login.stderr).toBe(0);
  ({ fleet, agent } = await fleetWithAgent(cp, "follow", { gpus: 8 }));
});

afterAll(async () => {
  await agent?.dispose();
});

describe("sf job logs --follow", () => {
  it("prints every line exactly once and in order across forced disconnects, then exits 0 on SUCCEEDED", async () => {
    const proxy = await startProxy(cp.url);
    try {
      const id = await lineJob(60, 0.25);
      // The saved login is for the real URL; through the proxy the token comes from the environment.
      const follow = sf(["job", "logs", id, "-f", "--server", proxy.url], {
        home,
        env: { SF_TOKEN: token },
        timeoutMs: 150_000,
      });
      // Cut twice while lines are still coming: once early, once past the middle.
      for (const at of [12, 35]) {
        await until(`line ${at}`, async () => (await storedLines(id)).length >= at && proxy.follows() > 0);
        expect(proxy.cut(), "no connection was open to cut").toBeGreaterThan(0);
      }
      const r = await follow;
      expect(r.code, r.stderr).toBe(0);
      expect(stdoutLines(r.stdout)).toEqual(numbered(60));
      // It really reconnected (one follow request per connection, at least one after each cut).
      expect(proxy.follows()).toBeGreaterThanOrEqual(3);
      expect(r.stderr).toMatch(/reconnecting/);
      expect(r.stderr).toMatch(/SUCCEEDED/);
    } finally {
      await proxy.close();
    }
  });

  it("exits 7 (JOB_FAILED) when the followed job fails and is not retried, printing the run's reason and its diagnosis", async () => {
    const id = await lineJob(3, 0.2, 3);
    const r = await sf(["job", "logs", id, "--follow"], { home, server: cp.url });
    expect(r.code, r.stderr).toBe(7);
    expect(stdoutLines(r.stdout)).toEqual(numbered(3));
    expect(r.stderr).toMatch(/FAILED: .*code 3\n/);
    // Its diagnosis, waited for (retries were left: only the class kept it from another attempt).
    expect(r.stderr).toContain(
      "\n  UNKNOWN — no known cause in the logs; UNKNOWN without an infrastructure failure is not retried\n",
    );
    expect(r.stderr).toContain(`\n  why: sf job logs ${id} --cause\n`);
  });

  it("with --tail N starts at the last N lines already written, then follows to the end", async () => {
    const id = await lineJob(30, 0.1);
    await until("20 lines", async () => (await storedLines(id)).length >= 20);
    const r = await sf(["job", "logs", id, "-f", "--tail", "5"], { home, server: cp.url });
    expect(r.code, r.stderr).toBe(0);
    const out = stdoutLines(r.stdout);
    const first = Number(out[0]!.split(" ")[1]);
    expect(first).toBeGreaterThanOrEqual(16);
    expect(out).toEqual(numbered(30).slice(first - 1));
  });

  it("exits 130 on Ctrl-C, saying the job keeps running", async () => {
    const id = await lineJob(200, 0.2);
    const child = spawn(process.execPath, [SF_BIN, "job", "logs", id, "-f"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, SF_HOME: home, SF_SERVER: cp.url, NO_COLOR: "1" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)));
    await until("the first lines", async () => out.includes("line 3\n"));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(err).toMatch(new RegExp(`${id} keeps running`));
    expect((await call(cp, token, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
  });
});

describe("the SSE parser", () => {
  it("yields the same events however the stream is split, and skips comments", () => {
    const stream =
      'retry: 2000\n: tail from cursor 0\n\nid: 0\ndata: {"a":1}\n\r\n: keep-alive\r\n\r\nid: 1\r\ndata: x\r\ndata: y\r\n\r\nevent: end\ndata: {}\n\n';
    const whole = new SseParser().push(stream);
    expect(whole).toEqual([
      { event: "message", data: '{"a":1}', id: "0" },
      { event: "message", data: "x\ny", id: "1" },
      { event: "end", data: "{}", id: null },
    ]);
    for (let cut = 1; cut < stream.length; cut++) {
      const p = new SseParser();
      expect([...p.push(stream.slice(0, cut)), ...p.push(stream.slice(cut))]).toEqual(whole);
    }
  });
});

describe("sf job logs (a page, not a follow)", () => {
  it("prints exactly the stored lines, the last N with --tail, and parses with --json", async () => {
    const id = await lineJob(12, 0.02);
    await waitForStatus(cp, token, id, ["SUCCEEDED"], 60_000);
    const stored = await storedLines(id);
    expect(stored).toEqual(numbered(12));

    const all = await sf(["job", "logs", id], { home, server: cp.url });
    expect(all.code, all.stderr).toBe(0);
    expect(stdoutLines(all.stdout)).toEqual(stored);

    const tail = await sf(["job", "logs", id, "--tail", "4"], { home, server: cp.url });
    expect(stdoutLines(tail.stdout)).toEqual(stored.slice(-4));

    const json = await sfJson<{ run_id: string; lines: Array<{ cursor: number; line: string }> }>(
      ["job", "logs", id],
      {
        home,
        server: cp.url,
      },
    );
    expect(json.run_id).toMatch(/^run_/);
    expect(json.lines.map((l) => l.line)).toEqual(stored);
    expect(json.lines.map((l) => l.cursor)).toEqual(stored.map((_, i) => i));

    // Without an id: the caller's most recent job (this one).
    const latest = await sf(["job", "logs"], { home, server: cp.url });
    expect(latest.code, latest.stderr).toBe(0);
    expect(stdoutLines(latest.stdout)).toEqual(stored);
    expect(latest.stderr).toContain(id);
  });

  it("fails clearly (exit 4) for a job that does not exist", async () => {
    const r = await sf(["job", "logs", "job_00000000000000000000000000"], { home, server: cp.url });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/JOB_NOT_FOUND/);
  });
});
