/**
 * forgelet against a stand-in control plane that speaks the real agent protocol (frames from
 * contract/agent-frames.schema.ts over a real WebSocket on loopback) and serves blobs over HTTP. It lets
 * the test send what a real server never would: fuzzed frames and a blob whose bytes do not match.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { networkInterfaces, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import type { AgentFrame, ServerFrame } from "../../contract/agent-frames.schema.js";
import type { LaunchRequest } from "../../contract/launch-request.schema.js";
import { groupAlive, waitGroupGone } from "../support/control-plane.js";

const ROOT = resolve(import.meta.dirname, "../..");
const sha = (s: string) => `sha256:${createHash("sha256").update(s).digest("hex")}`;
const GOOD = "#!/bin/bash\nexit 0\n";
const FINISHES = "#!/bin/bash\nsleep 2\nexit 0\n";
const LINGERS = "#!/bin/bash\nsleep 120\n";
const blobs = new Map<string, string>([GOOD, FINISHES, LINGERS].map((b) => [sha(b), b]));
const TAMPERED_DIGEST = sha("what the manifest promised");
blobs.set(TAMPERED_DIGEST, "what the server actually sent");

let http: Server;
let wss: WebSocketServer;
let sock: WebSocket | null = null;
const got: AgentFrame[] = [];
let agent: ChildProcess;
let stateDir = "";
let url = "";

async function frame<T extends AgentFrame["type"]>(
  type: T,
  pred: (f: Extract<AgentFrame, { type: T }>) => boolean = () => true,
) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const hit = got.find(
      (f): f is Extract<AgentFrame, { type: T }> =>
        f.type === type && pred(f as Extract<AgentFrame, { type: T }>),
    );
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no ${type}; got ${JSON.stringify(got.map((f) => f.type))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function send(f: ServerFrame | string) {
  sock!.send(typeof f === "string" ? f : JSON.stringify(f));
}

function launch(id: string, runId: string, capsuleDigest: string): ServerFrame {
  const request: LaunchRequest = {
    api_version: "starforge.dev/launch/v1",
    job_id: "job_01jfake00000000000000000000",
    run_id: runId,
    attempt: 1,
    epoch: 3,
    fleet_id: "flt_fake",
    user_id: "usr_fake",
    spec: {
      api_version: "starforge.dev/v1",
      metadata: { name: "fake", labels: {} },
      recipe: { name: "custom/custom", version: "1.0.0", digest: sha("r") },
      framework: { kind: "custom", version: "1", runtime_id: "bash", image: null },
      source: { workspace: null, experiment_dir: "." },
      model: {},
      data: {},
      resources: {
        pools: [{ name: "default", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 1 }],
        roles: {},
      },
      hyperparams: {},
      secrets: [],
      lifecycle: { max_retries: 0, retry_on_user_failure: false },
      provenance: { git_commit: null, git_dirty: false, config_sha: sha("c") },
    },
    entrypoint: { kind: "script", path: "train.sh" },
    image: null,
    placement: [{ rank: 0, pool: "default", node_id: "nod_fake", gpu_indices: [0] }],
    world_size: 1,
    workspace: { manifest: null },
    capsule: { files: { "bootstrap.sh": capsuleDigest } },
    ingest: { endpoint: `${url}/v1/ingest`, token: "t" },
    env: {},
    secrets: {},
    resume_from: null,
  };
  return { v: 1, type: "launch", id, rank: 0, request };
}

/** This machine's default-route interface (the kernel's routing table) and its IPv4 address. */
function defaultRouteAddress(): string {
  const routes = readFileSync("/proc/net/route", "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/));
  const iface = routes.find((r) => r[1] === "00000000" && r[7] === "00000000")?.[0];
  const v4 = iface ? networkInterfaces()[iface]?.find((i) => i.family === "IPv4")?.address : undefined;
  return v4 ?? "127.0.0.1";
}

beforeAll(async () => {
  http = createServer((req, res) => {
    const m = /^\/v1\/blobs\/(sha256:[0-9a-f]{64})$/.exec(req.url ?? "");
    const body = m ? blobs.get(m[1]!) : undefined;
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { "content-length": Buffer.byteLength(body) }).end(body);
  });
  wss = new WebSocketServer({ server: http, path: "/v1/agents/connect" });
  wss.on("connection", (ws) => {
    sock = ws;
    ws.on("message", (data) => {
      const text = data.toString();
      if (text === "ping") return ws.send("pong");
      got.push(JSON.parse(text) as AgentFrame);
    });
  });
  await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
  const addr = http.address();
  url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  stateDir = mkdtempSync(join(tmpdir(), "sf-fake-agent-"));
  writeFileSync(
    join(stateDir, "credential.json"),
    JSON.stringify({
      server: url,
      node_id: "nod_fake",
      fleet_id: "flt_fake",
      fleet: "fake",
      credential: "x",
    }),
    { mode: 0o600 },
  );
  agent = spawn(
    process.execPath,
    [
      join(ROOT, "dist/forgelet.mjs"),
      "run",
      "--runtime",
      "process",
      "--simulate-gpus",
      "2",
      "--gpu-series",
      "h200",
      "--state-dir",
      stateDir,
    ],
    { detached: true, stdio: "ignore" },
  );
  await frame("hello");
  send({
    v: 1,
    type: "welcome",
    id: "w1",
    node_id: "nod_fake",
    fleet_id: "flt_fake",
    expected: [],
    stop: [],
    heartbeat_seconds: 10,
  });
});

