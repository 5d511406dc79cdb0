/**
 * Tier 3: why a job failed, as `sf` shows it (issue 29), on the shared control plane with a forgelet of this
 * file's own (process runtime) that really runs the jobs. Each job's train.sh replays a real-looking failed
 * run's log (one of test/fixtures/failures, line by line to its stream) and exits with that run's code: a
 * PyTorch CUDA out-of-memory traceback (not retried though retries are left), a missing module, an exit
 * nothing in the log explains (a diagnosis without a line), and a lost connection (retried: a second run,
 * which fails the same way with its retries spent). Each is read back
 * through `sf job status` (the "Why it failed" block; --json carries the API's diagnosis as it is) and
 * `sf job logs --cause` (the cause line marked, its rank's lines before it, the hint).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failureBlock } from "../../cli/impl/job/diagnosis.js";
import type { JobDetailResponse } from "../../contract/responses.schema.js";
import { call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { jobState, waitForStatus } from "../support/jobs.js";
import { fleetWithAgent, newFleet, sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/failures");
const JOB_ID = /job_[0-9a-z]{26}/;

/** Writes each line of a recorded failure to its stream, as the training did, then exits with its code. */
const REPLAY = `import json, sys, time
d = json.load(open(sys.argv[1]))
for l in d["lines"]:
    out = sys.stderr if l["stream"] == "stderr" else sys.stdout
    out.write(l["text"] + "\\n")
    out.flush()
    time.sleep(0.005)
sys.exit(d["exit_code"])
`;
const TRAIN_SH =
  '#!/usr/bin/env bash\nset -uo pipefail\ncd "$(dirname "$0")"\nexec python3 replay.py failure.json\n';

interface Line {
  stream: string;
  text: string;
}
/** Rank 0 of a recorded failure (its lines and exit code), plus what it printed after it. */
function fixture(name: string, after: Line[] = []): { lines: Line[]; exit_code: number } {
  const f = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as {
    ranks: Record<string, { exit_code: number; lines: Line[] }>;
  };
  const r = f.ranks["0"]!;
  return {
    lines: [...r.lines.map(({ stream, text }) => ({ stream, text })), ...after],
    exit_code: r.exit_code,
  };
}

const OOM = fixture("cuda_oom-llama8b-mlp-single", [
  // wandb's farewell, printed on the way down after the traceback.
  { stream: "stderr", text: "wandb: 🚀 View run llama3-8b-sft at: https://wandb.ai/acme/sft/runs/x1y2z3" },
  { stream: "stderr", text: "wandb: Find logs at: ./wandb/run-20261206_064101-x1y2z3/logs" },
]);
const IMPORT = fixture("import_error-flash-attn-missing");
const NETWORK = fixture("network-wandb-unreachable");
const SILENT = fixture("unknown-silent-exit-1");
const lastOf = (f: { lines: Line[] }, re: RegExp) => f.lines.findLast((l) => re.test(l.text))!.text;
const OOM_LINE = lastOf(OOM, /^torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate/);
const IMPORT_LINE = "ModuleNotFoundError: No module named 'flash_attn'";
const NETWORK_LINE = lastOf(NETWORK, /^requests\.exceptions\.ConnectionError: .*Max retries exceeded/);

const EXPS = {
  oom: unique("oom"),
  imports: unique("imports"),
  network: unique("network"),
  silent: unique("silent"),
};

let s: Server;
let p: Project;
let fleet = "";
let agent: ForgeletProc | undefined;
const jobs = { oom: "", imports: "", network: "", silent: "" };

interface Diagnosis {
  class: string;
  summary: string;
  rank: number | null;
  node: string | null;
  line: { rank: number; stream: string; seq: number; cursor: number | null; text: string } | null;
  hint: string;
  action: { policy: string; retried: boolean; why: string; cordoned: string | null };
}
interface Detail {
  job: { id: string; status: string };
  diagnosis: Diagnosis | null;
  runs: Array<{ id: string; attempt: number; status: string; diagnosis: Diagnosis | null }>;
}
interface CauseJson {
  run_id: string;
  diagnosis: Diagnosis;
  before: Array<{ cursor: number; line: string }>;
  cause: { cursor: number; rank: number; stream: string; line: string } | null;
  after: Array<{ cursor: number; line: string }>;
}

