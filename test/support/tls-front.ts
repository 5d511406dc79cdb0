/**
 * HTTPS in front of the local control plane, as a real deployment has it (Cloudflare terminates TLS):
 * a node:https server on 127.0.0.1 with a certificate for 127.0.0.1 from a throwaway CA (made with the
 * openssl CLI), forwarding requests and WebSocket upgrades to the plain-HTTP control plane unchanged.
 * Clients trust it only when told (NODE_EXTRA_CA_CERTS=caFile), exactly like a private CA in production.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer, type Server } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TlsFront {
  url: string;
  /** The CA's certificate (PEM file): what NODE_EXTRA_CA_CERTS must name to trust `url`. */
  caFile: string;
  close: () => Promise<void>;
}

function makeCertificates(dir: string): { key: string; cert: string; caFile: string } {
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  ssl(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=starforge test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  ssl(
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
  );
  writeFileSync(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n");
  ssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "san.ext",
    "-out",
    "server.pem",
  );
  return {
    key: readFileSync(join(dir, "server.key"), "utf8"),
    cert: readFileSync(join(dir, "server.pem"), "utf8"),
    caFile: join(dir, "ca.pem"),
  };
}

/** Serves https://127.0.0.1:PORT in front of `backend` (http://127.0.0.1:PORT). */
export async function startTlsFront(backend: string): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), "sf-tlsfront-"));
  const { key, cert, caFile } = makeCertificates(dir);
  const b = new URL(backend);
  const sockets = new Set<Socket>();
  const server: Server = createServer({ key, cert }, (req, res) => {
    const up = request(
      { host: b.hostname, port: b.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  // A WebSocket upgrade: replay the request head to the backend and splice the two sockets.
  server.on("upgrade", (req, client: Socket, head: Buffer) => {
    const upstream = connect(Number(b.port), b.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const close = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on("error", close);
    client.on("error", close);
    upstream.on("close", close);
    client.on("close", close);
  });
  server.on("secureConnection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", () => ok()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile,
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