afterAll(async () => {
  if (agent?.pid && groupAlive(agent.pid)) {
    process.kill(-agent.pid, "SIGTERM");
    await waitGroupGone(agent.pid, 10_000);
  }
  wss?.close();
  http?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("forgelet protocol handling", () => {
  it("says hello with its declared inventory and an empty journal", async () => {
    const hello = await frame("hello");
    expect(hello.inventory).toMatchObject({ runtime: "process", gpu_series: "h200" });
    expect(hello.inventory.gpus.map((g) => [g.index, g.simulated])).toEqual([
      [0, true],
      [1, true],
    ]);
    expect(hello.journal).toEqual([]);
    // No --advertise-addr: the IPv4 address of the interface that carries the default route.
    expect(hello.inventory.advertise_addr).toBe(defaultRouteAddress());
  });

  it("refuses an --advertise-addr that is neither an IP nor a host name, before dialling", () => {
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, "dist/forgelet.mjs"),
        "run",
        "--runtime",
        "process",
        "--simulate-gpus",
        "1",
        "--gpu-series",
        "h200",
        "--state-dir",
        stateDir,
        "--advertise-addr",
        "http://10.0.0.1",
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      '--advertise-addr takes an IP address or a host name its peers resolve, got "http://10.0.0.1"',
    );
  });

  it("--help lists the Slurm and KubeRay flags; misused ones are refused, by name, before anything is dialled", () => {
    const forgelet = (...args: string[]) =>
      spawnSync(process.execPath, [join(ROOT, "dist/forgelet.mjs"), ...args], {
        encoding: "utf8",
        timeout: 30_000,
      });
    const help = forgelet("--help").stdout;
    for (const flag of [
      "--runtime process|docker|slurm|kuberay",
      "--slurmrestd URL",
      "--shared-dir DIR",
      "--node-dir DIR",
      "--slurm-user NAME",
      "--slurm-token-file F",
      "--slurm-token-lifespan SECONDS",
      "--slurm-api-version V",
      "--partition NAME",
      "--account NAME",
      "--qos NAME",
      "--slurm-path PATH",
      "--cluster-refresh S",
      "--default-image IMAGE",
      "--kubeconfig FILE",
      "--kube-context NAME",
      "--namespace NS",
      "--gpu-resource NAME",
      "--gpu-series-label KEY",
      "--node-selector SEL",
      "--service-account NAME",
      "--image-pull-timeout S",
      "FORGE_K8S_GPU_PASSTHROUGH",
      "deploy/kuberay/rbac.yaml",
    ])
      expect(help, flag).toContain(flag);
    const tokenFile = join(stateDir, "slurm.jwt");
    writeFileSync(tokenFile, "SLURM_JWT=x\n");
    // A kubeconfig whose API server does not answer (nothing listens on port 9).
    const kubeconfig = join(stateDir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:9', insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    );
    const slurm = ["run", "--runtime", "slurm", "--state-dir", stateDir];
    const cases: Array<[string[], string]> = [
      [
        ["run", "--runtime", "process", "--state-dir", stateDir, "--shared-dir", "/x"],
        "--shared-dir is for --runtime slurm only",
      ],
      [
        ["run", "--runtime", "process", "--state-dir", stateDir, "--default-image", "a:b"],
        "--default-image is for --runtime docker or kuberay only",
      ],
      [
        ["run", "--runtime", "docker", "--state-dir", stateDir, "--namespace", "x"],
        "--namespace is for --runtime kuberay only",
      ],
      [
        ["run", "--runtime", "process", "--state-dir", stateDir, "--node-dir", "/x"],
        "--node-dir is for --runtime slurm or kuberay only",
      ],
      [
        ["run", "--runtime", "kuberay", "--state-dir", stateDir, "--simulate-gpus", "2"],
        "--simulate-gpus is not for --runtime kuberay",
      ],
      [
        ["run", "--runtime", "kuberay", "--state-dir", stateDir, "--namespace", "Bad_NS"],
        "--namespace Bad_NS is not a Kubernetes namespace name",
      ],
      [
        ["run", "--runtime", "kuberay", "--state-dir", stateDir, "--kubeconfig", "/nonexistent/kubeconfig"],
        "--kubeconfig /nonexistent/kubeconfig: no such file",
      ],
      [
        ["run", "--runtime", "kuberay", "--state-dir", stateDir, "--image-pull-timeout", "1"],
        "--image-pull-timeout takes seconds, at least 10",
      ],
      [
        ["run", "--runtime", "kuberay", "--state-dir", stateDir, "--kubeconfig", kubeconfig],
        "the KubeRay runtime cannot work with http://127.0.0.1:9: listing nodes: the API server cannot be reached",
      ],
      [[...slurm, "--simulate-gpus", "2"], "--simulate-gpus is not for --runtime slurm"],
      [slurm, "--runtime slurm needs --slurmrestd"],
      [
        [...slurm, "--slurmrestd", "ftp://h:1"],
        '--slurmrestd takes http://HOST:PORT or unix:/path/to/slurmrestd.socket, got "ftp://h:1"',
      ],
      [
        [...slurm, "--slurmrestd", "http://127.0.0.1:9", "--slurm-api-version", "v0.0.40"],
        "--slurm-api-version v0.0.40 is not supported; supported: v0.0.38",
      ],
      [
        [...slurm, "--slurmrestd", "http://127.0.0.1:9", "--shared-dir", "/a", "--node-dir", "/b"],
        "--shared-dir and --node-dir exclude each other",
      ],
      [
        [
          ...slurm,
          "--slurmrestd",
          "unix:/nonexistent/slurmrestd.socket",
          "--slurm-token-file",
          tokenFile,
          "--work-dir",
          join(stateDir, "w"),
        ],
        "the Slurm runtime cannot work: cannot reach slurmrestd at unix:/nonexistent/slurmrestd.socket",
      ],
    ];
    for (const [args, message] of cases) {
      const r = forgelet(...args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(message);
    }
  });

  it("refuses fuzzed frames with coded errors and stays up", async () => {
    const cases: Array<[string, string, string | null]> = [
      ["{nope", "MALFORMED_FRAME", null],
      [JSON.stringify({ v: 1, type: "teleport", id: "f1" }), "UNKNOWN_FRAME", "f1"],
      [JSON.stringify({ v: 7, type: "stop", id: "f2" }), "UNSUPPORTED_VERSION", "f2"],
      [JSON.stringify({ v: 1, type: "launch", id: "f3", rank: 0 }), "MALFORMED_FRAME", "f3"],
      [JSON.stringify("just a string"), "UNSUPPORTED_VERSION", null],
    ];
    for (const [text, code, ref] of cases) {
      const before = got.length;
      send(text);
      const err = await frame("error", (f) => got.indexOf(f) >= before);
      expect([err.code, err.ref], text).toEqual([code, ref]);
    }
    expect(groupAlive(agent.pid!)).toBe(true);
  });

  it("fails a launch whose blob does not match its digest, and runs nothing", async () => {
    send(launch("L1", "run_01jfaketampered00000000000", TAMPERED_DIGEST));
    expect((await frame("ack", (f) => f.ref === "L1")).ref).toBe("L1");
    await frame("report", (f) => f.run_id === "run_01jfaketampered00000000000" && f.event === "accepted");
    const failed = await frame(
      "report",
      (f) => f.run_id === "run_01jfaketampered00000000000" && f.event === "launch_failed",
    );
    expect(failed.reason).toMatch(/digest/);
    expect(failed.reason).toMatch(/nothing was run/);
    expect(failed.infra).toBe(true);
    const runs = join(stateDir, "runs");
    const started = existsSync(runs)
      ? readdirSync(runs).filter((d) => existsSync(join(runs, d, ".starforge", "labels.json")))
      : [];
    expect(started).toEqual([]);
  });

  it("treats a repeated launch as the same launch: one workload, the state re-reported", async () => {
    const run = "run_01jfakeidempotent0000000000";
    send(launch("L2", run, sha(GOOD)));
    await frame("report", (f) => f.run_id === run && f.event === "launched");
    const before = got.filter((f) => f.type === "report" && f.run_id === run).length;
    send(launch("L2", run, sha(GOOD)));
    await new Promise((r) => setTimeout(r, 500));
    const reports = got.filter(
      (f): f is Extract<AgentFrame, { type: "report" }> => f.type === "report" && f.run_id === run,
    );
    expect(reports.slice(before).every((r) => r.event !== "accepted")).toBe(true);
    expect(reports.filter((r) => r.event === "launched").length).toBeGreaterThanOrEqual(1);
    const exited = await frame("report", (f) => f.run_id === run && f.event === "exited");
    expect(exited.exit_code).toBe(0);
  });
  it("a stop with finish_seconds lets a finishing workload exit by itself, and stops one that lingers", async () => {
    const stop = (id: string, run: string, finish: number): ServerFrame => ({
      v: 1,
      type: "stop",
      id,
      run_id: run,
      epoch: 3,
      rank: 0,
      grace_seconds: 1,
      finish_seconds: finish,
      reason: "this run is over on the control plane",
    });
    const finishes = "run_01jfakefinishes00000000000";
    send(launch("L3", finishes, sha(FINISHES)));
    await frame("report", (f) => f.run_id === finishes && f.event === "launched");
    send(stop("S3", finishes, 30));
    send(stop("S3b", finishes, 30)); // repeated while it finishes: still one window
    const ended = await frame(
      "report",
      (f) => f.run_id === finishes && ["exited", "stopped"].includes(f.event),
    );
    expect([ended.event, ended.exit_code]).toEqual(["exited", 0]);

    const lingers = "run_01jfakelingers000000000000";
    send(launch("L4", lingers, sha(LINGERS)));
    await frame("report", (f) => f.run_id === lingers && f.event === "launched");
    const sent = Date.now();
    send(stop("S4", lingers, 1));
    await new Promise((r) => setTimeout(r, 500));
    expect(got.some((f) => f.type === "report" && f.run_id === lingers && f.event === "stopped")).toBe(false);
    const gone = await frame(
      "report",
      (f) => f.run_id === lingers && ["exited", "stopped"].includes(f.event),
    );
    expect(gone.event).toBe("stopped");
    expect(Date.now() - sent).toBeLessThan(8_000);
  });
});
