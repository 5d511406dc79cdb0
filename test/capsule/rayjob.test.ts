/**
 * capsule/rayjob.py, the KubeRay RayJob's entrypoint, for one rank (the part that runs without Ray): from
 * the files of the run's Secret next to it (plan.json, pull.py), it builds the rank's run directory by
 * digest, runs bootstrap.sh with the rank's environment, returns its exit code, passes a SIGTERM on to
 * it, and leaves no run directory behind. Against a loopback server speaking the blob route's format.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preStopScript } from "../../forgelet/runtimes/kuberay/render.js";
import { cleanTemps, PYTHON, ROOT, sha256, tempDir } from "./support/run-dir.js";

const TOKEN = "rank-0-token";
const blobs = new Map<string, Buffer>();
let server: Server;
let endpoint = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    const m = /^\/v1\/ingest\/blobs\/(sha256:[0-9a-f]{64})$/.exec(req.url ?? "");
    const body = m && req.headers["x-starforge-token"] === TOKEN ? blobs.get(m[1]!) : undefined;
    res.statusCode = body ? 200 : 403;
    res.end(body ?? "refused");
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/ingest`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  cleanTemps();
});

/** The Secret's mount: rayjob.py, pull.py and a plan (`world` ranks) whose bootstrap.sh is `script`. */
function mount(script: string, env: Record<string, string> = {}, world = 1): string {
  const dir = tempDir("sf-rayjob-mount-");
  copyFileSync(join(ROOT, "capsule/rayjob.py"), join(dir, "rayjob.py"));
  copyFileSync(join(ROOT, "capsule/pull.py"), join(dir, "pull.py"));
  const digest = sha256(script);
  blobs.set(digest, Buffer.from(script));
  const envFile = (rank: number) =>
    Object.entries({ FORGE_RANK: String(rank), ...env })
      .map(([k, v]) => `${k}='${v}'`)
      .join("\n");
  const ranks = Object.fromEntries(
    Array.from({ length: world }, (_, r) => [
      String(r),
      { token: TOKEN, inline: [{ path: ".starforge/env.sh", content: `${envFile(r)}\n`, mode: 0o600 }] },
    ]),
  );
  const plan = {
    endpoint,
    files: [{ path: ".starforge/capsule/bootstrap.sh", digest, mode: 0o755, from: "blob" }],
    ranks,
  };
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  return dir;
}

