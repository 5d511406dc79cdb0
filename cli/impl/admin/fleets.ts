/** `sf admin fleet create|ls|show|enroll-token` and `sf admin maintenance status|drain|resume`. */
import type { Command } from "commander";
import { FleetNetwork } from "../../../contract/api.schema.js";
import { FleetLabels, parseSelectorText } from "../../../contract/placement.js";
import {
  DrainChange,
  EnrollmentTokenView,
  FleetList,
  FleetLive,
  Maintenance,
  OneFleet,
} from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print, table } from "../../output.js";

export interface NetworkOptions {
  rendezvousTimeout?: number;
  rendezvousPorts?: string;
}

function pairs(list: string[] | undefined): Record<string, string> {
  return Object.fromEntries(
    (list ?? []).map((kv) => {
      const i = kv.indexOf("=");
      return [kv.slice(0, i), kv.slice(i + 1)];
    }),
  );
}

/** The network settings with the options applied (the server checks names, ranges and bounds). */
function applyNetwork(
  base: FleetNetwork,
  o: NetworkOptions & { set?: string[]; unset?: string[] },
): FleetNetwork {
  const env = { ...base.env, ...pairs(o.set) };
  for (const name of o.unset ?? []) delete env[name];
  const ports = o.rendezvousPorts;
  return {
    env,
    rendezvous_timeout_seconds: o.rendezvousTimeout ?? base.rendezvous_timeout_seconds,
    port_range:
      ports === undefined
        ? base.port_range
        : ports === "any"
          ? null
          : (ports.split("-").map(Number) as [number, number]),
  };
}

function describeNetwork(n: FleetNetwork): string {
  const env = Object.entries(n.env).map(([k, v]) => `${k}=${v}`);
  const ports = n.port_range ? `ports ${n.port_range[0]}-${n.port_range[1]}` : "any free port";
  return `rendezvous timeout ${n.rendezvous_timeout_seconds} s, rank 0 on ${ports}; ${env.length ? env.join(" ") : "no network variables"}`;
}

export async function createFleet(
  cmd: Command,
  name: string,
  o: { kind: string; allow?: string[]; description?: string; networkEnv?: string[] } & NetworkOptions,
): Promise<void> {
  const network = applyNetwork(FleetNetwork.parse({}), { ...o, set: o.networkEnv });
  const { fleet } = await authedApi(cmd).post(route("/v1/fleets"), OneFleet, {
    name,
    kind: o.kind,
    image_allowlist: o.allow ?? [],
    ...(o.description !== undefined ? { description: o.description } : {}),
    network,
  });
  emit({ fleet }, () => {
    info(`${c.green("✓")} created fleet ${c.bold(fleet.name)} (${fleet.kind}, ${fleet.id})`);
    info(c.dim(`next: sf admin fleet enroll-token ${fleet.name}   # then run forgelet enroll on a GPU host`));
  });
}

export async function listFleets(cmd: Command): Promise<void> {
  const { fleets } = await authedApi(cmd).get(route("/v1/fleets"), FleetList);
  emit({ fleets }, () =>
    table(
      fleets.map((f) => ({
        name: f.name,
        kind: f.kind,
        state: f.draining ? "draining" : "open",
        labels: labelText(f.labels),
        images: f.image_allowlist.length ? f.image_allowlist.join(", ") : null,
        description: f.description || null,
      })),
      ["name", "kind", "state", "labels", "images", "description"],
    ),
  );
}

export async function fleetNetwork(
  cmd: Command,
  name: string,
  o: { env?: string[]; unsetEnv?: string[] } & NetworkOptions,
): Promise<void> {
  const api = authedApi(cmd);
  const { fleet } = await api.get(route("/v1/fleets/{fleet}", { fleet: name }), FleetLive);
  const change = o.env || o.unsetEnv || o.rendezvousTimeout !== undefined || o.rendezvousPorts !== undefined;
  if (!change) {
    emit({ network: fleet.network }, () => print(`${c.bold(fleet.name)}: ${describeNetwork(fleet.network)}`));
    return;
  }
  const network = applyNetwork(fleet.network, { ...o, set: o.env, unset: o.unsetEnv });
  const updated = await api.patch(route("/v1/fleets/{fleet}", { fleet: name }), OneFleet, { network });
  emit({ network: updated.fleet.network }, () => {
    info(`${c.green("✓")} ${c.bold(updated.fleet.name)}: ${describeNetwork(updated.fleet.network)}`);
    info(c.dim("jobs launched from now on get these settings; running ones keep theirs"));
  });
}

