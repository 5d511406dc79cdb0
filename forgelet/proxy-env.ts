/**
 * Outbound proxies. A GPU host in a datacenter often reaches the internet only through an HTTP proxy, so
 * forgelet honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY (forgelet/settings.ts reads them) for everything
 * it sends to the control plane: its HTTP requests (enrollment, blob downloads, `doctor`) go through
 * undici's EnvHttpProxyAgent installed as the global dispatcher of `fetch`, and its WebSocket through
 * https-proxy-agent. Both tunnel with CONNECT, for http:// and https:// alike, so the proxy never sees
 * the credential or the frames in clear when the control plane is https.
 *
 * Which URLs bypass the proxy is decided the way undici decides it for fetch, and the same settings are
 * handed to both, so the socket and the requests of one agent never take different paths:
 * - NO_PROXY is a list separated by commas or spaces; `*` alone bypasses every host;
 * - an entry matches its host and every subdomain (`example.com` and `.example.com` both match
 *   `sf.example.com`; a leading `*.` is the same), compared without case;
 * - an entry with a port (`sf.example.com:8443`) matches that port only;
 * - IP addresses match literally: CIDR ranges (`10.0.0.0/8`) are not understood.
 */
import type { ProxySettings } from "./settings.js";

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443, "ws:": 80, "wss:": 443 };

/** True when NO_PROXY says `url` is reached directly. */
export function bypassesProxy(url: URL, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]/).filter(Boolean);
  if (entries.length === 0) return false;
  if (noProxy === "*") return true;
  // url.host keeps the brackets of an IPv6 address; strip only the port.
  const host = url.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of entries) {
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, "").toLowerCase();
    const entryPort = m ? Number.parseInt(m[2]!, 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy `url` goes through, or null for a direct connection. */
export function proxyFor(url: string | URL, s: ProxySettings): string | null {
  const u = typeof url === "string" ? new URL(url) : url;
  const secure = u.protocol === "https:" || u.protocol === "wss:";
  const proxy = secure ? s.httpsProxy : s.httpProxy;
  if (!proxy || bypassesProxy(u, s.noProxy)) return null;
  return proxy;
}

/** A proxy URL fit for logs and reports: a password in it is never printed. */
export function redactProxy(proxy: string): string {
  try {
    const u = new URL(proxy);
    if (u.password) u.password = "***";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(not a URL)";
  }
}

/** Checks the proxy variables before anything dials: a malformed one is named rather than ignored. */
export function checkProxySettings(s: ProxySettings): string | null {
  for (const [name, value] of [
    // HTTP_PROXY first: HTTPS_PROXY falls back to it, and the variable named should be the one set.
    ["HTTP_PROXY", s.httpProxy],
    ["HTTPS_PROXY", s.httpsProxy],
  ] as const) {
    if (!value) continue;
    let u: URL | null = null;
    try {
      u = new URL(value);
    } catch {
      // named below
    }
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname) {
      return `${name}=${value} is not an http:// or https:// proxy URL; write it as http://HOST:PORT (or http://USER:PASSWORD@HOST:PORT)`;
    }
  }
  return null;
}
