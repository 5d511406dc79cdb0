/**
 * `forgelet doctor`: checks, without changing anything, what this host needs to run forgelet, and prints
 * each finding with a one-line fix. Exit status 0 when nothing failed (warnings allowed), 1 otherwise.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Check, DoctorReport, renderReport } from "./doctor-report.js";
import {
  checkDocker,
  checkGpus,
  checkKube,
  checkSlurm,
  RUNTIMES,
  type RuntimeKind,
} from "./doctor-runtimes.js";
import {
  checkClock,
  checkCredential,
  checkDns,
  checkHttps,
  checkWebSocket,
  type ServerTarget,
} from "./doctor-server.js";
import { checkProxySettings, proxyFor, redactProxy } from "./proxy-env.js";
import { forgeletSettings, readCredential } from "./settings.js";

export const DOCTOR_HELP = `  forgelet doctor [--server URL] [--runtime R]... [--json] [options]
      Check this host, changing nothing: the credential (present, not expired), DNS and HTTPS to the
      control plane (GET /v1/health), a WebSocket upgrade to the agent endpoint, the clock against the
      server's (warn past 30 s, fail past 5 min), and for each --runtime asked: the docker daemon and the
      NVIDIA container runtime (docker), the GPUs (process, docker), slurmrestd or sinfo (slurm), the
      kubeconfig and its API server (kuberay). Every check is ok, warn, fail or skip, with a fix.
      Traffic takes the agent's own path: HTTPS_PROXY / HTTP_PROXY / NO_PROXY apply. Exit status 0 when
      no check fails.
        --server URL           the control plane (default: the one saved at enrollment)
        --state-dir DIR        where the credential is (default: $FORGELET_HOME or ~/.forgelet)
        --runtime R            process, docker, slurm or kuberay; repeatable (other runtimes: skip)
        --simulate-gpus N      as forgelet run: declared GPUs, nvidia-smi not consulted
        --slurmrestd URL       slurm: check this slurmrestd (else sinfo)
        --kubeconfig FILE      kuberay: this kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)
        --kube-context NAME    kuberay: this context
        --timeout SECONDS      for each network check (default 10)
        --json                 the report as JSON: {server, proxy, ok, checks: [{id, status, detail, fix}]}
`;

/** Runs every check; the report's `ok` is false when any failed. */
export async function runDoctor(o: {
  server: string | undefined;
  stateDir: string;
  runtimes: ReadonlySet<RuntimeKind>;
  simulateGpus: boolean;
  slurmrestd?: string;
  kubeconfig?: string;
  kubeContext?: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}): Promise<DoctorReport> {
  const settings = forgeletSettings(o.env);
  const credential = checkCredential(o.stateDir, o.server !== undefined);
  let server = o.server;
  if (!server) {
    try {
      server = readCredential(o.stateDir)?.server;
    } catch {
      // the credential check above says what is wrong with the file
    }
  }
  const host = {
    runtimes: o.runtimes,
    simulateGpus: o.simulateGpus,
    dockerHost: settings.dockerHost,
    gpuPassthrough: settings.gpuPassthrough,
    slurmrestd: o.slurmrestd,
    kubeconfig: o.kubeconfig,
    kubeContext: o.kubeContext,
    timeoutMs: o.timeoutMs,
  };
  const target: ServerTarget | null = server
    ? { server, proxy: settings.proxy, timeoutMs: o.timeoutMs }
    : null;
  // The two sides do not depend on each other: run them at once, report in the fixed order.
  const [serverChecks, [docker, nvidia], gpus, slurm, kube] = await Promise.all([
    target ? serverSide(target) : noServer(),
    checkDocker(host),
    checkGpus(host),
    checkSlurm(host),
    checkKube(host),
  ]);
  const checks: Check[] = [credential, ...serverChecks, docker, nvidia, gpus, slurm, kube];
  const proxy = server ? proxyFor(server, settings.proxy) : null;
  return DoctorReport.parse({
    server: server ?? null,
    proxy: proxy ? redactProxy(proxy) : null,
    ok: checks.every((c) => c.status !== "fail"),
    checks,
  });
}

async function serverSide(t: ServerTarget): Promise<Check[]> {
  const dns = await checkDns(t);
  const https = await checkHttps(t);
  const ws = await checkWebSocket(t);
  return [dns, https.check, ws, checkClock(https.date)];
}

async function noServer(): Promise<Check[]> {
  const skip = (id: Check["id"]): Check => ({
    id,
    status: "skip",
    detail: "needs a control plane to check",
    fix: null,
  });
  return [
    skip("dns"),
    {
      id: "https",
      status: "fail",
      detail: "no server: none given and no credential names one",
      fix: "pass --server URL (the control plane's address), or enroll first",
    },
    skip("websocket"),
    skip("clock"),
  ];
}

/** The command: parses flags (a bad one exits 2 through the caller), prints, sets the exit status. */
export async function doctorCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: "string" },
      "state-dir": { type: "string" },
      runtime: { type: "string", multiple: true },
      "simulate-gpus": { type: "string" },
      slurmrestd: { type: "string" },
      kubeconfig: { type: "string" },
      "kube-context": { type: "string" },
      timeout: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const runtimes = new Set<RuntimeKind>();
  for (const r of values.runtime ?? []) {
    if (!(RUNTIMES as readonly string[]).includes(r)) {
      throw new Error(`unknown runtime "${r}"; choose --runtime process, docker, slurm or kuberay`);
    }
    runtimes.add(r as RuntimeKind);
  }
  let server: string | undefined;
  if (values.server !== undefined) {
    let u: URL | null = null;
    try {
      u = new URL(values.server);
    } catch {
      // named below
    }
    if (!u || (u.protocol !== "https:" && u.protocol !== "http:")) {
      throw new Error(`--server takes the control plane's URL (https://HOST), not "${values.server}"`);
    }
    server = values.server.replace(/\/+$/, "");
  }
  const timeout = Number(values.timeout ?? "10");
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 300) {
    throw new Error("--timeout takes seconds, more than 0 and at most 300");
  }
  const simulate = values["simulate-gpus"];
  if (
    simulate !== undefined &&
    !(Number.isInteger(Number(simulate)) && Number(simulate) >= 1 && Number(simulate) <= 64)
  ) {
    throw new Error("--simulate-gpus takes a whole number from 1 to 64");
  }
  const badProxy = checkProxySettings(forgeletSettings().proxy);
  if (badProxy) throw new Error(badProxy);
  const report = await runDoctor({
    server,
    stateDir: values["state-dir"] ? resolve(values["state-dir"]) : forgeletSettings().home,
    runtimes,
    simulateGpus: simulate !== undefined,
    slurmrestd: values.slurmrestd,
    kubeconfig: values.kubeconfig,
    kubeContext: values["kube-context"],
    timeoutMs: timeout * 1000,
  });
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  process.exitCode = report.ok ? 0 : 1;
}
