/**
 * Why a job failed, on its page (pages/job-diagnosis.tsx, issue 29): real runs fail through the ingest
 * API, the Fleet DO diagnoses them from their Run DO's logs (SF_DIAGNOSIS_SETTLE_SECONDS, 2 s by default),
 * and the console shows "Diagnosing…" until then, the diagnosis on top after, each failed run's class in the
 * run list, and a link that opens the Logs tab at the diagnosed line, highlighted among its rank's lines.
 */
import { describe, expect, it } from "vitest";
import { type ConsoleBrowser, signIn } from "./console-support.js";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";
import { ingest, type RunFixture, runToken } from "./ingest-helpers.js";

const HOSTILE = `<img src=x onerror=alert(1)> & "quoted" <script>alert(2)</script>`;
/** The exception line rank 1 dies with: the diagnosis rests on it. */
const FATAL = `ValueError: label ${HOSTILE} is not in the vocabulary`;
/** Lines per rank before the failure, written in turns of 10, so the ranks' cursors interleave. */
const BEFORE = 150;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const all = (html: string, re: RegExp) => [...html.matchAll(re)].map((m) => m.slice(1));
/** An attribute's value as a browser reads it (hono escapes `&` in attributes). */
const attr = (v: string) => v.replaceAll("&amp;", "&");

/** A 2-node job (16 GPUs, ranks 0 and 1) of a new user, dispatched onto a new fleet's two nodes. */
async function twoRankRun(name: string, lifecycle = { max_retries: 0, retry_on_user_failure: false }) {
  const op = await createUser(name);
  await api(ADMIN, "PUT", `/v1/users/${name}/quota`, { max_gpus: 64, max_jobs: 10, daily_gpu_hours: 1000 });
  await createFleet(name);
  await registerNode(name, `${name}-n1`, 8);
  await registerNode(name, `${name}-n2`, 8);
  const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: name, gpus: 16, name, lifecycle }));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const jobId = r.body.job.id as string;
  const detail = await api(op, "GET", `/v1/jobs/${jobId}`);
  const run = detail.body.runs.at(-1) as { id: string; epoch: number };
  expect(run, JSON.stringify(detail.body.job)).toBeDefined();
  const c = { runId: run.id, jobId, fleetId: detail.body.job.fleet_id as string, epoch: run.epoch };
  const f: RunFixture = { op, fleet: name, ...c, token: await runToken(c) };
  for (const rank of [0, 1]) {
    const started = await ingest(f.token, "/lifecycle", { run_id: f.runId, rank, event: "started" });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
  }
  return f;
}