function launch(dir: string, nodeDir: string, env: Record<string, string> = {}) {
  const child = spawn(PYTHON, [join(dir, "rayjob.py")], {
    env: { PATH: process.env.PATH, SF_RUN_ID: "run_x", SF_NODE_DIR: nodeDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const done = new Promise<{ code: number | null; out: string }>((ok) =>
    child.on("exit", (code) => ok({ code, out })),
  );
  return { child, done, output: () => out };
}

describe("capsule/rayjob.py (one rank)", () => {
  it("pulls the rank's run directory, runs bootstrap.sh in it with the rank's environment, returns its exit code, removes it", async () => {
    const nodeDir = tempDir("sf-rayjob-node-");
    const dir = mount(
      'echo "rank $FORGE_RANK in $FORGE_RUN_ROOT says $MSG at $FORGE_ADVERTISE_ADDR"; exit 3',
      {
        MSG: "hello",
        FORGE_ADVERTISE_ADDR: "10.0.0.1",
      },
    );
    const { code, out } = await launch(dir, nodeDir).done;
    expect(code, out).toBe(3);
    expect(out).toContain("starforge pull: rank 0: 1 file(s) fetched and verified");
    expect(out).toContain(`rank 0 in ${join(nodeDir, "run_x-r0")} says hello at 10.0.0.1`);
    expect(readdirSync(nodeDir)).toEqual([]);
  });

  it("SF_KEEP_RUNS=1 keeps the run directory (debugging)", async () => {
    const nodeDir = tempDir("sf-rayjob-node-");
    const { code } = await launch(mount("exit 0"), nodeDir, { SF_KEEP_RUNS: "1" }).done;
    expect(code).toBe(0);
    expect(existsSync(join(nodeDir, "run_x-r0", ".starforge/capsule/bootstrap.sh"))).toBe(true);
  });

  it("passes a SIGTERM (a stop: KubeRay stops the Ray job) to the capsule, which ends as it chooses", async () => {
    const nodeDir = tempDir("sf-rayjob-node-");
    const marker = join(tempDir("sf-rayjob-marker-"), "stopped");
    const dir = mount(
      `trap 'echo checkpointed > ${marker}; exit 143' TERM; echo ready; while :; do sleep 0.1; done`,
    );
    const l = launch(dir, nodeDir);
    const deadline = Date.now() + 20_000;
    while (!l.output().includes("ready") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    l.child.kill("SIGTERM");
    const { code, out } = await l.done;
    expect(code, out).toBe(143);
    expect(readFileSync(marker, "utf8").trim()).toBe("checkpointed");
    expect(readdirSync(nodeDir)).toEqual([]);
  });

  it("the pod's preStop hook (as rendered) finds the rank's process group, TERMs it and returns once it exited", async () => {
    const nodeDir = tempDir("sf-rayjob-node-");
    const marker = join(tempDir("sf-rayjob-marker-"), "stopped");
    const dir = mount(
      `trap 'sleep 1; echo checkpointed > ${marker}; exit 143' TERM; echo ready; while :; do sleep 0.1; done`,
    );
    const l = launch(dir, nodeDir);
    const deadline = Date.now() + 20_000;
    // The capsule may print "ready" a moment before the launcher has written its process group's file.
    while (
      !(l.output().includes("ready") && existsSync(join(nodeDir, "run_x-r0.pgid"))) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(nodeDir).sort()).toEqual(["run_x-r0", "run_x-r0.pgid"]);
    // Kubernetes runs the hook before it stops the container; the launcher itself gets no signal here.
    const hook = spawn("/bin/sh", ["-c", preStopScript({ runId: "run_x", nodeDir, stopGraceSeconds: 5 })], {
      stdio: "ignore",
    });
    const t0 = Date.now();
    await new Promise((ok) => hook.on("exit", ok));
    expect(existsSync(marker), "the capsule had its checkpoint time before the hook returned").toBe(true);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const { code } = await l.done;
    expect(code).toBe(143);
    expect(readdirSync(nodeDir)).toEqual([]);
  });

  it("an input the control plane refuses: exit 65, nothing runs", async () => {
    const nodeDir = tempDir("sf-rayjob-node-");
    const dir = mount("echo should-not-run");
    const plan = JSON.parse(readFileSync(join(dir, "plan.json"), "utf8"));
    plan.ranks["0"].token = "wrong";
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    const { code, out } = await launch(dir, nodeDir).done;
    expect(code).toBe(65);
    expect(out).not.toContain("should-not-run");
  });

  it("without the Secret's files next to it: exit 68, saying what is missing", async () => {
    const dir = tempDir("sf-rayjob-bare-");
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(ROOT, "capsule/rayjob.py"), join(dir, "rayjob.py"));
    const { code, out } = await launch(dir, tempDir("sf-rayjob-node-")).done;
    expect(code).toBe(68);
    expect(out).toMatch(/launch files or environment are incomplete.*plan\.json.*rendered by forgelet/);
  });
});

/**
 * Several ranks run as Ray actors. Ray cannot be installed here, so test/capsule/support/fake-ray stands
 * in for the part of its API the launcher uses (actors placed by custom resource, wait, get, the node's
 * address), running each actor on threads of the launcher's process, as a threaded actor would on its node.
 */
describe("capsule/rayjob.py (several ranks, as Ray actors; Ray itself stood in for)", () => {
  const fakeRay = join(ROOT, "test/capsule/support/fake-ray");
  const rayEnv = (log: string) => ({
    PYTHONPATH: fakeRay,
    FAKE_RAY_LOG: log,
    FAKE_RAY_NODE_IP_starforge_rank_0: "10.0.0.10",
    FAKE_RAY_NODE_IP_starforge_rank_1: "10.0.0.11",
    SF_RANK_GPUS: JSON.stringify({ "0": 2, "1": 2 }),
  });

  it("places rank R's actor by the custom resource starforge_rank_R with its GPUs; each rank's address is its node's; the first failure stops the others and is the exit code", async () => {
    const nodeDir = tempDir("sf-rayjob-node-");
    const log = join(tempDir("sf-rayjob-log-"), "placements");
    const script = [
      'echo "rank $FORGE_RANK at $FORGE_ADVERTISE_ADDR"',
      'if [ "$FORGE_RANK" = 1 ]; then sleep 0.5; exit 5; fi',
      "trap 'echo \"rank $FORGE_RANK stopped\"; exit 143' TERM",
      "while :; do sleep 0.1; done",
    ].join("\n");
    const { code, out } = await launch(mount(script, {}, 2), nodeDir, rayEnv(log)).done;
    expect(code, out).toBe(5);
    expect(out).toContain("rank 0 at 10.0.0.10");
    expect(out).toContain("rank 1 at 10.0.0.11");
    expect(out).toContain("rank 1 ended with exit code 5: stopping the other ranks");
    expect(out).toContain("rank 0 stopped");
    const placed = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(placed).toEqual([
      { resources: { starforge_rank_0: 1 }, num_gpus: 2 },
      { resources: { starforge_rank_1: 1 }, num_gpus: 2 },
    ]);
    expect(readdirSync(nodeDir)).toEqual([]);
  });

  it("a SIGTERM (the Ray job stopped) reaches every rank's capsule; the run ends with the stop's code", async () => {
    const nodeDir = tempDir("sf-rayjob-node-");
    const script = [
      "trap 'echo \"rank $FORGE_RANK stopped\"; exit 143' TERM",
      'echo "rank $FORGE_RANK ready"',
      "while :; do sleep 0.1; done",
    ].join("\n");
    const l = launch(mount(script, {}, 2), nodeDir, rayEnv(join(tempDir("sf-rayjob-log-"), "p")));
    const deadline = Date.now() + 20_000;
    while (
      !(l.output().includes("rank 0 ready") && l.output().includes("rank 1 ready")) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 50));
    l.child.kill("SIGTERM");
    const { code, out } = await l.done;
    expect(code, out).toBe(143);
    expect(out).toContain("rank 0 stopped");
    expect(out).toContain("rank 1 stopped");
    expect(readdirSync(nodeDir)).toEqual([]);
  });
});
