/**
 * `forgelet doctor`, the control plane's side: the saved credential, name resolution, HTTPS, the
 * WebSocket path to the agent endpoint and the clock, each through the proxy the agent itself would use.
 * Read-only: nothing here writes the credential or opens an agent session.
 */

import { lookup } from "node:dns/promises";
import { statSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import WebSocket from "ws";
import { z } from "zod";
import { type Check, check, humanDuration } from "./doctor-report.js";
import { codeOf, messageOf } from "./net-errors.js";
import { webSocketProxyOptions } from "./proxy.js";
import { proxyFor, redactProxy } from "./proxy-env.js";
import { CREDENTIAL_FILE, type CredentialFile, type ProxySettings, readCredential } from "./settings.js";

/** Warn past this much skew, fail past the next: credentials and run tokens are checked against clocks. */
export const SKEW_WARN_MS = 30_000;
export const SKEW_FAIL_MS = 5 * 60_000;
/** A credential this close to its expiry is renewed only if the agent connects soon. */
const EXPIRY_WARN_MS = 60 * 60_000;

const ENROLL_FIX =
  "enroll this host: forgelet enroll --server URL --token TOKEN (an admin makes the token: sf admin fleet enroll-token FLEET)";

const Health = z.object({
  ok: z.literal(true),
  api: z.string(),
  time: z.string().optional(),
  version: z.string().optional(),
});
const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
const JwtClaims = z.object({ exp: z.number().optional() });

export interface ServerTarget {
  server: string;
  proxy: ProxySettings;
  timeoutMs: number;
}

/** The credential check, and the credential when there is a usable one. */
export function checkCredential(stateDir: string, serverGiven: boolean): Check {
  const file = join(stateDir, CREDENTIAL_FILE);
  let cred: CredentialFile | null;
  try {
    cred = readCredential(stateDir);
  } catch (err) {
    return check("credential", "fail", err instanceof Error ? err.message : String(err), ENROLL_FIX);
  }
  // Before enrollment, `doctor --server URL` checks the way there: no credential yet is expected then.
  if (!cred)
    return check("credential", serverGiven ? "warn" : "fail", `no credential in ${stateDir}`, ENROLL_FIX);
  const exp = expiryOf(cred);
  const who = `node ${cred.node_id} in fleet ${cred.fleet}`;
  if (exp !== null && exp <= Date.now()) {
    return check(
      "credential",
      "fail",
      `${who}: the credential expired ${humanDuration(Date.now() - exp)} ago (${new Date(exp).toISOString()})`,
      `it is renewed only while the agent is connected; ask an admin for a new enrollment token and ${ENROLL_FIX.slice("enroll this host: ".length)}`,
    );
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    return check(
      "credential",
      "warn",
      `${who}: ${file} is readable by others (mode ${mode.toString(8).padStart(4, "0")})`,
      `chmod 600 ${file}`,
    );
  }
  if (exp !== null && exp - Date.now() < EXPIRY_WARN_MS) {
    return check(
      "credential",
      "warn",
      `${who}: the credential expires in ${humanDuration(exp - Date.now())}`,
      "it is renewed only while the agent is connected: start it (systemctl start forgelet)",
    );
  }
  return check(
    "credential",
    "ok",
    `${who}${exp === null ? "" : `, expires in ${humanDuration(exp - Date.now())} (renewed while connected)`}`,
  );
}

/** expires_at, else the JWT's own exp (read, not verified: only the control plane holds the key). */
function expiryOf(cred: CredentialFile): number | null {
  if (cred.expires_at) {
    const t = Date.parse(cred.expires_at);
    if (Number.isFinite(t)) return t;
  }
  try {
    const payload = cred.credential.split(".")[1] ?? "";
    const claims = JwtClaims.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
    return claims.exp === undefined ? null : claims.exp * 1000;
  } catch {
    return null;
  }
}

/** Whose name this host resolves: the server's, or with a proxy only the proxy's (it resolves the rest). */
export async function checkDns(t: ServerTarget): Promise<Check> {
  const target = new URL(t.server);
  const proxy = proxyFor(target, t.proxy);
  const name = (proxy ? new URL(proxy) : target).hostname.replace(/^\[|\]$/g, "");
  const prefix = proxy ? `${target.hostname} is resolved by the proxy; ` : "";
  if (isIP(name)) return check("dns", "ok", `${prefix}${name} is an IP address: nothing to resolve`);
  try {
    const addrs = await withTimeout(lookup(name, { all: true }), t.timeoutMs);
    return check("dns", "ok", `${prefix}${name} → ${addrs.map((a) => a.address).join(", ")}`);
  } catch (err) {
    return check(
      "dns",
      "fail",
      `${prefix}cannot resolve ${name} (${codeOf(err) ?? messageOf(err)})`,
      proxy
        ? "check the proxy's host name in HTTPS_PROXY, and this host's resolver (/etc/resolv.conf)"
        : "check this host's resolver (/etc/resolv.conf); if it reaches the internet only through a proxy, set HTTPS_PROXY=http://PROXY:PORT",
    );
  }
}

export interface HttpsResult {
  check: Check;
  /**
   * The server's time and when it was read, by this host's clock (midpoint of the round trip): the
   * health answer's `time` (milliseconds, the Worker's own clock), else its Date header (seconds).
   */
  date: { server: number; local: number; source: string } | null;
}

export async function checkHttps(t: ServerTarget): Promise<HttpsResult> {
  const url = `${t.server}/v1/health`;
  const via = viaText(t);
  const sent = Date.now();
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(t.timeoutMs), redirect: "manual" });
  } catch (err) {
    const d = diagnose(err, t);
    return { check: check("https", "fail", `GET ${url}${via}: ${d.detail}`, d.fix), date: null };
  }
  const received = Date.now();
  const text = await res.text().catch(() => "");
  const json = parseJson(text);
  const health = Health.safeParse(json);
  const bodyTime = Date.parse(health.success ? (health.data.time ?? "") : "");
  const dateHeader = Date.parse(res.headers.get("date") ?? "");
  const local = (sent + received) / 2;
  const date = Number.isFinite(bodyTime)
    ? { server: bodyTime, local, source: "its health answer's time" }
    : Number.isFinite(dateHeader)
      ? { server: dateHeader, local, source: "its Date header" }
      : null;
  if (res.status === 200 && health.success) {
    const release = health.data.version ?? res.headers.get("starforge-server-version");
    return {
      check: check(
        "https",
        "ok",
        `GET /v1/health${via}: 200 in ${received - sent} ms (API ${health.data.api}${release ? `, server ${release}` : ""})`,
      ),
      date,
    };
  }
  const e = ErrorBody.safeParse(json);
  const detail = `GET ${url}${via}: HTTP ${res.status}${e.success ? ` ${e.data.error.code}: ${e.data.error.message}` : ""}`;
  const fix = e.success
    ? "the control plane answers but is unhealthy: see its logs"
    : "this URL does not answer as a StarForge control plane: check --server (the address sf uses)";
  return { check: check("https", "fail", detail, fix), date };
}