async function logs(f: RunFixture, rank: number, stream: string, seq: number, chunks: string[]) {
  const r = await ingest(f.token, "/logs", { run_id: f.runId, rank, stream, seq, chunks });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** Both ranks train for BEFORE lines each, then rank 1 raises `fatal` and exits 1; rank 0 is still going. */
async function failWith(f: RunFixture, fatal: string): Promise<void> {
  for (let i = 0; i < BEFORE; i += 10) {
    for (const rank of [0, 1]) {
      const chunk = Array.from({ length: 10 }, (_, k) => `rank ${rank} step ${i + k} loss 0.5`);
      await logs(f, rank, "stdout", i, chunk);
    }
  }
  await logs(f, 1, "stderr", 0, [
    "Traceback (most recent call last):",
    '  File "train.py", line 42, in <module>',
    fatal,
  ]);
  await logs(f, 1, "stdout", BEFORE, ["rank 1 flushing before exit"]);
  const failed = await ingest(f.token, "/lifecycle", {
    run_id: f.runId,
    rank: 1,
    event: "failed",
    exit_code: 1,
    reason: "exit code 1",
  });
  expect(failed.status, JSON.stringify(failed.body)).toBe(200);
}

/** The job once its latest run's diagnosis is stored (the Fleet DO's alarm does it a moment later). */
async function diagnosed(f: RunFixture) {
  for (let i = 0; i < 60; i++) {
    const d = await api(f.op, "GET", `/v1/jobs/${f.jobId}`);
    if (d.body.diagnosis) return d.body;
    await sleep(250);
  }
  throw new Error(`job ${f.jobId} was not diagnosed within 15 s`);
}

async function jobPage(b: ConsoleBrowser, f: RunFixture, path = ""): Promise<string> {
  const r = await b.get(`/console/jobs/${f.jobId}${path}`);
  expect(r.status, r.html.slice(0, 2000)).toBe(200);
  return r.html;
}

/** The diagnosis slot's content (in the header, before the actions), or "" when the page shows none. */
function block(html: string): string {
  const slot = html.indexOf('<div class="diagnosis-slot"');
  const end = html.indexOf('<div class="job-actions">', slot);
  if (slot < 0 || end < 0) throw new Error("no diagnosis slot in the page");
  const inner = html.slice(html.indexOf(">", slot) + 1, end);
  return inner.slice(0, inner.lastIndexOf("</div>"));
}

let shared: Promise<{ f: RunFixture; b: ConsoleBrowser; cursor: number }> | undefined;

/** One failed two-rank run, diagnosed, and its owner signed in (made once for the tests that read it). */
function failedAndDiagnosed() {
  shared ??= (async () => {
    const f = await twoRankRun("diag-page");
    await failWith(f, FATAL);
    const body = await diagnosed(f);
    expect(body.diagnosis.line.text).toBe(FATAL);
    return { f, b: await signIn(f.op), cursor: body.diagnosis.line.cursor as number };
  })();
  return shared;
}

describe("the job page's diagnosis", () => {
  it("says Diagnosing… right after the run failed, then shows the diagnosis once it is stored", async () => {
    const f = await twoRankRun("diag-pending");
    const b = await signIn(f.op);
    expect(block(await jobPage(b, f))).toBe("");
    await failWith(f, "ValueError: bad label");
    // The FAILED event says the diagnosis is pending for the settle time (2 s); the page says so.
    const pending = await jobPage(b, f);
    expect(pending).toContain('data-diagnosed-at=""');
    expect(block(pending)).toContain('<h2 id="diagnosis-h">Diagnosing…</h2>');
    expect(block(pending)).not.toContain("data-diagnosis-class");

    const body = await diagnosed(f);
    const after = block(await jobPage(b, f));
    expect(after).not.toContain("Diagnosing…");
    expect(after).toContain(
      `<span class="diag-class" data-diagnosis-class="">${body.diagnosis.class}</span>`,
    );
    expect(await jobPage(b, f)).toContain(`data-diagnosed-at="${body.diagnosis.diagnosed_at}"`);
  });

  it("shows the class, summary, root-cause rank and node, the line with its link, the hint and what was done", async () => {
    const { f, b, cursor } = await failedAndDiagnosed();
    const html = block(await jobPage(b, f));
    expect(html).toMatch(
      /^<section class="diagnosis" aria-labelledby="diagnosis-h" data-diagnosis="USER_EXCEPTION"/,
    );
    expect(html).toContain(
      '<h2 id="diagnosis-h">Why it failed <span class="diag-class" data-diagnosis-class="">USER_EXCEPTION</span></h2>',
    );
    expect(html).toContain("<dt>Root cause</dt><dd>rank 1 on node diag-page-n2</dd>");
    expect(html).toContain("The line it rests on (rank 1, stderr):");
    const href = /<a href="([^"]+)" data-diagnosis-line="">Show this line in rank 1&#39;s log<\/a>/.exec(
      html,
    )?.[1];
    expect(href && attr(href)).toBe(
      `/console/jobs/${f.jobId}/logs?run=${f.runId}&rank=1&at=${cursor}#log-${cursor}`,
    );
    expect(html).toContain(
      "<strong>What to change: </strong>The training code raised an exception: the line shows it; fix the code or its inputs and submit again.",
    );
    expect(html).toContain(
      "<strong>What was done: </strong>USER_EXCEPTION is not retried: the code would fail the same way (set lifecycle.retry_on_user_failure to retry it).",
    );
    expect(html).not.toContain("data-cordoned");
    expect(html).not.toContain("could not be read in time");
  });

  it("escapes HTML from the log line in the summary and the line", async () => {
    const { f, b } = await failedAndDiagnosed();
    const page = await jobPage(b, f);
    const html = block(page);
    const escaped =
      "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot; &lt;script&gt;alert(2)&lt;/script&gt;";
    expect(html).toContain(`<code>ValueError: label ${escaped} is not in the vocabulary</code>`);
    expect(html).toContain(
      `<p class="diag-summary">The training code raised an exception: ValueError: label ${escaped}`,
    );
    for (const raw of ["<img src=x", "<script>alert(2)", 'onerror=alert(1)> & "quoted"']) {
      expect(page).not.toContain(raw);
    }
  });

  it("links to the Logs tab at that rank's lines around the line, which is highlighted", async () => {
    const { f, b, cursor } = await failedAndDiagnosed();
    const link = /<a href="([^"]+)" data-diagnosis-line="">/.exec(block(await jobPage(b, f)))?.[1];
    const [path, fragment] = attr(link ?? "").split("#");
    expect(fragment).toBe(`log-${cursor}`);
    const r = await b.get(path!);
    expect(r.status, r.html.slice(0, 2000)).toBe(200);
    const html = r.html;
    const lines = all(html, /<li data-offset="(\d+)" data-rank="(\d+)" data-stream="(\w+)"/g);
    // Only rank 1; the 100 lines before the diagnosed one (not all 152), the line, and what followed.
    expect(new Set(lines.map(([, rank]) => rank))).toEqual(new Set(["1"]));
    const at = lines.findIndex(([offset]) => Number(offset) === cursor);
    expect(at).toBe(100);
    expect(lines.length).toBe(102);
    expect(lines[at]![2]).toBe("stderr");
    expect(lines.at(-1)![2]).toBe("stdout");
    expect(html).toContain(
      `<li data-offset="${cursor}" data-rank="1" data-stream="stderr" id="log-${cursor}" aria-current="true" class="log-target">`,
    );
    expect(all(html, /class="log-target"/g)).toHaveLength(1);
    expect(html).toContain("Lines of rank 1 around the line the diagnosis points at (highlighted).");
    expect(html).toContain(
      '<span class="log-text">ValueError: label &lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;',
    );
    // The first line shown is rank 1's 51st (100 before the traceback's 3 lines minus the first 2).
    expect(html).toContain(`<span class="log-text">rank 1 step ${BEFORE - 98} loss 0.5</span>`);
    expect(html).not.toContain(`rank 1 step ${BEFORE - 99} loss`);
    // The whole log is a link away; the live tail (none here: the run is over) would go on after the window.
    const whole = /<a href="([^"]+)">Show the log from the start<\/a>/.exec(html)?.[1];
    expect(whole && attr(whole)).toBe(`/console/jobs/${f.jobId}/logs?run=${f.runId}&rank=1`);
    expect(html).toContain(`data-next="${Number(lines.at(-1)![0]) + 1}"`);
    expect(html).not.toContain('data-live="1"');
  });

  it("shows each failed run's class in the run list; the retried job's new run has no block", async () => {
    const f = await twoRankRun("diag-retry", { max_retries: 1, retry_on_user_failure: false });
    // A full disk is retried (contract/diagnosis-policy.ts): the job runs again after the backoff (1 s).
    await failWith(f, "OSError: [Errno 28] No space left on device");
    // Rank 0 is killed when its peer dies (as torchrun does): the run's GPUs are free for the next one.
    const peer = await ingest(f.token, "/lifecycle", {
      run_id: f.runId,
      rank: 0,
      event: "failed",
      exit_code: -15,
      reason: "killed by SIGTERM",
    });
    expect(peer.status, JSON.stringify(peer.body)).toBe(200);
    const first = await diagnosed(f);
    expect(first.diagnosis.class).toBe("DISK_FULL");
    expect(first.diagnosis.action.retried).toBe(true);
    const b = await signIn(f.op);
    let body = first;
    for (let i = 0; i < 60 && body.runs.length < 2; i++) {
      await sleep(250);
      body = (await api(f.op, "GET", `/v1/jobs/${f.jobId}`)).body;
    }
    expect(body.runs, JSON.stringify(body.job)).toHaveLength(2);
    const html = await jobPage(b, f);
    expect(block(html)).toBe("");
    expect(html).toMatch(
      /Run 1 <span class="note">FAILED<\/span> <span class="diag-class small" data-run-diagnosis="DISK_FULL" title="[^"]*">DISK_FULL<\/span>/,
    );
    expect(all(html, /data-run-diagnosis="(\w+)"/g).flat()).toEqual(["DISK_FULL"]);
  });
});
