/**
 * Tier 3: `forgelet doctor` from the built bundle against the real local control plane. Each check is
 * named with its status; a failure carries a fix and makes the exit status 1. The only fake is the
 * skewed clock: a loopback server answering /v1/health with an old Date header (this machine's clock
 * cannot be moved). Kubernetes is the API simulator the KubeRay tests use.
 */
import { execFile, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_IDS, DoctorReport } from "../../forgelet/doctor-report.js";
import { type ControlPlane, freePort } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { type K8sSim, startK8sSim } from "../support/k8s-sim.js";
import { newFleet, sharedControlPlane } from "../support/shared-control-plane.js";

const BIN = resolve(import.meta.dirname, "../../dist/forgelet.mjs");

let cp: ControlPlane;
let agent: ForgeletProc;
let scratch = "";

/** The environment without any proxy setting of the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of [
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "DOCKER_HOST",
  ]) {
    delete env[k];
  }
  return { ...env, ...extra };
}

/** Runs doctor without blocking this process: the loopback servers some tests start live in it. */
function doctor(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
    execFile(
      process.execPath,
      [BIN, "doctor", ...args],
      { encoding: "utf8", env: cleanEnv(env), timeout: 60_000 },
      (err, stdout, stderr) => ok({ status: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function report(args: string[], env: Record<string, string> = {}) {
  const r = await doctor([...args, "--json"], env);
  const rep = DoctorReport.parse(JSON.parse(r.stdout));
  const byId = Object.fromEntries(rep.checks.map((c) => [c.id, c]));
  return { status: r.status, rep, byId, stderr: r.stderr };
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "sf-doctor-"));
  cp = sharedControlPlane();
  const fleet = await newFleet(cp, "doc");
  agent = await enrollForgelet(cp, fleet, { name: `${fleet}-box`, gpus: 1 });
});

afterAll(async () => {
  await agent?.dispose();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("forgelet doctor", () => {
  it("names every check with its status against the local stack, exits 0, and leaves the running agent alone", async () => {
    const before = agent.log().length;
    const r = await report(["--state-dir", agent.stateDir, "--runtime", "process", "--simulate-gpus", "1"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.rep.ok).toBe(true);
    expect(r.rep.server).toBe(cp.url);
    expect(r.rep.proxy).toBeNull();
    expect(r.rep.checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
    expect(Object.fromEntries(r.rep.checks.map((c) => [c.id, c.status]))).toEqual({
      credential: "ok",
      dns: "ok",
      https: "ok",
      websocket: "ok",
      clock: "ok",
      docker: "skip",
      "nvidia-runtime": "skip",
      gpus: "skip",
      slurm: "skip",
      kube: "skip",
    });
    expect(r.byId.credential?.detail).toContain(agent.nodeId);
    expect(r.byId.websocket?.detail).toContain("reached the agent endpoint");
    // The upgrade carried no credential: the agent's own session was not taken over.
    expect(agent.log().slice(before)).not.toContain("disconnected");

    const text = await doctor([
      "--state-dir",
      agent.stateDir,
      "--runtime",
      "process",
      "--simulate-gpus",
      "1",
    ]);
    expect(text.status).toBe(0);
    for (const id of CHECK_IDS) expect(text.stdout).toMatch(new RegExp(`^  (ok|skip) +${id} `, "m"));
    expect(text.stdout).toContain("all checks passed");
  });

  it("fails an unreachable server with a fix, skips the clock, and exits 1", async () => {
    const closed = await freePort();
    const r = await report(["--state-dir", agent.stateDir, "--server", `http://127.0.0.1:${closed}`]);
    expect(r.status).toBe(1);
    expect(r.rep.ok).toBe(false);
    expect(r.byId.https).toMatchObject({ status: "fail" });
    expect(r.byId.https?.detail).toContain("ECONNREFUSED");
    expect(r.byId.https?.fix).toContain("check the server URL");
    expect(r.byId.websocket?.status).toBe("fail");
    expect(r.byId.clock?.status).toBe("skip");
    const text = await doctor(["--state-dir", agent.stateDir, "--server", `http://127.0.0.1:${closed}`]);
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/^ {2}fail +https .*\n +fix: check the server URL/m);
  });

  it("warns at a minute of clock skew and fails at ten, by the health answer's time, else its Date header", async () => {
    // What the stub's health answer says: its Date header, and the time in its body (or none).
    let dateSkewMs = 0;
    let bodySkewMs: number | null = null;
    const stub: Server = createServer((_req, res) => {
      res.setHeader("date", new Date(Date.now() - dateSkewMs).toUTCString());
      res.setHeader("content-type", "application/json");
      const time = bodySkewMs === null ? {} : { time: new Date(Date.now() - bodySkewMs).toISOString() };
      res.end(JSON.stringify({ ok: true, api: "v1", ...time }));
    });
    await new Promise<void>((ok) => stub.listen(0, "127.0.0.1", () => ok()));
    const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    try {
      dateSkewMs = 0;
      const inTime = await report(["--state-dir", agent.stateDir, "--server", url]);
      expect(inTime.byId.clock).toMatchObject({ status: "ok" });
      expect(inTime.byId.clock?.detail).toContain("(its Date header)");
      dateSkewMs = 60_000;
      const warn = await report(["--state-dir", agent.stateDir, "--server", url]);
      expect(warn.byId.https?.status).toBe("ok");
      expect(warn.byId.clock).toMatchObject({ status: "warn" });
      expect(warn.byId.clock?.detail).toMatch(/ahead of the control plane's/);
      // The body's time wins over the Date header (milliseconds, and the Worker's own clock).
      dateSkewMs = 0;
      bodySkewMs = 10 * 60_000;
      const fail = await report(["--state-dir", agent.stateDir, "--server", url]);
      expect(fail.byId.clock).toMatchObject({ status: "fail" });
      expect(fail.byId.clock?.detail).toMatch(/10 min ahead of the control plane's/);
      expect(fail.byId.clock?.fix).toContain("synchronise the clock");
      expect(fail.status).toBe(1);
    } finally {
      await new Promise<void>((ok) => stub.close(() => ok()));
    }
  });

  it("fails a server that accepts the connection but never answers, within --timeout", async () => {
    const silent = createNetServer(() => {
      // holds the connection, says nothing
    });
    await new Promise<void>((ok) => silent.listen(0, "127.0.0.1", () => ok()));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      const r = await report(["--state-dir", agent.stateDir, "--server", url, "--timeout", "1"]);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(r.byId.https).toMatchObject({
        status: "fail",
        detail: expect.stringContaining("no answer in 1 s"),
      });
      expect(r.byId.https?.fix).toContain("outbound firewall");
      expect(r.byId.websocket?.detail).toContain("no answer in 1 s");
    } finally {
      silent.close();
    }
  });

  it("fails an expired credential and one nobody enrolled, with the enroll command as the fix", async () => {
    const dir = mkdtempSync(join(scratch, "expired-"));
    const saved = JSON.parse(readFileSync(join(agent.stateDir, "credential.json"), "utf8"));
    writeFileSync(
      join(dir, "credential.json"),
      JSON.stringify({ ...saved, expires_at: new Date(Date.now() - 3 * 3_600_000).toISOString() }),
      { mode: 0o600 },
    );
    const expired = await report(["--state-dir", dir]);
    expect(expired.byId.credential).toMatchObject({ status: "fail" });
    expect(expired.byId.credential?.detail).toContain("expired 3 h ago");
    expect(expired.byId.credential?.fix).toContain("forgelet enroll --server URL --token TOKEN");
    expect(expired.status).toBe(1);

    const empty = mkdtempSync(join(scratch, "empty-"));
    const none = await report(["--state-dir", empty]);
    expect(none.byId.credential?.status).toBe("fail");
    expect(none.byId.https).toMatchObject({ status: "fail", fix: expect.stringContaining("--server URL") });
    // Before enrolling, doctor --server checks the way there: the missing credential is only a warning.
    const before = await report(["--state-dir", empty, "--server", cp.url]);
    expect(before.byId.credential?.status).toBe("warn");
    expect(before.status).toBe(0);
  });

  it("warns about a credential others can read", async () => {
    const dir = mkdtempSync(join(scratch, "open-"));
    copyFileSync(join(agent.stateDir, "credential.json"), join(dir, "credential.json"));
    spawnSync("chmod", ["644", join(dir, "credential.json")]);
    const r = await report(["--state-dir", dir]);
    expect(r.byId.credential).toMatchObject({
      status: "warn",
      fix: `chmod 600 ${join(dir, "credential.json")}`,
    });
  });

  it("checks GPUs with nvidia-smi unless they are simulated", async () => {
    const emptyPath = mkdtempSync(join(scratch, "path-"));
    const r = await report(["--state-dir", agent.stateDir, "--runtime", "process"], { PATH: emptyPath });
    expect(r.byId.gpus).toMatchObject({ status: "fail" });
    expect(r.byId.gpus?.detail).toContain("nvidia-smi is not installed");
    expect(r.byId.gpus?.fix).toContain("--simulate-gpus N");
    expect(r.status).toBe(1);
  });

  it("fails docker without a daemon at DOCKER_HOST, and skips the NVIDIA runtime it cannot ask", async () => {
    const sock = join(scratch, "no-docker.sock");
    const r = await report(["--state-dir", agent.stateDir, "--runtime", "docker", "--simulate-gpus", "1"], {
      DOCKER_HOST: `unix://${sock}`,
    });
    expect(r.byId.docker).toMatchObject({ status: "fail" });
    expect(r.byId.docker?.detail).toBe(`no docker daemon answers at ${sock} (ENOENT)`);
    expect(r.byId.docker?.fix).toContain("systemctl enable --now docker");
    expect(r.byId["nvidia-runtime"]).toMatchObject({ status: "skip", detail: "needs the docker daemon" });
    const tcp = await report(["--state-dir", agent.stateDir, "--runtime", "docker"], {
      DOCKER_HOST: "tcp://127.0.0.1:2375",
    });
    expect(tcp.byId.docker?.detail).toContain("is not a unix socket");
  });

  it("fails a slurmrestd that does not answer, and checks every runtime asked for", async () => {
    const closed = await freePort();
    const r = await report(
      [
        "--state-dir",
        agent.stateDir,
        "--runtime",
        "slurm",
        "--slurmrestd",
        `http://127.0.0.1:${closed}`,
        "--runtime",
        "docker",
      ],
      { DOCKER_HOST: `unix://${join(scratch, "none.sock")}` },
    );
    expect(r.byId.slurm).toMatchObject({ status: "fail" });
    expect(r.byId.slurm?.detail).toContain("ECONNREFUSED");
    expect(r.byId.slurm?.fix).toContain("slurmrestd");
    expect(r.byId.docker?.status).toBe("fail");
    expect(r.byId.gpus?.status).not.toBe("skip");
    expect(r.byId.kube?.status).toBe("skip");
    // Without --slurmrestd, the Slurm client tools are asked (and forgelet run still needs the endpoint).
    const tools = await report(["--state-dir", agent.stateDir, "--runtime", "slurm"]);
    expect(tools.byId.slurm?.detail).toMatch(/^sinfo/);
    expect(["warn", "fail"]).toContain(tools.byId.slurm?.status);
  });

  describe("kube", () => {
    let sim: K8sSim;
    beforeAll(async () => {
      sim = await startK8sSim();
      sim.addNode({ name: "gpu-a", gpus: 2 });
    });
    afterAll(async () => {
      await sim?.close();
    });

    it("is ok when the kubeconfig loads and its API server lists nodes", async () => {
      const kubeconfig = sim.writeKubeconfig(mkdtempSync(join(scratch, "kube-")));
      const r = await report([
        "--state-dir",
        agent.stateDir,
        "--runtime",
        "kuberay",
        "--kubeconfig",
        kubeconfig,
      ]);
      expect(r.byId.kube).toMatchObject({ status: "ok" });
      expect(r.byId.kube?.detail).toBe(`API ${sim.url} answers; 1 node(s) visible`);
      expect(r.status).toBe(0);
    });

    it("fails refused credentials and a missing kubeconfig, each with its fix", async () => {
      const bad = sim.writeKubeconfig(mkdtempSync(join(scratch, "kube-")), "not-a-token");
      const refused = await report([
        "--state-dir",
        agent.stateDir,
        "--runtime",
        "kuberay",
        "--kubeconfig",
        bad,
      ]);
      expect(refused.byId.kube).toMatchObject({ status: "fail" });
      expect(refused.byId.kube?.fix).toContain("refused the credentials");
      const missing = await report([
        "--state-dir",
        agent.stateDir,
        "--runtime",
        "kuberay",
        "--kubeconfig",
        join(scratch, "nope"),
      ]);
      expect(missing.byId.kube?.detail).toContain("no such file");
    });
  });

  it("refuses bad flags with exit status 2", async () => {
    const r = await doctor(["--runtime", "gpu"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown runtime "gpu"');
    const s = await doctor(["--server", "ftp://example.com"]);
    expect(s.status).toBe(2);
    expect(s.stderr).toContain("--server takes the control plane's URL");
    const p = await doctor(["--server", cp.url], { HTTPS_PROXY: "proxy.example.com:3128" });
    expect(p.status).toBe(2);
    expect(p.stderr).toContain("HTTPS_PROXY=proxy.example.com:3128 is not");
  });
});