/** `sf admin fleet preemption NAME [--per-minute N]`: the fleet's preemption rate limit, shown or set. */
export async function fleetPreemption(cmd: Command, name: string, o: { perMinute?: number }): Promise<void> {
  const api = authedApi(cmd);
  const { fleet } =
    o.perMinute === undefined
      ? await api.get(route("/v1/fleets/{fleet}", { fleet: name }), FleetLive)
      : await api.patch(route("/v1/fleets/{fleet}", { fleet: name }), OneFleet, {
          preemptions_per_minute: o.perMinute,
        });
  const n = fleet.preemptions_per_minute;
  emit({ preemptions_per_minute: n }, () => {
    const what = n === 0 ? "never preempts" : `starts at most ${n} preemption${n === 1 ? "" : "s"} a minute`;
    info(`${o.perMinute === undefined ? "" : `${c.green("✓")} `}${c.bold(fleet.name)} ${what}`);
  });
}

function labelText(labels: Record<string, string>): string | null {
  const text = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  return text || null;
}

/**
 * `sf admin fleet labels NAME [KEY=VALUE…] [--rm KEY…]`: the fleet's labels, which a job's
 * `--fleet-selector` matches; shown, or changed (the others kept).
 */
export async function fleetLabels(
  cmd: Command,
  name: string,
  set: string[],
  o: { rm?: string[] },
): Promise<void> {
  const api = authedApi(cmd);
  let { fleet } = await api.get(route("/v1/fleets/{fleet}", { fleet: name }), FleetLive);
  if (set.length > 0 || (o.rm ?? []).length > 0) {
    let added: Record<string, string>;
    try {
      added = parseSelectorText(set.join(","));
    } catch (err) {
      throw new CliError(`${(err as Error).message}: give labels as KEY=VALUE (e.g. site=eu)`, {
        exit: EXIT.USAGE,
      });
    }
    const labels = { ...fleet.labels, ...added };
    for (const k of o.rm ?? []) delete labels[k];
    const valid = FleetLabels.safeParse(labels);
    if (!valid.success)
      throw new CliError(valid.error.issues.map((i) => i.message).join("; "), { exit: EXIT.USAGE });
    ({ fleet } = await api.patch(route("/v1/fleets/{fleet}", { fleet: name }), OneFleet, { labels }));
    info(`${c.green("✓")} ${c.bold(fleet.name)} labels: ${labelText(fleet.labels) ?? "(none)"}`);
    emit({ labels: fleet.labels }, () => undefined);
    return;
  }
  emit({ labels: fleet.labels }, () =>
    print(`${c.bold(fleet.name)}: ${labelText(fleet.labels) ?? "(no labels)"}`),
  );
}

export async function showFleet(cmd: Command, name: string): Promise<void> {
  const live = await authedApi(cmd).get(route("/v1/fleets/{fleet}", { fleet: name }), FleetLive);
  emit(live, () => {
    const f = live.fleet;
    const t = live.totals;
    print(`${c.bold(f.name)} (${f.kind}, ${f.id})${f.description ? ` — ${f.description}` : ""}`);
    print(`state:   ${live.draining ? c.yellow(`draining: ${live.drain_note ?? ""}`) : "open"}`);
    print(`images:  ${f.image_allowlist.length ? f.image_allowlist.join(", ") : "(catalog defaults only)"}`);
    print(`labels:  ${labelText(f.labels) ?? "(none)"}`);
    print(`GPUs:    ${t.gpus} total, ${t.allocated} allocated, ${t.free} free`);
    print(`jobs:    ${t.running} running, ${t.queued} queued`);
    print(`network: ${describeNetwork(f.network)}`);
    print(`preempt: at most ${f.preemptions_per_minute} a minute`);

    print();
    print(c.bold("Nodes"));
    if (live.nodes.length === 0)
      print(c.dim("  none yet: `sf admin fleet enroll-token` and `forgelet enroll` add one"));
    table(
      live.nodes.map((n) => ({
        name: n.name,
        series: n.series,
        // A cluster's drained or down node says why, in the cluster's words.
        status: n.status_reason ?? n.status,
        agent: n.agent ? "connected" : "-",
        runtime: n.runtime,
        address: n.advertise_addr,
        gpus: `${n.gpus.filter((g) => g.run_id).length}/${n.gpus.length} used`,
      })),
      ["name", "series", "status", "agent", "runtime", "address", "gpus"],
    );

    const allocations = live.nodes.flatMap((n) =>
      n.gpus
        .filter((g) => g.run_id)
        .map((g) => ({ node: n.name, gpu: g.index, job: g.job_id, run: g.run_id })),
    );
    print();
    print(c.bold("Allocations"));
    if (allocations.length === 0) print(c.dim("  no GPU is allocated"));
    table(allocations, ["node", "gpu", "job", "run"]);

    print();
    print(c.bold("Queue"));
    if (live.queue.length === 0) print(c.dim("  nothing is waiting"));
    table(
      live.queue.map((q) => ({
        job: q.job_id,
        user: q.user_id,
        gpus: q.gpus,
        priority: q.priority,
        "waiting for": q.pending_reasons.map((r) => r.message).join("; ") || null,
      })),
      ["job", "user", "gpus", "priority", "waiting for"],
    );
  });
}

