/** Runs the real `sf` (the built bundle) as a subprocess, with its own SF_HOME, like a user would. */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
export const SF_BIN = join(ROOT, "dist", "sf.mjs");

export interface SfResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SfEnv {
  home: string;
  server?: string;
  env?: Record<string, string>;
}

export function newSfHome(): string {
  return mkdtempSync(join(tmpdir(), "sf-home-"));
}

/** Runs `sf args…` in `cwd`; never throws on a non-zero exit (tests assert on it). */
export function sf(
  args: string[],
  o: SfEnv & { cwd?: string; input?: string; timeoutMs?: number },
): Promise<SfResult> {
  return new Promise((ok, ko) => {
    const child = spawn(process.execPath, [SF_BIN, ...args], {
      cwd: o.cwd ?? process.cwd(),
      env: {
        PATH: process.env.PATH ?? "",
        HOME: o.home,
        SF_HOME: o.home,
        NO_COLOR: "1",
        ...(o.server ? { SF_SERVER: o.server } : {}),
        ...o.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      ko(new Error(`sf ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, o.timeoutMs ?? 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      ok({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(o.input ?? "");
  });
}

/** `sf … --json` parsed; fails the test with sf's stderr when the exit code is not 0. */
export async function sfJson<T = Record<string, unknown>>(
  args: string[],
  o: SfEnv & { cwd?: string },
): Promise<T> {
  const r = await sf([...args, "--json"], o);
  if (r.code !== 0) throw new Error(`sf ${args.join(" ")} exited ${r.code}\n${r.stderr}\n${r.stdout}`);
  return JSON.parse(r.stdout) as T;
}
