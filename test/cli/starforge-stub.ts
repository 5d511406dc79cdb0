/**
 * A loopback stand-in for a control plane, for what the real one cannot be made to do on demand: state
 * another version, answer HTML, hang, speak TLS with a bad certificate. It speaks the real wire format:
 * the version headers of contract/version.ts, `{error: {code, message, details}}` errors, and bodies
 * checked against contract/responses.schema.ts by the tests that build them. It records every request.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Me } from "../../contract/responses.schema.js";
import { VERSION_HEADERS } from "../../contract/version.js";

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** What to do with a request: answer it, or hold it open forever without a byte (`"hang"`). */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | "hang";
export type Handler = (req: Seen, res: ServerResponse) => Reply | "handled";

export interface Stub {
  url: string;
  seen: Seen[];
  close: () => Promise<void>;
}

/** The headers a server of these versions sends on every answer. */
export function versionHeaders(v: {
  api?: string;
  minCli?: string;
  server?: string;
}): Record<string, string> {
  const h: Record<string, string> = {};
  if (v.api !== undefined) h[VERSION_HEADERS.api] = v.api;
  if (v.minCli !== undefined) h[VERSION_HEADERS.minCli] = v.minCli;
  if (v.server !== undefined) h[VERSION_HEADERS.server] = v.server;
  return h;
}

/** GET /v1/me as the real server answers it (checked against the schema sf parses it with). */
export const ME = Me.parse({
  user: {
    id: "usr_01jd8x0000000000000000000a",
    name: "ada",
    email: null,
    role: "operator",
    disabled: false,
    created_at: "2026-01-05T09:00:00.000Z",
  },
  quota: { max_gpus: 16, max_jobs: 20, daily_gpu_hours: 384, allowed_profiles: [], priority: 10 },
});

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

/** A server of the given versions that answers /v1/health and /v1/me like the real one. */
export function controlPlaneLike(v: { api?: string; minCli?: string; server?: string }): Handler {
  const h = versionHeaders(v);
  return (req) => {
    if (req.url === "/v1/health")
      return json(200, { ok: true, api: "v1", time: new Date().toISOString() }, h);
    if (req.url === "/v1/me") {
      if (!req.headers.authorization)
        return json(401, { error: { code: "UNAUTHENTICATED", message: "no token" } }, h);
      return json(200, ME, h);
    }
    return json(404, { error: { code: "NOT_FOUND", message: `no route ${req.url}` } }, h);
  };
}

export async function startStub(handler: Handler, tls?: { key: string; cert: string }): Promise<Stub> {
  const seen: Seen[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s: Seen = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(s);
      const reply = handler(s, res);
      if (reply === "hang" || reply === "handled") return;
      res.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? "");
    });
  };
  const server: Server = tls
    ? createHttps({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, listener)
    : createHttp(listener);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

export interface Certs {
  dir: string;
  /** Self-signed for IP 127.0.0.1, valid now. */
  selfSigned: { key: string; cert: string };
  /** Self-signed for IP 127.0.0.1, expired on 2 January 2020. */
  expired: { key: string; cert: string };
  /** Self-signed for the DNS name other-host.test only. */
  otherHost: { key: string; cert: string };
}

/** Generates the test certificates with openssl (P-256 keys; `openssl ca` for the back-dated one). */
export function makeCerts(): Certs {
  const dir = mkdtempSync(join(tmpdir(), "sf-tls-"));
  const run = (args: string[], cwd = dir) => execFileSync("openssl", args, { cwd, stdio: "pipe" });
  const key = (name: string) => [
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    name,
  ];
  run([
    "req",
    "-x509",
    ...key("self.key"),
    "-out",
    "self.pem",
    "-days",
    "2",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  run([
    "req",
    "-x509",
    ...key("other.key"),
    "-out",
    "other.pem",
    "-days",
    "2",
    "-subj",
    "/CN=other-host.test",
    "-addext",
    "subjectAltName=DNS:other-host.test",
  ]);
  // `req -x509` refuses dates in the past; `ca -selfsign` takes explicit ones.
  const ca = join(dir, "ca");
  mkdirSync(ca);
  writeFileSync(join(ca, "index.txt"), "");
  writeFileSync(join(ca, "serial"), "01\n");
  writeFileSync(
    join(ca, "ca.cnf"),
    "[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\n" +
      "policy = p\ncopy_extensions = copy\nunique_subject = no\n[p]\ncommonName = supplied\n",
  );
  run(
    [
      "req",
      "-new",
      ...key("expired.key"),
      "-out",
      "expired.csr",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
    ],
    ca,
  );
  run(
    [
      "ca",
      "-batch",
      "-config",
      "ca.cnf",
      "-selfsign",
      "-keyfile",
      "expired.key",
      "-in",
      "expired.csr",
      "-out",
      "expired.pem",
      "-startdate",
      "20200101000000Z",
      "-enddate",
      "20200102000000Z",
    ],
    ca,
  );
  return {
    dir,
    selfSigned: { key: join(dir, "self.key"), cert: join(dir, "self.pem") },
    expired: { key: join(ca, "expired.key"), cert: join(ca, "expired.pem") },
    otherHost: { key: join(dir, "other.key"), cert: join(dir, "other.pem") },
  };
}
