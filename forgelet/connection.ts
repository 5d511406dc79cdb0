/**
 * The agent's one outbound connection. It dials, says hello (through `onOpen`), heartbeats with "ping",
 * and on any loss reconnects with full-jitter exponential backoff. The control plane never dials in.
 * Through HTTPS_PROXY / HTTP_PROXY unless NO_PROXY names the server (forgelet/proxy.ts).
 */

import WebSocket from "ws";
import { HEARTBEAT_PING } from "../contract/agent-frames.schema.js";
import { backoffDelay } from "../contract/backoff.js";
import { type WebSocketProxyOptions, webSocketProxyOptions } from "./proxy.js";
import { proxyFor, redactProxy } from "./proxy-env.js";
import { forgeletSettings, type ProxySettings } from "./settings.js";

export interface ConnectionOptions {
  url: string;
  credential: string;
  onOpen: () => void;
  onText: (text: string) => void;
  log: (msg: string) => void;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Default: the environment's (forgeletSettings().proxy). */
  proxy?: ProxySettings;
}

export class Connection {
  private ws: WebSocket | null = null;
  private stopped = false;
  private attempt = 0;
  private heartbeatMs = 10_000;
  private lastHeard = Date.now();
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private credential: string;
  /** The last refusal logged, so a long outage does not print the same line every reconnect. */
  private lastRefusal = "";
  /** How the socket tunnels through the proxy (empty: direct); one agent for every dial. */
  private readonly tunnel: WebSocketProxyOptions;
  /** That proxy's URL as logs show it, or null. */
  private readonly proxy: string | null;

  constructor(private readonly o: ConnectionOptions) {
    this.credential = o.credential;
    const proxy = o.proxy ?? forgeletSettings().proxy;
    this.tunnel = webSocketProxyOptions(o.url, proxy);
    const p = proxyFor(o.url, proxy);
    this.proxy = p ? redactProxy(p) : null;
  }

  /** A renewed credential (the control plane sent it over this socket): used from the next dial on. */
  setCredential(credential: string): void {
    this.credential = credential;
  }

  start(): void {
    this.dial();
  }

  /** Closes for good (agent shutdown). */
  stop(): void {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.clearHeartbeat();
    this.ws?.close(1000, "agent stopping");
  }

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  send(text: string): boolean {
    if (!this.connected) return false;
    this.ws!.send(text);
    return true;
  }

  setHeartbeat(seconds: number): void {
    this.heartbeatMs = seconds * 1000;
    if (this.connected) this.startHeartbeat();
  }

  /** Drops the current socket as if the network failed (operations and tests); it reconnects. */
  drop(): void {
    this.ws?.terminate();
  }

  private dial(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.o.url, {
      headers: { authorization: `Bearer ${this.credential}` },
      handshakeTimeout: 10_000,
      ...this.tunnel,
    });
    this.ws = ws;
    let refused = false;
    ws.on("open", () => {
      this.attempt = 0;
      this.lastRefusal = "";
      this.lastHeard = Date.now();
      this.o.log(`connected to ${this.o.url}${this.proxy ? ` through the proxy ${this.proxy}` : ""}`);
      this.startHeartbeat();
      this.o.onOpen();
    });
    ws.on("message", (data, isBinary) => {
      this.lastHeard = Date.now();
      if (!isBinary) this.o.onText(data.toString());
    });
    ws.on("unexpected-response", (_req, res) => {
      // Read why (an expired or revoked credential says what to do), then fail this attempt.
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      res.on("end", () => {
        let why = "";
        try {
          const e = (JSON.parse(body) as { error?: { code?: string; message?: string } }).error;
          if (e) why = `: ${e.code}: ${e.message}`;
        } catch {
          // not JSON: the status says enough
        }
        // No StarForge error behind a proxy: the proxy answered the CONNECT itself (https-proxy-agent
        // replays its refusal as the response).
        const line =
          !why && this.proxy
            ? `the proxy ${this.proxy} refused the tunnel: HTTP ${res.statusCode}${res.statusCode === 407 ? " (it wants credentials: HTTPS_PROXY=http://USER:PASSWORD@HOST:PORT)" : ""}`
            : `the control plane refused the connection: HTTP ${res.statusCode}${why}`;
        if (line !== this.lastRefusal) this.o.log(line);
        this.lastRefusal = line;
        // Ends the handshake (error, then close): the usual backoff and reconnect follow.
        refused = true;
        ws.terminate();
      });
    });
    ws.on("error", (err) => {
      if (!refused) this.o.log(`connection error: ${err.message}`);
    });
    ws.on("close", (code, reason) => {
      this.clearHeartbeat();
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      const delay = this.backoff();
      this.o.log(
        `disconnected (${code}${reason.length ? ` ${reason.toString()}` : ""}); reconnecting in ${delay} ms`,
      );
      this.reconnectTimer = setTimeout(() => this.dial(), delay);
    });
  }

  /** Full jitter (contract/backoff.ts), so a fleet of agents does not reconnect in lockstep after a deploy. */
  private backoff(): number {
    return backoffDelay(this.attempt++, {
      baseMs: this.o.backoffBaseMs ?? 500,
      capMs: this.o.backoffMaxMs ?? 30_000,
    });
  }

  private startHeartbeat(): void {
    this.clearHeartbeat();
    this.heartbeat = setInterval(() => {
      if (!this.connected) return;
      // Silent for three intervals (no pong, no frame): the link is dead even if TCP has not noticed.
      if (Date.now() - this.lastHeard > 3 * this.heartbeatMs) {
        this.o.log("no answer to heartbeats; reconnecting");
        this.ws?.terminate();
        return;
      }
      this.ws!.send(HEARTBEAT_PING);
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private clearHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}
