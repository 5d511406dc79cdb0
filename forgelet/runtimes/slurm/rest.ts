/**
 * HTTP to slurmrestd, over TCP (`http://host:port`) or a unix socket (`unix:/path/to/socket`), with JWT
 * auth (`X-SLURM-USER-NAME`, `X-SLURM-USER-TOKEN`). Transport only: it tells apart "cannot reach it now"
 * (SlurmUnavailable: retry later, never "the job is gone"), "the token was refused" (SlurmAuthError: renew
 * it and retry once) and Slurm's own answers, which the version adapters read.
 */
import { request } from "node:http";
import type { SlurmToken } from "./token.js";

export class SlurmUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SlurmUnavailable";
  }
}

export class SlurmAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SlurmAuthError";
  }
}

/** Slurm refused what we asked for (a bad partition, an impossible request): permanent. */
export class SlurmRejected extends Error {
  constructor(
    message: string,
    readonly errorNumber: number | null,
  ) {
    super(message);
    this.name = "SlurmRejected";
  }
}

export interface SlurmAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface SlurmEndpoint {
  /** `http://127.0.0.1:6820` or `unix:/run/slurmrestd/slurmrestd.socket`. */
  url: string;
  user: string;
  token: SlurmToken;
  timeoutMs?: number;
}

/** Checks an endpoint spelling; returns a message for a bad one. */
export function checkEndpoint(url: string): string | null {
  if (/^unix:\/.+/.test(url)) return null;
  if (/^http:\/\/[^/\s]+(:\d+)?\/?$/.test(url)) return null;
  return `--slurmrestd takes http://HOST:PORT or unix:/path/to/slurmrestd.socket, got "${url}"`;
}

/** Slurm's error list in an answer, as one line. */
export function slurmErrors(body: Record<string, unknown>): { text: string; numbers: number[] } {
  const errors = Array.isArray(body.errors) ? (body.errors as Array<Record<string, unknown>>) : [];
  const parts = errors.map((e) =>
    [e.error, e.description].filter((x) => typeof x === "string" && x).join(": "),
  );
  const numbers = errors
    .map((e) =>
      typeof e.error_number === "number"
        ? e.error_number
        : typeof e.error_code === "number"
          ? e.error_code
          : null,
    )
    .filter((n): n is number => n !== null);
  return { text: parts.filter(Boolean).join("; "), numbers };
}

export class SlurmRest {
  constructor(private readonly ep: SlurmEndpoint) {}

  /** One request; an auth refusal renews the token and tries once more. */
  async call(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<SlurmAnswer> {
    try {
      return await this.once(method, path, body);
    } catch (err) {
      if (!(err instanceof SlurmAuthError)) throw err;
      this.ep.token.invalidate();
      return this.once(method, path, body);
    }
  }

  private async once(method: string, path: string, body?: unknown): Promise<SlurmAnswer> {
    const token = await this.ep.token.get();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const unix = this.ep.url.startsWith("unix:") ? this.ep.url.slice("unix:".length) : null;
    const base = unix ? null : new URL(this.ep.url);
    const answer = await new Promise<SlurmAnswer>((ok, ko) => {
      const req = request(
        {
          method,
          path,
          ...(unix ? { socketPath: unix } : { host: base!.hostname, port: Number(base!.port || 80) }),
          headers: {
            "X-SLURM-USER-NAME": this.ep.user,
            "X-SLURM-USER-TOKEN": token,
            accept: "application/json",
            ...(payload === undefined
              ? {}
              : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
          },
          timeout: this.ep.timeoutMs ?? 15_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: Record<string, unknown> = {};
            try {
              parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
            } catch {
              parsed = { errors: [{ error: text.slice(0, 300) }] };
            }
            ok({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on("error", (e) => ko(new SlurmUnavailable(`slurmrestd: ${e.message}`)));
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer in ${this.ep.timeoutMs ?? 15_000} ms`)));
      req.on("error", (e) =>
        ko(new SlurmUnavailable(`cannot reach slurmrestd at ${this.ep.url}: ${e.message}`)),
      );
      if (payload !== undefined) req.write(payload);
      req.end();
    });
    const { text, numbers } = slurmErrors(answer.body);
    if (answer.status === 401 || answer.status === 403) {
      throw new SlurmAuthError(`slurmrestd refused the credentials: HTTP ${answer.status} ${text}`.trim());
    }
    // 22.05 answers a token it cannot verify with a 500 and an unnumbered error ("Unspecified error",
    // "unable to load"); Slurm's own refusals carry an error number and are the adapters' to read.
    // slurmctld unreachable, restarting or failing over, or a socket timeout (Slurm's communication and
    // protocol errors, 1000-1099 and 5000-5099): the cluster cannot answer now, which is not a refusal.
    if (answer.status >= 500 && numbers.some((n) => (n >= 1000 && n < 1100) || (n >= 5000 && n < 5100))) {
      throw new SlurmUnavailable(`slurmrestd cannot reach slurmctld right now: ${text}`);
    }
    if (answer.status >= 500 && numbers.length === 0) {
      throw new SlurmAuthError(
        `slurmrestd answered HTTP ${answer.status} (${text || "no details"}); is the token valid?`,
      );
    }
    return answer;
  }
}
