/**
 * The runner with a custom train.sh, end to end: real bootstrap.sh, real runner.pyz, a real loopback
 * ingest server. What a run reports (lifecycle, log lines, metrics) must arrive complete and in order.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { IngestServer } from "./support/ingest-server.js";
import {
  cleanAll,
  cleanTemps,
  makeRunDir,
  rankEnv,
  runBootstrap,
  startBootstrap,
  until,
} from "./support/run-dir.js";

const TOKEN = "tok-capsule-test";
let server: IngestServer;

beforeEach(async () => {
  server = await new IngestServer(TOKEN).start();
});
afterEach(async () => {
  await server.stop();
  cleanTemps();
});
afterAll(cleanAll);

/** Is the process alive? A zombie (exited, not yet reaped by whoever adopted it) is not. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !["Z", "X"].includes(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  } catch {
    return false;
  }
}

const CHATTY = `#!/usr/bin/env bash
set -euo pipefail
echo "exp=$FORGE_EXP_DIR"
echo "out=$FORGE_OUT_DIR"
echo "work=$FORGE_WORK_DIR"
echo "hparams=$SF_HPARAMS"
echo "rank=$FORGE_RANK/$FORGE_WORLD_SIZE gpus=[$FORGE_GPU_INDICES] cwd=$(pwd)"
for ((i = 1; i <= 300; i++)); do
  echo "out line $i"
  echo "err line $i" >&2
done
printf 'x%.0s' {1..20000}; echo
python3 - <<'EOF'
from starforge.report import init, log, finish
init()
log({"train": {"loss": 2.5, "acc": 0.25}})
log({"train/loss": 1.5})
finish()
print("reported")
EOF
printf 'last words without a newline'
`;

describe("runner: custom train.sh", () => {
  it("reports started then succeeded, and every stdout and stderr line arrives once, in order", async () => {
    const run = makeRunDir({
      endpoint: server.endpoint,
      workspace: { "train.sh": CHATTY },
      hyperparams: { learning_rate: 0.5, note: "hi", flag: true },
    });
    const res = await runBootstrap(run, rankEnv(run, server.endpoint, TOKEN));
    expect(res.stderr).not.toMatch(/Traceback/);
    expect(res.code).toBe(0);

    expect(server.lifecycle().map((e) => e.event)).toEqual(["started", "succeeded"]);
    expect(server.lifecycle()[1]).toMatchObject({ exit_code: 0, rank: 0 });
    expect(server.accepted("/hparams")).toEqual([
      { run_id: "run_test", params: { learning_rate: 0.5, note: "hi", flag: true } },
    ]);
    // Every request carried the run's token.
    expect(server.requests.every((r) => r.method === "PUT" || r.token === TOKEN)).toBe(true);

    const out = server.logLines("stdout");
    const err = server.logLines("stderr");
    const exp = run.path("workspace/exp");
    expect(out.slice(0, 5)).toEqual([
      `exp=${exp}`,
      `out=${run.path("out")}`,
      `work=${run.path("workspace")}`,
      'hparams={"flag": true, "learning_rate": 0.5, "note": "hi"}',
      `rank=0/1 gpus=[] cwd=${exp}`,
    ]);
    const numbered = (s: string) => Array.from({ length: 300 }, (_, i) => `${s} line ${i + 1}`);
    expect(out.slice(5, 305)).toEqual(numbered("out"));
    expect(err).toEqual(numbered("err"));
    // A 20,000-character line arrives whole, in pieces that each fit the contract's line limit.
    expect(out.slice(305, 308).join("")).toBe("x".repeat(20_000));
    expect(out.slice(308)).toEqual(["reported", "last words without a newline"]);
    expect(server.duplicateLines + server.conflictingLines).toBe(0);

    // What reached the server is what the runner echoed for `docker logs`.
    expect(res.stdout.split("\n").filter((l) => l.startsWith("out line"))).toEqual(numbered("out"));
    expect(res.stderr.split("\n").filter((l) => l.startsWith("err line"))).toEqual(numbered("err"));

    // Per stream, batches carry contiguous seq numbers starting at 0, and the last says eof.
    for (const stream of ["stdout", "stderr"] as const) {
      const batches = server
        .accepted<{ seq: number; chunks: string[]; stream: string; eof?: boolean }>("/logs")
        .filter((b) => b.stream === stream);
      let next = 0;
      for (const b of batches) {
        expect(b.seq).toBe(next);
        next += b.chunks.length;
      }
      expect(batches.at(-1)?.eof).toBe(true);
    }

    // starforge.report from user code: nested keys flatten with ".", step auto-increments from 0.
    expect(server.metrics("train.loss").map((p) => [p.step, p.value])).toEqual([[0, 2.5]]);
    expect(server.metrics("train/loss").map((p) => [p.step, p.value])).toEqual([[1, 1.5]]);
    expect(server.metrics("train.acc").map((p) => p.value)).toEqual([0.25]);
    // The runner ships the output; starforge.report inside it sends no second, unsequenced copy.
    expect(server.accepted<{ seq?: number }>("/logs").every((b) => typeof b.seq === "number")).toBe(true);
    expect(server.consoleChunks).toEqual([]);
    // Where the rank ran: the runner's environment probe and node entry (and report.init's probe).
    const probes = server.accepted<{ run_id: string; hostname: string; python: { version: string } }>(
      "/environment",
    );
    expect(probes.length).toBeGreaterThanOrEqual(1);
    expect(probes[0]).toMatchObject({ run_id: "run_test", hostname: expect.any(String) });
    expect(probes[0]!.python.version).toMatch(/^3\.\d+/);
    expect(server.accepted<{ nodes: Array<{ hostname: string }> }>("/environment/nodes")[0]?.nodes).toEqual([
      expect.objectContaining({ hostname: probes[0]!.hostname }),
    ]);
  });

  it("a failing script: lifecycle failed with its exit code, which is also the runner's", async () => {
    const run = makeRunDir({
      endpoint: server.endpoint,
      workspace: { "train.sh": "#!/usr/bin/env bash\necho 'about to fail'\necho 'oops' >&2\nexit 3\n" },
    });
    const res = await runBootstrap(run, rankEnv(run, server.endpoint, TOKEN));
    expect(res.code).toBe(3);
    expect(server.lifecycle().map((e) => [e.event, e.exit_code])).toEqual([
      ["started", undefined],
      ["failed", 3],
    ]);
    expect(server.lifecycle()[1]?.reason).toMatch(/exited with code 3/);
    expect(server.logLines("stdout")).toEqual(["about to fail"]);
    expect(server.logLines("stderr")).toEqual(["oops"]);
  });

  it("SIGTERM to the process group stops the training, flushes its logs and claims no outcome (its agent reports why)", async () => {
    const script = `#!/usr/bin/env bash
touch "$FORGE_OUT_DIR/started"
i=0
while true; do i=$((i + 1)); echo "tick $i"; sleep 0.05; done
`;
    const run = makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": script } });
    const proc = startBootstrap(run, rankEnv(run, server.endpoint, TOKEN));
    await until(() => server.logLines("stdout").length >= 10, 20_000, "ten ticks at the server");
    process.kill(-proc.child.pid!, "SIGTERM");
    const res = await proc.done;

    expect(res.code).toBe(143);
    expect(existsSync(run.path("out/started"))).toBe(true);
    // A stop, a pause, a cluster's time limit or preemption: whoever sent the signal knows which, and
    // the agent reports the end with that reason; a "failed" from the runner would hide it.
    expect(server.lifecycle().map((e) => e.event)).toEqual(["started"]);
    expect(res.stderr).toContain("stopped by SIGTERM; the agent reports why");
    // Every tick the training printed, up to the stop, reached the server, in order.
    const echoed = res.stdout.split("\n").filter((l) => l.startsWith("tick"));
    expect(echoed.length).toBeGreaterThanOrEqual(10);
    expect(server.logLines("stdout")).toEqual(echoed);
  });

  it("a training that ends as stopped (exit 143) with no signal to the runner claims no outcome either: a peer's stop, or the cluster's, has its own reporter", async () => {
    // As torch/ddp does when another rank of its gang was stopped: every rank leaves with 128+TERM.
    const script = `#!/usr/bin/env bash
echo "a peer rank was stopped: stopping too"
exit 143
`;
    const run = makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": script } });
    const res = await runBootstrap(run, rankEnv(run, server.endpoint, TOKEN));
    expect(res.code).toBe(143);
    expect(server.lifecycle().map((e) => e.event)).toEqual(["started"]);
    expect(res.stderr).toContain(
      "the training ended as stopped (exit code 143), by no signal of this runner's; the agent reports why",
    );
    expect(server.logLines("stdout")).toEqual(["a peer rank was stopped: stopping too"]);
  });

  it("on SIGTERM asks why and by when, and writes it where the training reads it (SF_STOP_NOTICE_FILE, starforge.report.stop_notice)", async () => {
    server.notice = {
      reason: "preempted by job_high (priority class high)",
      deadline: "2030-01-01T00:00:00.000Z",
      grace_seconds: 60,
      cause: "preempted",
      preempted_by: "job_high",
    };
    // The training checkpoints on SIGTERM: it waits for the notice, then says what it read, two ways.
    const script = `#!/usr/bin/env bash
on_term() {
  for _ in $(seq 50); do [ -s "$SF_STOP_NOTICE_FILE" ] && break; sleep 0.1; done
  . "$SF_STOP_NOTICE_FILE"
  echo "notice $SF_STOP_CAUSE $SF_STOP_DEADLINE $SF_STOP_PREEMPTED_BY"
  python3 -c 'from starforge.report import stop_notice; n = stop_notice(); print("report", n["cause"], n["grace_seconds"], n["reason"])'
  exit 0
}
trap on_term TERM
touch "$FORGE_OUT_DIR/started"
while true; do echo tick; sleep 0.05; done
`;
    const run = makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": script } });
    const proc = startBootstrap(run, rankEnv(run, server.endpoint, TOKEN));
    await until(() => server.logLines("stdout").length >= 5, 20_000, "five ticks at the server");
    process.kill(-proc.child.pid!, "SIGTERM");
    await proc.done;
    const said = server.logLines("stdout").filter((l) => !l.startsWith("tick"));
    expect(said).toEqual([
      "notice preempted 2030-01-01T00:00:00.000Z job_high",
      "report preempted 60 preempted by job_high (priority class high)",
    ]);
    expect(server.requests.filter((r) => r.path === "/notice")).toHaveLength(1);
  });

  it("waits for the training until the notice's deadline when it is later than its own stop grace", async () => {
    // The runner's own grace is 1 s here; the notice gives 5 s (it waits 5 - 2 = 3 s); the training takes 2.
    server.notice = {
      reason: "preempted",
      deadline: "2030-01-01T00:00:00.000Z",
      grace_seconds: 5,
      cause: "preempted",
      preempted_by: "job_high",
    };
    const script = `#!/usr/bin/env bash
trap 'sleep 2; echo "checkpoint written"; exit 0' TERM
while true; do echo tick; sleep 0.05; done
`;
    const run = makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": script } });
    const proc = startBootstrap(run, { ...rankEnv(run, server.endpoint, TOKEN), SF_STOP_GRACE_SECONDS: "1" });
    await until(() => server.logLines("stdout").length >= 5, 20_000, "five ticks at the server");
    process.kill(-proc.child.pid!, "SIGTERM");
    const res = await proc.done;
    expect(res.stderr).not.toContain("killing it");
    expect(server.logLines("stdout")).toContain("checkpoint written");
  });

  it("leaves no process behind: what the script started in the background is stopped", async () => {
    const script = `#!/usr/bin/env bash
sleep 300 & echo $! > "$FORGE_OUT_DIR/holds-pipes.pid"
sleep 300 > /dev/null 2>&1 & echo $! > "$FORGE_OUT_DIR/detached.pid"
echo "left two sleeps running"
`;
    const run = makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": script } });
    const res = await runBootstrap(run, rankEnv(run, server.endpoint, TOKEN));
    expect(res.code, res.stderr).toBe(0);
    expect(server.logLines("stdout")).toEqual(["left two sleeps running"]);
    for (const name of ["holds-pipes", "detached"]) {
      const pid = Number(readFileSync(run.path(`out/${name}.pid`), "utf8"));
      expect(pid).toBeGreaterThan(1);
      expect(running(pid), name).toBe(false);
    }
  });

  it("ingest answering 500 for a while: retried with the same seq, everything arrives exactly once", async () => {
    // The first posts to every path fail outright; later, some /logs posts are stored but their answer
    // is "lost" (500), so the runner must resend them with the same seq and the server must dedupe.
    server.fault = (path, n) => {
      if (n <= 3) return "fail";
      if (path === "/logs" && n % 3 === 0) return "fail-after-accept";
      return "ok";
    };
    const script = `#!/usr/bin/env bash
for ((i = 1; i <= 400; i++)); do echo "line $i"; if ((i % 100 == 0)); then echo "warn $i" >&2; sleep 0.3; fi; done
echo done > "$FORGE_OUT_DIR/finished"
`;
    const run = makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": script } });
    const res = await runBootstrap(run, rankEnv(run, server.endpoint, TOKEN));

    expect(res.code).toBe(0);
    expect(existsSync(run.path("out/finished"))).toBe(true);
    expect(server.requests.filter((r) => r.status === 500).length).toBeGreaterThanOrEqual(6);
    expect(server.duplicateLines).toBeGreaterThan(0); // resent with the same seq...
    expect(server.conflictingLines).toBe(0); // ...and the same content
    expect(server.logLines("stdout")).toEqual(Array.from({ length: 400 }, (_, i) => `line ${i + 1}`));
    expect(server.logLines("stderr")).toEqual(["warn 100", "warn 200", "warn 300", "warn 400"]);
    expect(server.lifecycle().map((e) => e.event)).toEqual(["started", "succeeded"]);
    expect(server.accepted("/hparams")).toHaveLength(1);
  });

  it("with STARFORGE_ENABLED=0 (or no token) the training still runs and nothing is sent", async () => {
    const script = `#!/usr/bin/env bash\necho "offline run"\ntouch "$FORGE_OUT_DIR/ran"\n`;
    const cases: Record<string, string>[] = [{ STARFORGE_ENABLED: "0" }, { STARFORGE_TOKEN: "" }];
    for (const env of cases) {
      const run = makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": script } });
      const res = await runBootstrap(run, { ...rankEnv(run, server.endpoint, TOKEN), ...env });
      expect(res.code).toBe(0);
      expect(res.stdout).toContain("offline run");
      expect(res.stderr).toMatch(/ingest disabled/);
      expect(existsSync(run.path("out/ran"))).toBe(true);
    }
    expect(server.requests).toEqual([]);
  });
});
