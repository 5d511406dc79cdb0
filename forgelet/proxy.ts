/**
 * The proxy adapters (forgelet/proxy-env.ts decides which URLs take the proxy): undici's fetch made the
 * process's fetch, with EnvHttpProxyAgent as its dispatcher, and the options a WebSocket needs to tunnel
 * through https-proxy-agent.
 */
import type { Agent } from "node:http";
import { isIP } from "node:net";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import { HttpsProxyAgent } from "https-proxy-agent";
import { proxyFor } from "./proxy-env.js";
import type { ProxySettings } from "./settings.js";

/**
 * Makes every `fetch` of this process undici's, honouring the proxy settings. Always undici's, proxy or
 * not, so a proxied host runs the same fetch as a direct one: Node 20's built-in fetch handed to an
 * undici 7 dispatcher refuses requests that set content-length themselves. undici is imported here, not
 * at the top: importing it installs a global dispatcher, which a module that merely imports this one
 * (the agent's, in a test process) must not do.
 */
export async function installFetchProxy(s: ProxySettings): Promise<void> {
  const { EnvHttpProxyAgent, install, setGlobalDispatcher } = await import("undici");
  install();
  if (!s.httpProxy && !s.httpsProxy) return;
  // Empty strings, not undefined: undefined would make undici read the environment again by itself.
  setGlobalDispatcher(
    new EnvHttpProxyAgent({
      httpProxy: s.httpProxy ?? "",
      httpsProxy: s.httpsProxy ?? "",
      noProxy: s.noProxy,
    }),
  );
}

export interface WebSocketProxyOptions {
  agent?: Agent;
  checkServerIdentity?: (host: string, cert: PeerCertificate) => Error | undefined;
}

/** What a `ws` WebSocket to `url` needs to go through the proxy (nothing for a direct connection). */
export function webSocketProxyOptions(url: string, s: ProxySettings): WebSocketProxyOptions {
  const proxy = proxyFor(url, s);
  if (!proxy) return {};
  const agent = new HttpsProxyAgent(proxy, { keepAlive: false });
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  // https-proxy-agent starts TLS inside the tunnel without the host, and for an IP address without a
  // servername either, so Node would check the certificate against "localhost": name the host.
  if (new URL(url).protocol === "wss:" && isIP(host)) {
    return { agent, checkServerIdentity: (_name, cert) => checkServerIdentity(host, cert) };
  }
  return { agent };
}
