/**
 * starforge.report, imported from runner.pyz by plain Python code the way training code does: the
 * original client's API and wire format, a no-op without a token, and never an exception into training.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { IngestServer, type MetricPoint } from "./support/ingest-server.js";
import { capsule, cleanAll, PYTHON } from "./support/run-dir.js";

const TOKEN = "tok-report-test";
let server: IngestServer;

beforeEach(async () => {
  server = await new IngestServer(TOKEN).start();
});
afterEach(() => server.stop());
afterAll(cleanAll);

interface PyResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run Python code with runner.pyz on PYTHONPATH (as the runner arranges for training code). */
function python(code: string, env: Record<string, string>): Promise<PyResult> {
  const started = Date.now();
  const child = spawn(PYTHON, ["-c", code], {
    env: { PATH: process.env.PATH ?? "", PYTHONPATH: join(capsule().dir, "runner.pyz"), ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((ok) =>
    child.on("close", (c) => ok({ code: c, stdout, stderr, ms: Date.now() - started })),
  );
}

/** Every kind of call, including ones that are wrong; none may raise. */
const EVERYTHING = `
import sys
from starforge.report import init, log, log_hparams, finish
init()
log_hparams({"lr": 0.1, "model": {"layers": 2}})
for i in range(600):
    log({"train/loss": 1.0 / (i + 1)})
log({"train": {"acc": 0.5, "deep": {"er": 2}}}, step=1000)
log({"after": 1})
log({"bad": "a string", "nan": float("nan"), "none": None, "ok": True})
log("not a dict")
log({"neg": 1}, step=-5)
log_hparams(None)
finish()
finish()
log({"after_finish": 1})
print("training survived")
`;

describe("starforge.report", () => {
  it("posts metrics in batches of at most 256 points, flattening keys and auto-incrementing steps", async () => {
    const res = await python(EVERYTHING, {
      STARFORGE_ENDPOINT: server.endpoint,
      STARFORGE_RUN_ID: "run_report",
      STARFORGE_TOKEN: TOKEN,
    });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("training survived\n");

    const batches = server.accepted<{ run_id: string; points: MetricPoint[] }>("/metrics");
    expect(batches.every((b) => b.run_id === "run_report" && b.points.length <= 256)).toBe(true);
    expect(batches.length).toBeGreaterThanOrEqual(3);
    const loss = server.metrics("train/loss");
    expect(loss.map((p) => p.step)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(loss[9]?.value).toBeCloseTo(0.1);
    expect(server.metrics("train/acc")).toMatchObject([{ step: 1000, value: 0.5 }]);
    expect(server.metrics("train/deep/er")).toMatchObject([{ step: 1000, value: 2 }]);
    expect(server.metrics("after")).toMatchObject([{ step: 1001, value: 1 }]); // None after 1000 -> 1001
    expect(server.metrics("ok")).toMatchObject([{ step: 1002, value: 1 }]);
    for (const key of ["bad", "nan", "none", "neg", "after_finish"]) expect(server.metrics(key)).toEqual([]);
    // ISO-8601 timestamps, as the original client sends them.
    expect(loss.every((p) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(String(p.ts)))).toBe(true);
    expect(server.accepted("/hparams")).toEqual([
      { run_id: "run_report", params: { lr: 0.1, model: { layers: 2 } } },
    ]);
    expect(server.requests.every((r) => r.token === TOKEN)).toBe(true);
  });

  it("init() arguments win over the environment", async () => {
    const code = `from starforge.report import init, log, finish
init(run_id="run_args", endpoint="${server.endpoint}", token="${TOKEN}")
log({"x": 1}, step=3)
finish()`;
    const res = await python(code, { STARFORGE_TOKEN: "wrong-token", STARFORGE_RUN_ID: "run_env" });
    expect(res.code, res.stderr).toBe(0);
    expect(server.accepted("/metrics")).toMatchObject([
      { run_id: "run_args", points: [{ key: "x", step: 3 }] },
    ]);
  });

  it("without a token every call is a no-op: nothing is sent, nothing is printed", async () => {
    const cases: Record<string, string>[] = [{}, { STARFORGE_TOKEN: TOKEN, STARFORGE_ENABLED: "0" }];
    for (const env of cases) {
      const res = await python(EVERYTHING, {
        STARFORGE_ENDPOINT: server.endpoint,
        STARFORGE_RUN_ID: "run_report",
        ...env,
      });
      expect(res.code).toBe(0);
      expect(res.stdout).toBe("training survived\n");
      expect(res.stderr).toBe("");
    }
    expect(server.requests).toEqual([]);
  });

  it("a dead endpoint never raises into training, and finish() gives up in bounded time", async () => {
    const deadPort = await new Promise<number>((ok) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => ok(port));
      });
    });
    const res = await python(EVERYTHING, {
      STARFORGE_ENDPOINT: `http://127.0.0.1:${deadPort}/v1/ingest`,
      STARFORGE_RUN_ID: "run_report",
      STARFORGE_TOKEN: TOKEN,
      SF_REPORT_FLUSH_TIMEOUT: "2",
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("training survived\n");
    expect(res.stderr).not.toMatch(/Traceback/);
    // One line about the trouble (not one per retry) and one about what was lost.
    expect(res.stderr).toMatch(
      /^starforge\.report: ingest \/hparams failed \(.*Connection refused.*\), retrying$/m,
    );
    expect(res.stderr).toMatch(/^starforge\.report: 605 metric points\/hparams were not delivered$/m);
    expect(res.stderr.trim().split("\n")).toHaveLength(2);
    expect(res.ms).toBeLessThan(15_000);
  });

  it("a server that refuses the token (401) never makes it raise either", async () => {
    const res = await python(EVERYTHING, {
      STARFORGE_ENDPOINT: server.endpoint,
      STARFORGE_RUN_ID: "run_report",
      STARFORGE_TOKEN: "not-the-token",
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("training survived\n");
    expect(res.stderr).toMatch(/refused \(HTTP 401\)/);
    expect(server.requests.every((r) => r.status === 401)).toBe(true);
  });
});