/**
 * The agent endpoint, with the WebSocket upgrade the agent sends and through the same proxy, but
 * without the credential: a full handshake would take over the running agent's session (the control
 * plane keeps one socket per node). The control plane's own refusal (401 UNAUTHENTICATED) proves the
 * upgrade request crossed every proxy and load balancer on the way; anything else names what answered.
 */
export async function checkWebSocket(t: ServerTarget): Promise<Check> {
  const url = `${t.server.replace(/^http/, "ws")}/v1/agents/connect`;
  const via = viaText(t);
  const tunnel = webSocketProxyOptions(url, t.proxy);
  return new Promise<Check>((done) => {
    const ws = new WebSocket(url, { handshakeTimeout: t.timeoutMs, ...tunnel });
    let settled = false;
    const finish = (c: Check) => {
      if (settled) return;
      settled = true;
      ws.terminate();
      done(c);
    };
    ws.on("open", () => finish(check("websocket", "ok", `${url}${via}: upgraded`)));
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      res.on("end", () => {
        const e = ErrorBody.safeParse(parseJson(body));
        const status = res.statusCode ?? 0;
        if (status === 401 && e.success) {
          finish(
            check(
              "websocket",
              "ok",
              `${url}${via}: the upgrade reached the agent endpoint (refused without a credential, as it must be)`,
            ),
          );
        } else if (!e.success && tunnel.agent && (status === 407 || status === 403 || status >= 500)) {
          finish(
            check(
              "websocket",
              "fail",
              `${url}: the proxy ${redactProxy(proxyFor(url, t.proxy) ?? "")} refused the tunnel: HTTP ${status}`,
              status === 407
                ? "the proxy wants credentials: HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT"
                : `ask the proxy's admins to allow CONNECT to ${new URL(url).host}`,
            ),
          );
        } else {
          finish(
            check(
              "websocket",
              "fail",
              `${url}${via}: HTTP ${status}${e.success ? ` ${e.data.error.code}: ${e.data.error.message}` : ""} instead of the agent endpoint's answer`,
              "something between this host and the control plane does not pass WebSocket upgrades (a proxy that inspects TLS, a load balancer): let /v1/agents/connect through",
            ),
          );
        }
      });
    });
    ws.on("error", (err) => {
      const d = diagnose(err, t);
      finish(check("websocket", "fail", `${url}${via}: ${d.detail}`, d.fix));
    });
  });
}

