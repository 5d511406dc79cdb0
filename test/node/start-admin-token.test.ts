/**
 * `npm start` with SF_BOOTSTRAP_ADMIN_TOKEN set: that token is the admin token the Worker accepts (it used
 * to be the script's alone while the Worker kept a generated one, so the start failed with 401); a bad one,
 * or one that differs from a state directory's own, is refused before anything starts.
 *
 * Its own control planes, not the project's shared one: what it tests is `npm start` itself, with fresh and
 * existing state directories.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, freePort, waitGroupGone } from "../support/control-plane.js";

const ROOT = resolve(import.meta.dirname, "../..");
const START = join(ROOT, "scripts", "start.mjs");
const TOKEN = "sfp_chosen-by-the-operator-0123456789abcdef";
const work = mkdtempSync(join(tmpdir(), "sf-start-token-"));
let child: ChildProcess | null = null;

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    process.kill(-child.pid, "SIGTERM");
    await waitGroupGone(child.pid, 15_000);
  }
  rmSync(work, { recursive: true, force: true });
});

const env = (token: string) => ({ ...process.env, SF_BOOTSTRAP_ADMIN_TOKEN: token });

describe("npm start with SF_BOOTSTRAP_ADMIN_TOKEN", () => {
  it("makes it the admin token of a new state directory, accepted by the Worker", async () => {
    const stateDir = join(work, "state");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = spawn(
      process.execPath,
      [START, "--port", String(port), "--state-dir", stateDir, "--no-agent"],
      {
        cwd: ROOT,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: env(TOKEN),
      },
    );
    child = proc;
    let out = "";
    proc.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    proc.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    await new Promise<void>((ok, ko) => {
      const timer = setTimeout(() => ko(new Error(`no READY in 90 s:\n${out}`)), 90_000);
      const poll = setInterval(() => {
        if (out.includes(`READY ${url}`)) {
          clearInterval(poll);
          clearTimeout(timer);
          ok();
        }
      }, 50);
      proc.on("exit", (code) => {
        clearInterval(poll);
        clearTimeout(timer);
        ko(new Error(`start.mjs exited with ${code}:\n${out}`));
      });
    });
    expect(readFileSync(join(stateDir, "dev.vars"), "utf8")).toContain(`SF_BOOTSTRAP_ADMIN_TOKEN=${TOKEN}\n`);
    expect(out).toContain(`admin token:  ${TOKEN}`);
    // The local fleet was created with it (the script's own call), and the Worker accepts it for anything.
    expect((await call({ url }, TOKEN, "GET", "/v1/fleets/local")).status).toBe(200);
    expect((await call({ url }, `${TOKEN}x`, "GET", "/v1/fleets/local")).status).toBe(401);

    proc.removeAllListeners("exit");
    process.kill(-(proc.pid ?? 0), "SIGTERM");
    await waitGroupGone(proc.pid ?? 0, 15_000);

    // The same directory with another token: refused up front, nothing started.
    const other = spawnSync(
      process.execPath,
      [START, "--port", String(port), "--state-dir", stateDir, "--no-agent"],
      {
        cwd: ROOT,
        encoding: "utf8",
        env: env("sfp_another-token-0123456789abcdef"),
        timeout: 30_000,
      },
    );
    expect(other.status).toBe(2);
    expect(other.stderr).toContain(
      "error BOOTSTRAP_TOKEN_MISMATCH: SF_BOOTSTRAP_ADMIN_TOKEN differs from the admin token of",
    );
    expect(other.stdout).not.toContain("applying D1 migrations");
  });

  it("refuses a token the Worker would refuse, before creating the state directory", () => {
    const stateDir = join(work, "short");
    const r = spawnSync(process.execPath, [START, "--state-dir", stateDir, "--no-agent"], {
      cwd: ROOT,
      encoding: "utf8",
      env: env("too short"),
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "error BOOTSTRAP_TOKEN_INVALID: SF_BOOTSTRAP_ADMIN_TOKEN must be at least 16 printable characters, no spaces",
    );
    expect(existsSync(stateDir)).toBe(false);
  });
});
