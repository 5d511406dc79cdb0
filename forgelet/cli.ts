/**
 * forgelet: the on-prem agent. `enroll` trades a one-shot enrollment token for a node credential;
 * `run` dials out to the control plane and runs what it is given with the runtime you choose.
 */

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { writeFileAtomic } from "../contract/node-files.js";
import { Agent } from "./agent.js";
import { detectInventory } from "./inventory.js";
import { checkAdvertiseAddr, detectAdvertiseAddr } from "./network.js";
import type { Runtime } from "./runtime.js";
import { ProcessRuntime } from "./runtimes/process.js";
import { forgeletSettings } from "./settings.js";

const VERSION = "0.1.0";

const HELP = `forgelet — the StarForge agent that runs training jobs on this machine's GPUs

It only ever dials OUT to the control plane (a WebSocket), so it works behind firewalls and NAT.

Usage:
  forgelet enroll --server URL --token TOKEN [--state-dir DIR]
      Trade a one-shot enrollment token (from an admin: POST /v1/fleets/<fleet>/enrollment-tokens, or
      \`sf admin fleet enroll-token <fleet>\`) for this node's credential, stored 0600 in the state dir.

  forgelet run --runtime process|docker [options]
      Connect and run jobs. The runtime is explicit: there is no silent fallback from docker to process.
        --simulate-gpus N      declare N GPUs on a machine without any (accounting and labels stay real)
        --gpu-series SERIES    GPU series to offer, e.g. h200 (detected from nvidia-smi when omitted)
        --name NAME            node name (default: the hostname)
        --label KEY=VALUE      node label, repeatable
        --advertise-addr ADDR  the address other nodes reach this one at, for multi-node jobs (rank 0
                               listens there); default: the IPv4 address of the default-route interface
        --work-dir DIR         where run directories go (default: <state-dir>/runs)
        --keep-runs            keep run directories after a run ends (debugging)
        --state-dir DIR        credential, journal and blob cache (default: $FORGELET_HOME or ~/.forgelet)
        --server URL           use this control plane URL instead of the one saved at enrollment

Environment:
  FORGELET_HOME                 default state directory
  FORGE_LOCAL_GPU_PASSTHROUGH   docker runtime: 0 = launch containers without GPU devices (machines without GPUs)

Examples:
  forgelet enroll --server https://sf.example.com --token sfe_…
  forgelet run --runtime docker
  forgelet run --runtime process --simulate-gpus 4 --gpu-series h200
  forgelet run --runtime docker --advertise-addr 10.0.4.17   # multi-node: the fabric address peers use
`;

const Credential = z.object({
  server: z.string().url(),
  node_id: z.string(),
  fleet_id: z.string(),
  fleet: z.string(),
  credential: z.string(),
});

function fail(msg: string): never {
  process.stderr.write(`forgelet: ${msg}\n`);
  process.exit(2);
}

function stateDirOf(v: string | undefined): string {
  return v ? resolve(v) : forgeletSettings().home;
}

async function enroll(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { server: { type: "string" }, token: { type: "string" }, "state-dir": { type: "string" } },
  });
  if (!values.server || !values.token)
    fail("enroll needs --server URL and --token TOKEN (see forgelet --help)");
  const server = values.server.replace(/\/+$/, "");
  const stateDir = stateDirOf(values["state-dir"]);
  let res: Response;
  try {
    res = await fetch(`${server}/v1/agents/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: values.token }),
    });
  } catch (err) {
    fail(`cannot reach ${server}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const e = (body.error ?? {}) as { code?: string; message?: string };
    fail(`enrollment refused: ${e.code ?? res.status}: ${e.message ?? "no details"}`);
  }
  const cred = Credential.parse({ server, ...body });
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileAtomic(join(stateDir, "credential.json"), JSON.stringify(cred, null, 2), 0o600);
  process.stdout.write(
    `enrolled node ${cred.node_id} in fleet ${cred.fleet}; credential saved to ${join(stateDir, "credential.json")}\nnext: forgelet run --runtime process|docker\n`,
  );
}

