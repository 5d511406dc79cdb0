/**
 * The two forgelet parts the tier-3 lifecycle proofs found wrong, pinned down on their own (no control
 * plane): the blob cache under concurrent launches that need the same blob, and the process runtime
 * when a rank's runner dies but the training it started (in a session of its own) does not.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BlobCache } from "../../forgelet/blob-cache.js";
import { ProcessRuntime } from "../../forgelet/runtimes/process.js";
import { waitFor } from "../support/lifecycle.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "sf-lc-parts-"));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

describe("forgelet parts under lifecycle conditions", () => {
  it("5 concurrent launches needing one blob: 1 download, 5 verified copies, 0 failures", async () => {
    const bytes = Buffer.alloc(256 * 1024, "x");
    const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    let downloads = 0;
    // Slow chunks, so every caller asks while the first download is still streaming.
    const server: Server = createServer((_req, res) => {
      downloads++;
      res.writeHead(200, { "content-type": "application/octet-stream" });
      let off = 0;
      const tick = setInterval(() => {
        res.write(bytes.subarray(off, off + 64 * 1024));
        off += 64 * 1024;
        if (off >= bytes.length) {
          clearInterval(tick);
          res.end();
        }
      }, 30);
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    cleanups.push(() => new Promise<void>((ok) => server.close(() => ok())));
    const port = (server.address() as { port: number }).port;
    const cache = new BlobCache(scratch(), `http://127.0.0.1:${port}`, "credential");
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => cache.path(digest)));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    for (const r of results) {
      expect(readFileSync((r as PromiseFulfilledResult<string>).value).equals(bytes)).toBe(true);
    }
    expect(downloads).toBe(1);
  });

  it("a blob GET whose connection closes unanswered is sent again; a server that keeps closing fails it, coded", async () => {
    const bytes = Buffer.alloc(64 * 1024, "y");
    const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    let requests = 0;
    let closeFirst = 1;
    // What a server does to a kept-alive connection it timed out: the request is dropped, nothing answered.
    const server: Server = createServer((req, res) => {
      requests++;
      if (closeFirst-- > 0 || req.url?.includes("never")) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(bytes);
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    cleanups.push(() => new Promise<void>((ok) => server.close(() => ok())));
    const port = (server.address() as { port: number }).port;
    const cache = new BlobCache(scratch(), `http://127.0.0.1:${port}`, "credential");
    expect(readFileSync(await cache.path(digest)).equals(bytes)).toBe(true);
    expect(requests).toBe(2);

    requests = 0;
    const never = cache.path(`sha256:${"0".repeat(64)}`, "/never");
    await expect(never).rejects.toMatchObject({ name: "BlobFetchError", status: 0 });
    await expect(never).rejects.toThrow(/other side closed|socket hang up|ECONNRESET/);
    expect(requests).toBe(3);
  });

  it("a blob GET answered 503 (the ledger a moment behind) is sent again after its Retry-After; one that stays 503 fails, coded", async () => {
    const bytes = Buffer.alloc(1024, "z");
    const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    let requests = 0;
    let busy = 2;
    const server: Server = createServer((req, res) => {
      requests++;
      if (busy-- > 0 || req.url?.includes("never")) {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
        res.end(
          '{"error":{"code":"UNAVAILABLE","message":"the job ledger is behind its fleet; retry shortly"}}',
        );
        return;
      }
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(bytes);
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    cleanups.push(() => new Promise<void>((ok) => server.close(() => ok())));
    const port = (server.address() as { port: number }).port;
    const cache = new BlobCache(scratch(), `http://127.0.0.1:${port}`, "credential");
    const started = Date.now();
    expect(readFileSync(await cache.path(digest)).equals(bytes)).toBe(true);
    expect(requests).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);

    requests = 0;
    const never = cache.path(`sha256:${"1".repeat(64)}`, "/never");
    await expect(never).rejects.toMatchObject({ name: "BlobFetchError", status: 503 });
    expect(requests).toBe(5);
  }, 20_000);

  it("a rank whose runner is SIGKILLed: the training it left in its own session is ended before the rank counts as over", async () => {
    if (process.platform !== "linux") return; // the process runtime finds such leftovers through /proc
    const runsDir = scratch();
    const runtime = new ProcessRuntime(runsDir, { pollMs: 50 });
    const runDir = join(runsDir, "run_x-r1");
    // What the capsule does: a runner (here bash) starts the training in a new session (setsid).
    const capsule = join(runDir, ".starforge", "capsule");
    mkdirSync(capsule, { recursive: true });
    writeFileSync(
      join(capsule, "bootstrap.sh"),
      `setsid bash -c 'echo $$ > "${runDir}/training.pid"; while true; do sleep 0.2; done' &\nwait\n`,
    );
    const spec = {
      runId: "run_lc_parts_1",
      jobId: "job_lc_parts_1",
      epoch: 1,
      rank: 1,
      runDir,
      env: { STARFORGE_RUN_ID: "run_lc_parts_1", FORGE_RANK: "1" },
      image: null,
      gpuIndices: [0],
      resources: {},
      labels: {},
    };
    const ref = await runtime.launch(spec);
    const training = Number(
      await waitFor(
        "the training to start",
        () => {
          try {
            return readFileSync(join(runDir, "training.pid"), "utf8").trim() || undefined;
          } catch {
            return undefined;
          }
        },
        5000,
      ),
    );
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    };
    cleanups.push(() => {
      if (alive(training)) process.kill(-training, "SIGKILL");
    });
    expect(alive(training)).toBe(true);
    const ended = runtime.wait(ref, spec);
    process.kill(-Number(ref.id), "SIGKILL"); // the runner's group, as the OOM killer or an operator would
    const exit = await ended;
    expect(exit).toMatchObject({ exitCode: null, infra: true });
    expect(alive(training), "the training outlived its rank").toBe(false);
    // A bash that only waited (no leftover) is unaffected: a plain exit still reads its status.
    const zero = join(runsDir, "run_y-r0");
    mkdirSync(join(zero, ".starforge", "capsule"), { recursive: true });
    writeFileSync(join(zero, ".starforge", "capsule", "bootstrap.sh"), "exit 0\n");
    const spec0 = { ...spec, runId: "run_lc_parts_2", rank: 0, runDir: zero, env: {} };
    expect(await runtime.wait(await runtime.launch(spec0), spec0)).toMatchObject({
      exitCode: 0,
      infra: false,
    });
  });
});
