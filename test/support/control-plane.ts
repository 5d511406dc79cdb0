/**
 * Starts the real control plane exactly as `npm start` does (scripts/start.mjs → wrangler dev → workerd)
 * on a free loopback port with a throwaway state directory, and stops it as a process group.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export interface ControlPlane {
  url: string;
  adminToken: string;
  stateDir: string;
  pgid: number;
  output: () => string;
  stop: () => Promise<void>;
}

const ROOT = resolve(import.meta.dirname, "../..");

export function freePort(): Promise<number> {
  return new Promise((ok, ko) => {
    const srv = createServer();
    srv.on("error", ko);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => ok(port));
    });
  });
}

export async function startControlPlane(
  opts: {
    stateDir?: string;
    port?: number;
    agent?: boolean;
    vars?: Record<string, string | number>;
    /** Limits of [[ratelimits]] bindings for this run (npm start --ratelimit). */
    ratelimits?: Record<string, number>;
    /** Where it listens and what it tells agents and workloads (default 127.0.0.1). */
    host?: string;
  } = {},
): Promise<ControlPlane> {
  const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), "sf-cp-"));
  const port = opts.port ?? (await freePort());
  const host = opts.host ?? "127.0.0.1";
  const args = [
    join(ROOT, "scripts/start.mjs"),
    "--port",
    String(port),
    "--state-dir",
    stateDir,
    "--host",
    host,
  ];
  if (opts.agent === false) args.push("--no-agent");
  for (const [k, v] of Object.entries(opts.vars ?? {})) args.push("--var", `${k}=${v}`);
  for (const [k, v] of Object.entries(opts.ratelimits ?? {})) args.push("--ratelimit", `${k}=${v}`);
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, SF_BOOTSTRAP_ADMIN_TOKEN: "" },
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const url = `http://${host}:${port}`;
  await new Promise<void>((ok, ko) => {
    const timer = setTimeout(() => ko(new Error(`control plane did not start in 90 s:\n${out}`)), 90_000);
    const check = setInterval(() => {
      if (out.includes(`READY ${url}`)) {
        clearInterval(check);
        clearTimeout(timer);
        ok();
      }
    }, 50);
    child.on("exit", (code) => {
      clearInterval(check);
      clearTimeout(timer);
      const agentLog = join(stateDir, "forgelet.log");
      const tail = existsSync(agentLog)
        ? readFileSync(agentLog, "utf8").split("\n").slice(-30).join("\n")
        : "(no agent log)";
      ko(new Error(`start.mjs exited with ${code}:\n${out}\n--- forgelet.log (tail) ---\n${tail}`));
    });
  });
  const vars = readFileSync(join(stateDir, "dev.vars"), "utf8");
  const adminToken = /SF_BOOTSTRAP_ADMIN_TOKEN=(\S+)/.exec(vars)?.[1] ?? "";
  const pgid = child.pid!;
  return {
    url,
    adminToken,
    stateDir,
    pgid,
    output: () => out,
    async stop() {
      const exited = new Promise<void>((ok) => {
        if (child.exitCode !== null) ok();
        else child.on("exit", () => ok());
      });
      try {
        process.kill(pgid, "SIGTERM");
      } catch {
        // already gone
      }
      await exited;
      await waitGroupGone(pgid, 10_000);
      if (!opts.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** True while any process of the group is alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitGroupGone(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      process.kill(-pgid, "SIGKILL");
      throw new Error(`process group ${pgid} outlived its stop by ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The text of wrangler's dev proxy's answer to a request it lost ("Your worker restarted mid-request"). The
 * local control plane no longer runs behind that proxy (scripts/serve-worker.mjs); tests that see it fail.
 */
export const DEV_SERVER_RESTARTED = "Your worker restarted mid-request";

/**
 * fetch, with the answer read whole. Nothing is ever sent again: a dropped connection or a 5xx from the
 * local control plane is a bug of the stack under test, so the test sees it (test/unit/dev-fetch.test.ts).
 * Each request has a connection of its own (`connection: close`): a kept-alive connection the server
 * closes as idle while the next request is sent on it fails that request unread ("other side closed"),
 * which says nothing about the stack under test (decision 95).
 */
export async function devFetch(url: string, init: RequestInit): Promise<{ status: number; text: string }> {
  const headers = new Headers(init.headers);
  headers.set("connection", "close");
  const res = await fetch(url, { ...init, headers });
  return { status: res.status, text: await res.text() };
}

/** A minimal JSON client for tier-3 tests. */
export async function call(
  cp: Pick<ControlPlane, "url">,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { status, text } = await devFetch(`${cp.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
