/**
 * capsule/pull.py: a node that cannot see its agent's disk builds the run directory from the control
 * plane with the run's token. Against a loopback server speaking the ingest routes' wire format
 * (GET /blobs/<digest>, GET /checkpoint?run=&path=, X-StarForge-Token; the routes themselves are tested
 * in test/worker/pull.test.ts): every file fetched and verified, a flaky server retried, a wrong byte or
 * a refusal ending with exit 65 before anything runs, an unsafe path with 68.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanAll, PYTHON, ROOT, sha256, tempDir } from "./support/run-dir.js";

const TOKEN = "run-token-abc";
const blobs = new Map<string, Buffer>();
const checkpoints = new Map<string, Buffer>();
let failNext = 0;
let corrupt: string | null = null;
const asked: string[] = [];
let server: Server;
let endpoint = "";

function blob(content: string): string {
  const d = sha256(content);
  blobs.set(d, Buffer.from(content));
  return d;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.headers["x-starforge-token"] !== TOKEN) {
      res.statusCode = 401;
      return res.end('{"error":{"code":"UNAUTHENTICATED"}}');
    }
    if (failNext > 0) {
      failNext -= 1;
      res.statusCode = 503;
      return res.end("busy");
    }
    const url = new URL(req.url ?? "/", "http://x");
    const m = /^\/v1\/ingest\/blobs\/(sha256:[0-9a-f]{64})$/.exec(url.pathname);
    let body: Buffer | undefined;
    if (m) body = blobs.get(m[1]!);
    if (url.pathname === "/v1/ingest/checkpoint") {
      body = checkpoints.get(`${url.searchParams.get("run")}|${url.searchParams.get("path")}`);
    }
    if (!body) {
      res.statusCode = 403;
      return res.end('{"error":{"code":"FORBIDDEN","message":"not referenced"}}');
    }
    if (m && corrupt === m[1]) body = Buffer.concat([body, Buffer.from("!")]);
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/ingest`;
});

afterAll(() => {
  server.close();
  cleanAll();
});

function plan(files: unknown[], inline: unknown[] = [], token = TOKEN) {
  const file = join(tempDir("sf-plan-"), "pull.json");
  writeFileSync(file, JSON.stringify({ endpoint, files, ranks: { "1": { token, inline } } }));
  return file;
}

/** Runs pull.py as a child (asynchronously: the stand-in server answers from this same process). */
function runPull(root: string, planFile: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(PYTHON, [join(ROOT, "capsule/pull.py"), root, "1", planFile]);
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("close", (status) => ok({ status, stderr }));
  });
}

describe("pull.py", () => {
  it("fetches every file by digest, verifies it, keeps its mode, and writes the rank's own files", async () => {
    const train = blob("#!/bin/bash\necho pulled\n");
    const runner = blob("pretend zipapp");
    const ckpt = Buffer.from('{"step": 120}');
    checkpoints.set("run_prev|checkpoints/step-000120.json", ckpt);
    const root = join(tempDir("sf-pull-"), "run_x-r1");
    const p = plan(
      [
        { path: ".starforge/capsule/runner.pyz", digest: runner, mode: 0o644, from: "blob" },
        { path: "workspace/exp/train.sh", digest: train, mode: 0o755, from: "blob" },
        { path: "workspace/exp/copy.sh", digest: train, mode: 0o644, from: "blob" },
        {
          path: "resume/step-000120.json",
          digest: sha256(ckpt),
          mode: 0o644,
          from: "checkpoint",
          run: "run_prev",
          artifact: "checkpoints/step-000120.json",
        },
      ],
      [{ path: ".starforge/env.sh", content: "FORGE_RANK='1'\n", mode: 0o600 }],
    );
    asked.length = 0;
    const r = await runPull(root, p);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(root, "workspace/exp/train.sh"), "utf8")).toBe("#!/bin/bash\necho pulled\n");
    expect(statSync(join(root, "workspace/exp/train.sh")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(root, "workspace/exp/copy.sh"), "utf8")).toBe("#!/bin/bash\necho pulled\n");
    expect(readFileSync(join(root, "resume/step-000120.json"), "utf8")).toBe('{"step": 120}');
    expect(statSync(join(root, ".starforge/env.sh")).mode & 0o777).toBe(0o600);
    expect(existsSync(join(root, "out"))).toBe(true);
    // The same bytes are fetched once, whatever their names.
    expect(asked.filter((u) => u.endsWith(train))).toHaveLength(1);
    expect(r.stderr).toContain("4 file(s) fetched and verified");
  });

  it("retries a server that answers 503, then succeeds", async () => {
    const d = blob("after a hiccup");
    failNext = 1;
    const root = join(tempDir("sf-pull-"), "r");
    const r = await runPull(root, plan([{ path: "workspace/a", digest: d, mode: 0o644, from: "blob" }]));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/HTTP 503\); again in 1 s/);
  });

  it("a wrong byte: exit 65, naming the file and both digests, and the file is not left behind", async () => {
    const d = blob("the real content");
    corrupt = d;
    const root = join(tempDir("sf-pull-"), "r");
    const r = await runPull(
      root,
      plan([{ path: "workspace/data.txt", digest: d, mode: 0o644, from: "blob" }]),
    );
    corrupt = null;
    expect(r.status).toBe(65);
    expect(r.stderr).toContain(`data.txt: digest mismatch (expected ${d}, got sha256:`);
    expect(existsSync(join(root, "workspace/data.txt"))).toBe(false);
    expect(existsSync(join(root, "workspace/data.txt.part"))).toBe(false);
  });

  it("a refused or unknown blob and a wrong token: exit 65, nothing runs", async () => {
    const root = join(tempDir("sf-pull-"), "r");
    const missing = sha256("never uploaded");
    const r = await runPull(
      root,
      plan([{ path: "workspace/x", digest: missing, mode: 0o644, from: "blob" }]),
    );
    expect(r.status).toBe(65);
    expect(r.stderr).toMatch(/refused .*HTTP 403/);
    const d = blob("fine");
    const bad = await runPull(
      root,
      plan([{ path: "workspace/y", digest: d, mode: 0o644, from: "blob" }], [], "stolen"),
    );
    expect(bad.status).toBe(65);
    expect(bad.stderr).toMatch(/HTTP 401/);
  });

  it("a path that would leave the run directory: exit 68, nothing written outside", async () => {
    const d = blob("escape");
    const base = tempDir("sf-pull-");
    const root = join(base, "r");
    for (const path of ["../outside", "/etc/passwd", "workspace/../../outside"]) {
      const r = await runPull(root, plan([{ path, digest: d, mode: 0o644, from: "blob" }]));
      expect(r.status, path).toBe(68);
      expect(r.stderr).toContain("unsafe path");
    }
    expect(existsSync(join(base, "outside"))).toBe(false);
  });
});