export async function enrollToken(cmd: Command, name: string, o: { ttlMinutes?: number }): Promise<void> {
  const api = authedApi(cmd);
  const r = await api.post(
    route("/v1/fleets/{fleet}/enrollment-tokens", { fleet: name }),
    EnrollmentTokenView,
    o.ttlMinutes === undefined ? {} : { ttl_minutes: o.ttlMinutes },
  );
  emit(r, () => {
    info(`one-shot enrollment token for fleet ${c.bold(r.fleet)}, valid until ${r.expires_at}:`);
    print(r.token);
    info(c.dim(`on the GPU host: forgelet enroll --server ${api.server} --token <token>`));
  });
}

function printMaintenance(m: Maintenance): void {
  print(
    `${c.bold(m.fleet)}: ${m.draining ? c.yellow("draining") : c.green("open")}${m.note ? ` (${m.note})` : ""}; ` +
      `${m.running} running, ${m.queued} queued`,
  );
  if (!m.draining) return;
  print(`  paused by the drain: ${m.paused.length} running job(s), ${m.held.length} queued job(s)`);
  if (m.blockers.length === 0) {
    print(`  ${c.green("no blockers")}: nothing holds GPUs; maintenance can start`);
    return;
  }
  print(`  ${c.yellow(`${m.blockers.length} blocker(s)`)} still hold GPUs:`);
  for (const b of m.blockers) print(`    ${b.job_id}  ${b.name}  ${b.status}  ${c.dim(b.reason)}`);
}

export async function maintenanceStatus(cmd: Command, fleet: string): Promise<void> {
  const m = await authedApi(cmd).get(route("/v1/fleets/{fleet}/maintenance", { fleet }), Maintenance);
  emit(m, () => printMaintenance(m));
}

export async function drain(cmd: Command, fleet: string, note: string): Promise<void> {
  const api = authedApi(cmd);
  await api.post(route("/v1/fleets/{fleet}/maintenance/drain", { fleet }), DrainChange, { note });
  const m = await api.get(route("/v1/fleets/{fleet}/maintenance", { fleet }), Maintenance);
  emit(m, () => {
    info(
      `${c.green("✓")} draining ${fleet}: new submits are refused; queued jobs are held, resumable running jobs checkpoint and pause`,
    );
    printMaintenance(m);
    if (m.blockers.length > 0) info(c.dim(`watch it: sf admin maintenance status ${fleet}`));
  });
}

export async function resume(cmd: Command, fleet: string): Promise<void> {
  const api = authedApi(cmd);
  const r = await api.post(route("/v1/fleets/{fleet}/maintenance/resume", { fleet }), DrainChange, {});
  const m = await api.get(route("/v1/fleets/{fleet}/maintenance", { fleet }), Maintenance);
  emit({ ...m, resumed: r.resumed }, () => {
    info(
      `${c.green("✓")} ${fleet} is open again; ${r.resumed.length} job(s) re-queued in their original order`,
    );
    printMaintenance(m);
  });
}