async function detail(id: string): Promise<Detail> {
  return (await call(s.cp, s.token, "GET", `/v1/jobs/${id}`)).body as unknown as Detail;
}

/** Polls the API until `ok` holds of the job (or fails the test with the last answer). */
async function until(
  id: string,
  what: string,
  ok: (d: Detail) => boolean,
  timeoutMs = 90_000,
): Promise<Detail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await detail(id);
    if (ok(d)) return d;
    if (Date.now() > deadline)
      throw new Error(`${id}: not ${what} in ${timeoutMs} ms; last: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The job failed and its latest run's diagnosis is in. */
async function diagnosed(id: string): Promise<Detail> {
  await waitForStatus(s.cp, s.token, id, ["FAILED"], 90_000);
  return until(id, "diagnosed", (d) => d.diagnosis !== null);
}

const statusJson = async (id: string) => {
  const r = await p.sf(["job", "status", id, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Detail;
};

/** The lines of `sf job logs --cause` output: context lines start with 3 spaces, the cause with `>> `. */
function causeView(stdout: string): { before: string[]; cause: string | undefined; after: string[] } {
  const lines = stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith(">> "));
  const context = (ls: string[]) => ls.filter((l) => l.startsWith("   ")).map((l) => l.slice(3));
  return {
    before: context(at < 0 ? lines : lines.slice(0, at)),
    cause: at < 0 ? undefined : lines[at]!.slice(3),
    after: at < 0 ? [] : context(lines.slice(at + 1)),
  };
}

beforeAll(async () => {
  const cp = sharedControlPlane();
  ({ fleet, agent } = await fleetWithAgent(cp, "diag", { gpus: 8 }));
  s = await serverUser(cp, unique("dina"));
  const files: Record<string, string> = {};
  const cases = [
    [EXPS.oom, OOM],
    [EXPS.imports, IMPORT],
    [EXPS.network, NETWORK],
    [EXPS.silent, SILENT],
  ] as const;
  for (const [exp, f] of cases) {
    files[`experiments/${exp}/train.sh`] = TRAIN_SH;
    files[`experiments/${exp}/replay.py`] = REPLAY;
    files[`experiments/${exp}/failure.json`] = `${JSON.stringify(f)}\n`;
  }
  // One retry allowed each: only the class decides whether it is used.
  const config = "method: custom/custom\nlifecycle:\n  max_retries: 1\n";
  p = await makeProject(s, { fleet, exp: EXPS.oom, method: "custom/custom", config, files });
  for (const exp of [EXPS.imports, EXPS.network, EXPS.silent]) {
    p.write(`experiments/${exp}/config.yaml`, config);
    p.write(`experiments/${exp}/recipe.lock.json`, p.read(`experiments/${EXPS.oom}/recipe.lock.json`));
  }
  p.commit("four ways to fail");
  // Submitted together: they fail (and the network job's retry comes) while the first cases are read.
  for (const key of ["oom", "imports", "network", "silent"] as const) {
    const r = await p.sf(["submit", EXPS[key], "--profile", "h200:1"]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    jobs[key] = JOB_ID.exec(r.stdout)![0];
  }
});

afterAll(async () => {
  await agent?.dispose();
});

describe("a PyTorch CUDA out-of-memory failure", () => {
  it("is diagnosed CUDA_OOM on rank 0 and its node, resting on the traceback's last line, and not retried", async () => {
    const api = await diagnosed(jobs.oom);
    const json = await statusJson(jobs.oom);
    // --json is the API's diagnosis as it came.
    expect(json.diagnosis).toEqual(api.diagnosis);
    expect(json.runs.at(-1)!.diagnosis).toEqual(api.diagnosis);
    const dg = json.diagnosis!;
    expect(dg).toMatchObject({ class: "CUDA_OOM", rank: 0, node: `${fleet}-1` });
    expect(dg.line).toMatchObject({ rank: 0, stream: "stderr", text: OOM_LINE });
    expect(dg.line!.cursor).toEqual(expect.any(Number));
    expect(dg.hint).toMatch(/^Lower the per-GPU batch size/);
    expect(dg.action).toMatchObject({ policy: "no_retry", retried: false, cordoned: null });
    expect(dg.action.why).toContain("CUDA_OOM is not retried");
    expect(json.job.status).toBe("FAILED");
    expect(json.runs).toHaveLength(1);
  });

  it("sf job status shows why it failed right under the job's header", async () => {
    const dg = (await detail(jobs.oom)).diagnosis!;
    const r = await p.sf(["job", "status", jobs.oom]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(
      new RegExp(
        `^${jobs.oom}\\s+${EXPS.oom}\\s+FAILED\\n[^\\n]+\\n\\nWhy it failed: CUDA_OOM — a rank ran out of GPU memory\\n`,
      ),
    );
    expect(out.indexOf("Why it failed")).toBeLessThan(out.indexOf("\nRuns\n"));
    expect(out).toContain(`  where   rank 0 on node ${fleet}-1\n`);
    expect(out).toContain(`  line    stderr, cursor ${dg.line!.cursor}\n`);
    // The line, cut to the width (120 columns when not on a terminal).
    const shown = /\n {10}(torch\.OutOfMemoryError: CUDA out of memory\.[^\n]*)\n/.exec(out)?.[1] ?? "";
    expect(shown).toMatch(/^torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate 3\.91 GiB\..*…$/);
    expect(OOM_LINE.startsWith(shown.slice(0, -1))).toBe(true);
    expect(shown.length).toBe(120 - 10);
    expect(out).toMatch(/\n {2}hint {4}Lower the per-GPU batch size/);
    expect(out).toMatch(/\n {2}done {4}CUDA_OOM is not retried: the code would fail the same way/);
    expect(out).toContain(`  more    sf job logs ${jobs.oom} --cause\n`);
    // Its FAILED event names the class too.
    expect(out).toMatch(/RUNNING → FAILED\s+failed\s+\S+\s+the training exited with code 1 \(CUDA_OOM\)\n/);
    // A wider terminal shows more of it.
    const wide = await p.sf(["job", "status", jobs.oom], { COLUMNS: "1000" });
    expect(wide.stdout).toContain(`\n          ${OOM_LINE}\n`);
  });

  it("sf job logs --cause marks the cause among its rank's 20 lines before it and the lines after, then the hint", async () => {
    const dg = (await detail(jobs.oom)).diagnosis!;
    const r = await p.sf(["job", "logs", jobs.oom, "--cause"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      `CUDA_OOM: a rank ran out of GPU memory (rank 0 on node ${fleet}-1)`,
    );
    const v = causeView(r.stdout);
    expect(v.cause).toBe(OOM_LINE);
    expect(v.before).toHaveLength(20);
    // The traceback's frames lead up to it, in order (one stream, printed well after the progress lines).
    const cause = OOM.lines.findIndex((l) => l.text === OOM_LINE);
    expect(v.before.slice(-10)).toEqual(OOM.lines.slice(cause - 10, cause).map((l) => l.text));
    expect(v.after.slice(0, 2)).toEqual(OOM.lines.slice(-2).map((l) => l.text));
    expect(r.stdout).toMatch(/\nhint: Lower the per-GPU batch size/);

    const short = await p.sf(["job", "logs", jobs.oom, "--cause", "--before", "3"]);
    expect(short.code, short.stderr).toBe(0);
    expect(causeView(short.stdout).before).toEqual([
      "    return forward_call(*args, **kwargs)",
      '  File "/workspace/model.py", line 96, in forward',
      "    x = self.gelu(self.c_fc(x))",
    ]);

    const json = await p.sf(["job", "logs", jobs.oom, "--cause", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const c = JSON.parse(json.stdout) as CauseJson;
    expect(c.diagnosis).toEqual(dg);
    expect(c.cause).toMatchObject({ cursor: dg.line!.cursor, rank: 0, stream: "stderr", line: OOM_LINE });
    expect(c.before).toHaveLength(20);
    expect(c.before.every((l) => l.cursor < dg.line!.cursor!)).toBe(true);
    expect(c.after.map((l) => l.line).slice(0, 2)).toEqual(OOM.lines.slice(-2).map((l) => l.text));
  });
});

describe("a missing Python module", () => {
  it("is diagnosed IMPORT_ERROR from the ModuleNotFoundError, not retried, and shown by status and logs --cause", async () => {
    const api = await diagnosed(jobs.imports);
    const json = await statusJson(jobs.imports);
    expect(json.diagnosis).toEqual(api.diagnosis);
    expect(json.diagnosis).toMatchObject({ class: "IMPORT_ERROR", rank: 0, node: `${fleet}-1` });
    expect(json.diagnosis!.line!.text).toContain(IMPORT_LINE);
    expect(json.diagnosis!.action).toMatchObject({ policy: "no_retry", retried: false });
    expect(json.runs).toHaveLength(1);

    const text = await p.sf(["job", "status", jobs.imports]);
    expect(text.stdout).toContain("Why it failed: IMPORT_ERROR — a Python module could not be imported\n");
    expect(text.stdout).toContain(`\n          ${IMPORT_LINE}\n`);
    expect(text.stdout).toMatch(/\n {2}hint {4}A module is missing from the image/);

    const cause = await p.sf(["job", "logs", jobs.imports, "--cause"]);
    expect(cause.code, cause.stderr).toBe(0);
    const v = causeView(cause.stdout);
    expect(v.cause).toBe(IMPORT_LINE);
    // Fewer lines than --before asks for before it: all of them, the traceback ending in the failed import.
    expect(v.before.slice(-5)).toEqual(IMPORT.lines.slice(0, 5).map((l) => l.text));
  });
});

describe("an exit with nothing in the log to explain it", () => {
  it("is diagnosed UNKNOWN without a line: logs --cause shows the summary and the rank's last lines", async () => {
    const api = await diagnosed(jobs.silent);
    expect(api.diagnosis).toMatchObject({
      class: "UNKNOWN",
      rank: 0,
      line: null,
      action: { retried: false },
    });
    const text = await p.sf(["job", "status", jobs.silent]);
    expect(text.stdout).toContain("Why it failed: UNKNOWN — no known cause in the logs\n");
    expect(text.stdout).not.toMatch(/\n {2}line /);

    const r = await p.sf(["job", "logs", jobs.silent, "--cause", "--before", "4"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(`UNKNOWN: no known cause in the logs (rank 0 on node ${fleet}-1)`);
    expect(r.stderr).toContain("the diagnosis rests on exits, not on a line: the last 4 lines of rank 0");
    const v = causeView(r.stdout);
    expect(v.cause).toBeUndefined();
    expect(v.before).toEqual(SILENT.lines.slice(-4).map((l) => l.text));
    expect(r.stdout).toMatch(/\nhint: Nothing in the logs explains the exit/);
  });
});

describe("a lost network connection", () => {
  it("is diagnosed NETWORK and retried: a second run, which fails the same way with its retries spent", async () => {
    const first = await diagnosed(jobs.network);
    expect(first.diagnosis).toMatchObject({
      class: "NETWORK",
      rank: 0,
      action: { policy: "retry", retried: true },
    });
    expect(first.diagnosis!.line!.text).toBe(NETWORK_LINE);
    const run1 = first.runs[0]!;

    // Waiting for its retry (30 s of backoff from its diagnosis, which came with the others' before the
    // cases above were read), the job says why it failed and that it is retried.
    const waiting = await statusJson(jobs.network);
    if (waiting.runs.length === 1) {
      const text = await p.sf(["job", "status", jobs.network]);
      expect(text.stdout).toContain("Why it failed: NETWORK — a network connection failed\n");
      expect(text.stdout).toMatch(/\n {2}done {4}retry 1 of 1 \(NETWORK is retried\)\n/);
    }

    const second = await until(
      jobs.network,
      "failed again",
      (d) => d.runs.length === 2 && d.diagnosis !== null,
    );
    expect(second.job.status).toBe("FAILED");
    expect(second.runs[0]!.diagnosis!.action.retried).toBe(true);
    expect(second.diagnosis).toMatchObject({ class: "NETWORK", action: { retried: false } });
    expect(second.diagnosis!.action.why).toContain("its retries are spent (1 of lifecycle.max_retries 1)");
    const json = await statusJson(jobs.network);
    expect(json.diagnosis).toEqual(second.diagnosis);
    expect(json.runs.map((r) => r.diagnosis?.action.retried)).toEqual([true, false]);

    const text = await p.sf(["job", "status", jobs.network]);
    expect(text.stdout).toMatch(/\n {2}done {4}its retries are spent \(1 of lifecycle\.max_retries 1\)\n/);
    // The first run's cause, by its id.
    const cause = await p.sf(["job", "logs", jobs.network, "--cause", "--run", run1.id]);
    expect(cause.code, cause.stderr).toBe(0);
    expect(causeView(cause.stdout).cause).toBe(NETWORK_LINE);

    // The CUDA OOM job failed as early as the first run here, and the same backoff would have retried it
    // by now: it was not.
    const oom = await jobState(s.cp, s.token, jobs.oom);
    expect(oom.job.status).toBe("FAILED");
    expect(oom.runs).toHaveLength(1);
    expect(oom.events.some((e) => e.edge === "retry")).toBe(false);
  });
});

describe("a job with no diagnosis", () => {
  it("sf job logs --cause says so with NO_DIAGNOSIS (exit 4); --cause does not go with -f", async () => {
    const idle = await newFleet(s.cp, "diag-idle");
    const r = await p.sf(["submit", EXPS.oom, "--profile", "h200:1", "--fleet", idle]);
    expect(r.code, r.stderr).toBe(0);
    const queued = JOB_ID.exec(r.stdout)![0];
    const none = await p.sf(["job", "logs", queued, "--cause"]);
    expect(none.code).toBe(4);
    expect(none.stderr).toContain(`${queued} has no diagnosis: it has not failed (it is QUEUED)`);
    expect(none.stderr).toContain("[NO_DIAGNOSIS]");
    const status = await p.sf(["job", "status", queued]);
    expect(status.stdout).not.toContain("Why it failed");
    expect((await p.sf(["job", "stop", queued])).code).toBe(0);

    const usage = await p.sf(["job", "logs", jobs.oom, "--cause", "-f"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--cause cannot be combined with --follow");
    const lone = await p.sf(["job", "logs", jobs.oom, "--before", "5"]);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain("--before goes with --cause");
  });

  it("a FAILED job whose diagnosis is on its way shows 'diagnosing…'", () => {
    // The seconds between FAILED and the diagnosis are too short to catch on a busy machine: the job as
    // GET /v1/jobs/:id answers it then (its FAILED event's detail says "pending").
    const pending = {
      job: { id: "job_x", status: "FAILED" },
      runs: [{ id: "run_x", attempt: 1, status: "FAILED", diagnosis: null }],
      events: [
        { to: "FAILED", from: "RUNNING", edge: "failed", detail: { reason: "exit 1", diagnosis: "pending" } },
      ],
    } as unknown as JobDetailResponse;
    expect(failureBlock(pending, 100).join("\n")).toContain("Why it failed: diagnosing…");
    // A job that failed before failures were diagnosed (no `diagnosis` in its event) is not "diagnosing".
    const old = { ...pending, events: [{ ...pending.events[0]!, detail: { reason: "exit 1" } }] };
    expect(failureBlock(old as JobDetailResponse, 100)).toEqual([]);
  });
});
