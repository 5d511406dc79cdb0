/**
 * A real forward proxy on 127.0.0.1, the kind a datacenter puts between GPU hosts and the internet:
 * CONNECT opens a TCP tunnel (what https://, wss:// and, from undici and https-proxy-agent, http:// and
 * ws:// use), and a request for an absolute URL is forwarded (what Python's urllib does for http://).
 * It records every tunnel and forwarded request, so a test knows what took the proxy and what did not.
 * `requireAuth` makes it answer 407 to anything without those Basic credentials.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

export interface Tunnel {
  /** host:port asked for in the CONNECT. */
  target: string;
  /** Still open (a WebSocket stays open as long as the agent is connected). */
  open: boolean;
}

export class ConnectProxy {
  readonly tunnels: Tunnel[] = [];
  readonly forwarded: string[] = [];
  readonly refused: string[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly requireAuth?: { user: string; password: string }) {
    this.server = createServer((req, res) => this.forward(req, res));
    this.server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) =>
      this.tunnel(req, client, head),
    );
    this.server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Tunnels to `target` (host:port) so far. */
  tunnelsTo(target: string): Tunnel[] {
    return this.tunnels.filter((t) => t.target === target);
  }

  listen(): Promise<void> {
    return new Promise((ok) => this.server.listen(0, "127.0.0.1", () => ok()));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private authorized(req: IncomingMessage): boolean {
    if (!this.requireAuth) return true;
    const want = Buffer.from(`${this.requireAuth.user}:${this.requireAuth.password}`).toString("base64");
    return req.headers["proxy-authorization"] === `Basic ${want}`;
  }

  private tunnel(req: IncomingMessage, client: Socket, head: Buffer): void {
    const target = req.url ?? "";
    if (!this.authorized(req)) {
      this.refused.push(target);
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      );
      return;
    }
    const m = /^(.+):(\d+)$/.exec(target);
    if (!m) {
      client.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const t: Tunnel = { target, open: true };
    this.tunnels.push(t);
    const upstream = connect(Number(m[2]), m[1]!.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const close = () => {
      t.open = false;
      upstream.destroy();
      client.destroy();
    };
    upstream.on("error", () => {
      if (!client.destroyed) client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
      close();
    });
    upstream.on("close", close);
    client.on("error", close);
    client.on("close", close);
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("a proxy takes absolute URLs");
      return;
    }
    if (!this.authorized(req)) {
      this.refused.push(url.host);
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="proxy"' }).end();
      return;
    }
    this.forwarded.push(`${req.method} ${url.href}`);
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const up = request(
      {
        host: url.hostname,
        port: url.port || 80,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers,
      },
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
  }
}

export async function startConnectProxy(requireAuth?: {
  user: string;
  password: string;
}): Promise<ConnectProxy> {
  const p = new ConnectProxy(requireAuth);
  await p.listen();
  return p;
}