async function runtimeFor(kind: string, runsDir: string, keepRuns: boolean): Promise<Runtime> {
  if (kind === "process") return new ProcessRuntime(runsDir, { keepRuns });
  if (kind === "docker") {
    const { DockerRuntime } = await import("./runtimes/docker.js");
    return new DockerRuntime(runsDir, { keepRuns });
  }
  fail(`unknown runtime "${kind}"; choose --runtime process or --runtime docker`);
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runtime: { type: "string" },
      "simulate-gpus": { type: "string" },
      "gpu-series": { type: "string" },
      name: { type: "string" },
      label: { type: "string", multiple: true },
      "work-dir": { type: "string" },
      "keep-runs": { type: "boolean", default: false },
      "state-dir": { type: "string" },
      server: { type: "string" },
      "advertise-addr": { type: "string" },
    },
  });
  if (!values.runtime) fail("choose a runtime explicitly: --runtime process or --runtime docker");
  const stateDir = stateDirOf(values["state-dir"]);
  const credFile = join(stateDir, "credential.json");
  if (!existsSync(credFile))
    fail(`no credential in ${stateDir}; run \`forgelet enroll --server URL --token TOKEN\` first`);
  const saved = Credential.parse(JSON.parse(readFileSync(credFile, "utf8")));
  const cred = values.server ? { ...saved, server: values.server.replace(/\/+$/, "") } : saved;
  const runsDir = resolve(values["work-dir"] ?? join(stateDir, "runs"));
  const labels = Object.fromEntries(
    (values.label ?? []).map((l) => {
      const i = l.indexOf("=");
      if (i < 1) fail(`--label takes KEY=VALUE, got "${l}"`);
      return [l.slice(0, i), l.slice(i + 1)];
    }),
  );
  const simulate = values["simulate-gpus"] === undefined ? undefined : Number(values["simulate-gpus"]);
  if (simulate !== undefined && (!Number.isInteger(simulate) || simulate < 1 || simulate > 64)) {
    fail("--simulate-gpus takes a whole number from 1 to 64");
  }
  const advertise = values["advertise-addr"] ?? detectAdvertiseAddr();
  const badAddr = checkAdvertiseAddr(advertise);
  if (badAddr) fail(badAddr);
  const runtime = await runtimeFor(values.runtime, runsDir, values["keep-runs"]);
  const log = (msg: string) => process.stderr.write(`${new Date().toISOString()} forgelet: ${msg}\n`);
  let inventory: Awaited<ReturnType<typeof detectInventory>>;
  try {
    inventory = await detectInventory({
      runtime: runtime.kind,
      simulateGpus: simulate,
      gpuSeries: values["gpu-series"],
      name: values.name,
      labels,
      agentVersion: VERSION,
      advertiseAddr: advertise,
    });
    await runtime.preflight();
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const agent = new Agent({
    server: cred.server,
    credential: cred.credential,
    stateDir,
    runsDir,
    runtime,
    inventory,
    log,
    backoffMaxMs: forgeletSettings().backoffMaxMs,
    // Containers see the run directory at /sf; the process runtime uses the host path.
    runRootInside: runtime.kind === "docker" ? "/sf" : undefined,
  });
  log(
    `node ${cred.node_id} (${inventory.hostname}) in fleet ${cred.fleet}: ${inventory.gpus.length}× ${inventory.gpu_series}, runtime ${runtime.kind}, peers reach it at ${advertise}`,
  );
  await agent.start();
  // SIGUSR1 drops the connection as a network failure would (operations and resilience tests).
  process.on("SIGUSR1", () => agent.dropConnection());
  const shutdown = () => {
    log("stopping (workloads keep running and are reattached on the next start)");
    void agent.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (!cmd || cmd === "--help" || cmd === "-h" || cmd === "help") {
    process.stdout.write(HELP);
    return;
  }
  if (cmd === "--version") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(HELP);
    return;
  }
  if (cmd === "enroll") return enroll(rest);
  if (cmd === "run") return run(rest);
  fail(`unknown command "${cmd}"; see forgelet --help`);
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
