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

/** The Secret's mount: rayjob.py, pull.py and a plan whose bootstrap.sh is `script`. */
function mount(script: string, env: Record<string, string> = {}): string {
  const dir = tempDir("sf-rayjob-mount-");
  copyFileSync(join(ROOT, "capsule/rayjob.py"), join(dir, "rayjob.py"));
  copyFileSync(join(ROOT, "capsule/pull.py"), join(dir, "pull.py"));
  const digest = sha256(script);
  blobs.set(digest, Buffer.from(script));
  const envFile = Object.entries({ FORGE_RANK: "0", ...env })
    .map(([k, v]) => `${k}='${v}'`)
    .join("\n");
  const plan = {
    endpoint,
    files: [{ path: ".starforge/capsule/bootstrap.sh", digest, mode: 0o755, from: "blob" }],
    ranks: {
      "0": { token: TOKEN, inline: [{ path: ".starforge/env.sh", content: `${envFile}\n`, mode: 0o600 }] },
    },
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
