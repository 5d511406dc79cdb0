/**
 * The address this node's peers reach it at (`forgelet run --advertise-addr`). A distributed run's rank 0
 * listens there, and every other rank is told to dial it (docs/multi-node.md). The default is the IPv4
 * address of the interface that carries the default route: on a typical GPU node that is the network its
 * peers share. Nodes whose peers talk over another network (a dedicated fabric) set it explicitly.
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { type NetworkInterfaceInfo, networkInterfaces } from "node:os";

/** The interface of the default route in a /proc/net/route table (the lowest metric wins), or null. */
export function defaultRouteInterface(routeTable: string): string | null {
  let best: { iface: string; metric: number } | null = null;
  for (const line of routeTable.split("\n").slice(1)) {
    const [iface, destination, , , , , metric, mask] = line.trim().split(/\s+/);
    if (!iface || destination !== "00000000" || mask !== "00000000") continue;
    const m = Number(metric) || 0;
    if (!best || m < best.metric) best = { iface, metric: m };
  }
  return best?.iface ?? null;
}

/**
 * Picks the advertise address: the default-route interface's IPv4 address, else the first non-internal
 * IPv4 address, else loopback (a single machine: every peer is local).
 */
export function pickAdvertiseAddr(
  routeTable: string | null,
  interfaces: Record<string, NetworkInterfaceInfo[] | undefined>,
): string {
  const v4 = (infos: NetworkInterfaceInfo[] | undefined) => infos?.find((i) => i.family === "IPv4")?.address;
  const iface = routeTable ? defaultRouteInterface(routeTable) : null;
  const viaRoute = iface ? v4(interfaces[iface]) : undefined;
  if (viaRoute) return viaRoute;
  for (const infos of Object.values(interfaces)) {
    const a = infos?.find((i) => i.family === "IPv4" && !i.internal)?.address;
    if (a) return a;
  }
  return "127.0.0.1";
}

export function detectAdvertiseAddr(): string {
  let table: string | null = null;
  try {
    table = readFileSync("/proc/net/route", "utf8");
  } catch {
    // Not Linux: fall back to the interfaces alone.
  }
  return pickAdvertiseAddr(table, networkInterfaces());
}

/** An explicit --advertise-addr: an IP address or a DNS name the peers resolve. */
export function checkAdvertiseAddr(addr: string): string | null {
  if (isIP(addr)) return null;
  if (
    /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(addr)
  ) {
    return null;
  }
  return `--advertise-addr takes an IP address or a host name its peers resolve, got "${addr}"`;
}
