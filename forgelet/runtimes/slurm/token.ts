/**
 * The JWT forgelet presents to slurmrestd: read from a file (an operator or a cron job renews it), or
 * minted with `scontrol token lifespan=N` on the forgelet host and renewed at half its lifespan. A token
 * slurmrestd refuses is dropped and obtained again once. Credentials never leave the forgelet host.
 */
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface SlurmTokenSource {
  /** A file holding the token (`SLURM_JWT=…` or the bare token); re-read when it changes. */
  file?: string;
  /** Else: `scontrol token` with this lifespan (seconds). */
  lifespanSeconds?: number;
  /** Environment for scontrol (SLURM_CONF). */
  env?: NodeJS.ProcessEnv;
}

export function parseToken(text: string): string {
  const m = /(?:^|\n)\s*SLURM_JWT=(\S+)/.exec(text);
  return (m ? m[1]! : text).trim();
}

export class SlurmToken {
  private cached: { token: string; renewAt: number; mtimeMs: number | null } | null = null;

  constructor(private readonly src: SlurmTokenSource) {}

  invalidate(): void {
    this.cached = null;
  }

  async get(): Promise<string> {
    const now = Date.now();
    if (this.src.file) {
      const mtimeMs = statSync(this.src.file, { throwIfNoEntry: false })?.mtimeMs ?? null;
      if (this.cached && this.cached.mtimeMs === mtimeMs) return this.cached.token;
      let text: string;
      try {
        text = readFileSync(this.src.file, "utf8");
      } catch (err) {
        throw new Error(`cannot read the Slurm token file ${this.src.file}: ${(err as Error).message}`);
      }
      const token = parseToken(text);
      if (!token) throw new Error(`the Slurm token file ${this.src.file} is empty`);
      this.cached = { token, renewAt: Number.POSITIVE_INFINITY, mtimeMs };
      return token;
    }
    if (this.cached && now < this.cached.renewAt) return this.cached.token;
    const lifespan = this.src.lifespanSeconds ?? 3600;
    let out: string;
    try {
      out = (await run("scontrol", ["token", `lifespan=${lifespan}`], { env: this.src.env ?? process.env }))
        .stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(
        `scontrol token failed: ${(e.stderr || e.message).trim()} (or pass --slurm-token-file)`,
      );
    }
    const token = parseToken(out);
    if (!token) throw new Error(`scontrol token printed no token: ${out.trim()}`);
    this.cached = { token, renewAt: now + (lifespan * 1000) / 2, mtimeMs: null };
    return token;
  }
}