export function checkClock(date: HttpsResult["date"]): Check {
  if (!date) {
    return check("clock", "skip", "needs an answer from the control plane that carries its time");
  }
  const skew = date.local - date.server;
  const words = `this host's clock is ${humanDuration(skew)} ${skew > 0 ? "ahead of" : "behind"} the control plane's`;
  const fix =
    "synchronise the clock (timedatectl set-ntp true, or chrony/ntpd): node credentials and run tokens are checked against it";
  const abs = Math.abs(skew);
  if (abs > SKEW_FAIL_MS) return check("clock", "fail", words, fix);
  if (abs > SKEW_WARN_MS) return check("clock", "warn", words, fix);
  return check("clock", "ok", `within ${humanDuration(abs)} of the control plane's (${date.source})`);
}

function viaText(t: ServerTarget): string {
  const p = proxyFor(t.server, t.proxy);
  return p ? ` through the proxy ${redactProxy(p)}` : "";
}

/** What went wrong reaching the control plane, in one line, and what to do. */
function diagnose(err: unknown, t: ServerTarget): { detail: string; fix: string } {
  const target = new URL(t.server);
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  const proxy = proxyFor(t.server, t.proxy);
  const code = codeOf(err);
  const msg = messageOf(err);
  const tunnel = /Proxy response \((\d+)\)/.exec(msg);
  if (tunnel) {
    return {
      detail: `the proxy refused the tunnel: HTTP ${tunnel[1]}`,
      fix:
        tunnel[1] === "407"
          ? "the proxy wants credentials: HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT"
          : `ask the proxy's admins to allow CONNECT to ${target.hostname}:${port}`,
    };
  }
  if (/\bbad port\b/.test(msg)) {
    return {
      detail: `port ${port} is one fetch refuses to use (the Fetch standard's "bad ports")`,
      fix: "serve the control plane on another port (443 in production)",
    };
  }
  if (code === "ECONNREFUSED") {
    return proxy
      ? {
          detail: `the proxy ${redactProxy(proxy)} refused the connection (ECONNREFUSED)`,
          fix: "check HTTPS_PROXY / HTTP_PROXY: nothing listens there",
        }
      : {
          detail: `nothing listens at ${target.hostname}:${port} (ECONNREFUSED)`,
          fix: "check the server URL (forgelet doctor --server URL) and that the control plane is up",
        };
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return {
      detail: `cannot resolve ${proxy ? new URL(proxy).hostname : target.hostname} (${code})`,
      fix: "check the host name and this host's resolver (/etc/resolv.conf), or set HTTPS_PROXY when only a proxy resolves outside names",
    };
  }
  if (
    code === "ETIMEDOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    /timed? ?out|aborted due to timeout|Opening handshake has timed out/i.test(msg)
  ) {
    return {
      detail: `no answer in ${Math.round(t.timeoutMs / 1000)} s`,
      fix: proxy
        ? "the proxy does not answer in time: check it, or NO_PROXY if the server is on this network"
        : `an outbound firewall may drop the traffic: open TCP ${port} to ${target.hostname}, or set HTTPS_PROXY=http://PROXY:PORT when this host must use a proxy`,
    };
  }
  if (code && /CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS/.test(code)) {
    return {
      detail: `TLS verification failed (${code})`,
      fix: "if a proxy inspects TLS or the server's CA is private, give Node that CA: NODE_EXTRA_CA_CERTS=/path/to/ca.pem (in /etc/forgelet/forgelet.env for the service)",
    };
  }
  if (code === "ECONNRESET" || code === "EPIPE") {
    return {
      detail: `the connection was reset (${code})`,
      fix: "a firewall or proxy on the way closes it: check HTTPS_PROXY and the outbound rules",
    };
  }
  return { detail: code ? `${msg} (${code})` : msg, fix: "check the server URL and the network path to it" };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, ko) => {
    timer = setTimeout(
      () => ko(Object.assign(new Error(`timed out after ${ms} ms`), { code: "ETIMEDOUT" })),
      ms,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
