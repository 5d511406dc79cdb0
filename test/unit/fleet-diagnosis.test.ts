/**
 * Failure diagnosis in the Fleet DO's rules (rules/diagnosis.ts, contract/diagnosis-policy.ts): every failed
 * run gets a diagnosis once its logs had a moment to arrive, the class decides the retry, a GPU failure
 * cordons its node, an admin's rules and overrides come first, and the FAILED event's webhook waits for
 * the diagnosis so it carries it.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FAILURE_CLASSES } from "../../contract/diagnosis.js";
import {
  CLASS_POLICY,
  DiagnosisRule,
  FleetDiagnosis,
  type RunLogLine,
  runVerdict,
  type StoredDiagnosis,
} from "../../contract/diagnosis-policy.js";
import type { FleetConfig } from "../../contract/fleet.schema.js";
import { AGENT_WAIT_MS, runDiagnosis, runFacts } from "../../durable-objects/fleet/rules/diagnosis.js";
import { DIAGNOSIS_SETTLE_MS } from "../../durable-objects/fleet/timers.js";
import { jobDetail, nodeView } from "../../durable-objects/fleet/views.js";
import { FLEET_ID, Fleet } from "./fleet-harness.js";

const RETRY_BASE = 30_000;

function lines(...texts: string[]): RunLogLine[] {
  return texts.map((line, i) => ({ stream: "stderr", seq: 10 + i, cursor: 100 + i, ts: 1_000 + i, line }));
}

const OOM = lines(
  "step 40 loss 2.31",
  "Traceback (most recent call last):",
  '  File "train.py", line 88, in <module>',
  "    loss.backward()",
  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.19 GiB is free.",
);

/** A fleet with one node per entry, and a running job over `nodes` of them. */
function runningJob(o: { nodes?: number; maxRetries?: number; retryOnUserFailure?: boolean } = {}) {
  const f = new Fleet();
  const nodes = ["gpu-a", "gpu-b", "gpu-c"].map((n) => f.agent(n, 1));
  const id = f.submit({ nodes: o.nodes ?? 1, gpus: 1, maxRetries: o.maxRetries ?? 3, ...o });
  f.report(id, "started");
  return { f, id, nodes, run: f.currentRun(id) };
}

/** What the Run DO answers, from these lines per rank (the rest silent). */
function verdictFor(f: Fleet, runId: string, logs: Record<number, RunLogLine[]>) {
  const facts = runFacts(f.s, runId);
  if (!facts) throw new Error("no diagnosis is due");
  return runVerdict(facts, new Map(Object.entries(logs).map(([r, l]) => [Number(r), l])));
}

function diagnosisOf(f: Fleet, runId: string): StoredDiagnosis | null {
  return runDiagnosis(f.s, runId);
}

function configure(f: Fleet, diagnosis: unknown) {
  const config: FleetConfig = {
    id: FLEET_ID,
    name: "test",
    kind: "process",
    windows: [],
    draining: false,
    drainNote: null,
    diagnosis: FleetDiagnosis.parse(diagnosis),
  };
  f.decide({ type: "configure", config });
}

describe("a failed run's diagnosis", () => {
  it("comes from its logs: CUDA_OOM on the rank and line that raised it, with a hint, and is not retried", () => {
    const { f, id, run } = runningJob();
    f.report(id, "failed", { exitCode: 1 });
    expect(f.job(id).status).toBe("FAILED");
    expect(diagnosisOf(f, run.id)).toBeNull();
    f.decide({ type: "diagnosed", runId: run.id, verdict: verdictFor(f, run.id, { 0: OOM }) });
    const d = diagnosisOf(f, run.id)!;
    expect(d).toMatchObject({
      class: "CUDA_OOM",
      rank: 0,
      node: "gpu-a",
      line: { rank: 0, stream: "stderr", seq: 14, cursor: 104 },
      hint: CLASS_POLICY.CUDA_OOM.hint,
      action: { policy: "no_retry", retried: false, cordoned: null },
      from_logs: true,
    });
    expect(d.line?.text).toContain("CUDA out of memory");
    expect(d.action.why).toMatch(/not retried.*retry_on_user_failure/);
    f.advance(3_600_000);
    expect(f.job(id).status).toBe("FAILED");
    // The job's detail (GET /v1/jobs/:id) shows it on the run.
    expect(jobDetail(f.s, id)!.runs[0]!.diagnosis?.class).toBe("CUDA_OOM");
  });

  it("is retried when the job asks, even for a class that is not", () => {
    const { f, id, run } = runningJob({ retryOnUserFailure: true });
    f.report(id, "failed", { exitCode: 1 });
    f.decide({ type: "diagnosed", runId: run.id, verdict: verdictFor(f, run.id, { 0: OOM }) });
    expect(diagnosisOf(f, run.id)!.action).toMatchObject({ retried: true });
    expect(diagnosisOf(f, run.id)!.action.why).toMatch(/the job asks/);
    f.advance(RETRY_BASE);
    expect(f.job(id).status).not.toBe("FAILED");
    expect(f.currentRun(id).id).not.toBe(run.id);
  });

  it("holds the FAILED event's webhook until the diagnosis, which then carries it", () => {
    const { f, id, run } = runningJob();
    f.report(id, "failed", { exitCode: 1 });
    const failed = f.s.outbox.find(
      (e) => e.kind === "event" && e.event.job_id === id && e.event.to_status === "FAILED",
    );
    expect(failed?.kind === "event" && JSON.parse(failed.event.detail).diagnosis).toBe("pending");
    expect(f.s.outbox.some((e) => e.kind === "diagnosed")).toBe(false);
    f.decide({ type: "diagnosed", runId: run.id, verdict: verdictFor(f, run.id, { 0: OOM }) });
    const sent = f.s.outbox.filter((e) => e.kind === "diagnosed");
    expect(sent).toHaveLength(1);
    const e = sent[0]!;
    if (e.kind !== "diagnosed" || failed?.kind !== "event") throw new Error("unreachable");
    expect(e.event.seq).toBe(failed.event.seq);
    expect(JSON.parse(e.event.detail).diagnosis.class).toBe("CUDA_OOM");
    expect(e.job.run_id).toBe(run.id);
  });

  it("is made once: a repeated or late verdict changes nothing", () => {
    const { f, id, run } = runningJob();
    f.report(id, "failed", { exitCode: 1 });
    const verdict = verdictFor(f, run.id, { 0: OOM });
    f.decide({ type: "diagnosed", runId: run.id, verdict });
    f.decide({ type: "diagnosed", runId: run.id, verdict: { ...verdict, class: "NETWORK" } });
    f.advance(DIAGNOSIS_SETTLE_MS);
    expect(diagnosisOf(f, run.id)!.class).toBe("CUDA_OOM");
    expect(f.s.outbox.filter((e) => e.kind === "diagnosed")).toHaveLength(1);
    expect(f.s.meta("failures_total")).toBe(JSON.stringify({ CUDA_OOM: 1 }));
  });

  it("without the logs (the Run DO did not answer) rests on what the agent saw: an OOM kill is HOST_OOM", () => {
    const { f, id, run } = runningJob({ maxRetries: 0 });
    f.report(id, "exited", { exitCode: 137, reason: "OOM-killed by the host", infra: true });
    f.advance(DIAGNOSIS_SETTLE_MS - 1);
    expect(diagnosisOf(f, run.id)).toBeNull();
    f.advance(1);
    expect(diagnosisOf(f, run.id)).toMatchObject({
      class: "HOST_OOM",
      rank: 0,
      from_logs: false,
      line: null,
      action: { policy: "retry_if_infra", retried: false },
    });
    expect(diagnosisOf(f, run.id)!.action.why).toMatch(/retries are spent \(0 of lifecycle.max_retries 0\)/);
  });

  it("a node lost is NODE_LOST and retried with backoff", () => {
    const { f, id, nodes, run } = runningJob();
    f.decide({ type: "node_lost", nodeId: nodes[0]! });
    f.advance(f.settings.lostGraceMs);
    expect(f.job(id).status).toBe("FAILED");
    f.advance(DIAGNOSIS_SETTLE_MS);
    expect(diagnosisOf(f, run.id)).toMatchObject({ class: "NODE_LOST", action: { retried: true } });
    f.advance(RETRY_BASE);
    expect(f.currentRun(id).id).not.toBe(run.id);
  });

  it("a run at its time limit is TIMEOUT, never retried", () => {
    const f = new Fleet();
    f.agent("gpu-a", 1);
    const id = f.submit({ maxRuntimeSeconds: 60, maxRetries: 3, retryOnUserFailure: true });
    f.report(id, "started");
    const run = f.currentRun(id);
    f.advance(60_000 + DIAGNOSIS_SETTLE_MS);
    expect(diagnosisOf(f, run.id)).toMatchObject({ class: "TIMEOUT", action: { retried: false } });
    f.advance(3_600_000);
    expect(f.job(id).status).toBe("FAILED");
  });

  it("a GPU failure is retried on another node, and its node cordoned with the diagnosis as its note", () => {
    const { f, id, run } = runningJob({ nodes: 2 });
    const ranks = f.s.ranks(run.id);
    const bad = ranks.find((r) => r.rank === 1)!.node_id;
    f.report(id, "failed", { exitCode: 1 });
    const xid = lines(
      "step 900 loss 1.02",
      "NVRM: Xid (PCI:0000:3b:00): 79, pid=2211, GPU has fallen off the bus.",
      "RuntimeError: CUDA error: unspecified launch failure",
    );
    const echo = lines("[E ProcessGroupNCCL.cpp:1182] [Rank 0] Watchdog caught collective operation timeout");
    const timed = echo.map((l) => ({ ...l, ts: l.ts + 60_000 }));
    f.decide({ type: "diagnosed", runId: run.id, verdict: verdictFor(f, run.id, { 0: timed, 1: xid }) });
    const d = diagnosisOf(f, run.id)!;
    const badName = f.s.node(bad)!.name;
    expect(d).toMatchObject({ class: "GPU_HARDWARE", rank: 1, node: badName });
    expect(d.action).toMatchObject({ policy: "retry_elsewhere", retried: true, cordoned: badName });
    const view = nodeView(f.s, f.s.node(bad)!);
    expect(view.cordoned).toBe(true);
    expect(view.cordon_note).toMatch(/GPU_HARDWARE in run .* \(rank 1\): NVRM: Xid/);
    f.advance(RETRY_BASE);
    const next = f.currentRun(id);
    expect(next.id).not.toBe(run.id);
    expect(f.s.ranks(next.id).map((r) => r.node_id)).not.toContain(bad);
  });
});

describe("a fleet's own rules", () => {
  it("are tried first: a pattern names the class and its hint and action replace the table's", () => {
    const { f, id, run } = runningJob();
    configure(f, {
      rules: [
        {
          pattern: "(?i)lustre.*stale file handle",
          class: "NETWORK",
          hint: "The Lustre mount went away: ask #storage.",
          action: "retry",
        },
      ],
    });
    f.report(id, "failed", { exitCode: 1 });
    const log = lines(
      "LUSTRE: client evicted, Stale file handle on /scratch",
      "Traceback (most recent call last):",
      "OSError: [Errno 116] Stale file handle",
    );
    f.decide({ type: "diagnosed", runId: run.id, verdict: verdictFor(f, run.id, { 0: log }) });
    expect(diagnosisOf(f, run.id)).toMatchObject({
      class: "NETWORK",
      rule: 0,
      hint: "The Lustre mount went away: ask #storage.",
      action: { policy: "retry", retried: true },
      line: { seq: 10 },
    });
  });

  it("an exit code rule, and a fleet's override of a class's action", () => {
    const { f, id, run } = runningJob();
    configure(f, { rules: [{ exit_code: 42, class: "DISK_FULL" }], actions: { DISK_FULL: "no_retry" } });
    f.report(id, "failed", { exitCode: 42 });
    f.advance(DIAGNOSIS_SETTLE_MS);
    expect(diagnosisOf(f, run.id)).toMatchObject({
      class: "DISK_FULL",
      rule: 0,
      hint: CLASS_POLICY.DISK_FULL.hint,
      action: { policy: "no_retry", retried: false },
    });
  });

  it("are validated when saved: a pattern that does not compile, matches every line, or a rule naming both or neither", () => {
    const problems = (r: unknown) => DiagnosisRule.safeParse(r).error?.issues.map((i) => i.message) ?? [];
    expect(problems({ pattern: "([", class: "CUDA_OOM" })[0]).toMatch(/not a valid regular expression/);
    expect(problems({ pattern: ".*", class: "CUDA_OOM" })[0]).toMatch(/matches an empty line/);
    expect(problems({ class: "CUDA_OOM" })[0]).toMatch(/either a pattern or an exit_code/);
    expect(problems({ pattern: "x", exit_code: 1, class: "CUDA_OOM" })[0]).toMatch(/either a pattern/);
    expect(problems({ pattern: "x", class: "NOT_A_CLASS" })).toHaveLength(1);
    expect(problems({ pattern: "x", class: "CUDA_OOM", action: "sometimes" })).toHaveLength(1);
    expect(problems({ pattern: "(?i)nvlink error", class: "NCCL_ERROR", action: "retry" })).toEqual([]);
    expect(FleetDiagnosis.safeParse({ actions: { NOT_A_CLASS: "retry" } }).success).toBe(false);
  });
});

describe("the class table", () => {
  it("has a hint and an action for every class; the issue's retry rules hold", () => {
    for (const c of FAILURE_CLASSES) expect(CLASS_POLICY[c].hint.length).toBeGreaterThan(20);
    for (const c of ["CUDA_OOM", "IMPORT_ERROR", "FILE_NOT_FOUND", "HF_ACCESS", "USER_EXCEPTION"] as const)
      expect(CLASS_POLICY[c].action).toBe("no_retry");
    for (const c of ["NODE_LOST", "NETWORK", "NCCL_ERROR"] as const)
      expect(CLASS_POLICY[c].action).toBe("retry");
    expect(CLASS_POLICY.GPU_HARDWARE.action).toBe("retry_elsewhere");
  });

  it("is the one docs/operations.md prints: every class, with its action", () => {
    const doc = readFileSync(resolve(import.meta.dirname, "../../docs/operations.md"), "utf8");
    const rows = [...doc.matchAll(/^\| `([A-Z_]+)` +\|[^|]+\| `([a-z_]+)` +\|$/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(FAILURE_CLASSES.map((c) => [c, CLASS_POLICY[c].action]));
  });
});

describe("a live anomaly", () => {
  const hang = { class: "HANG" as const, summary: "no new step for 600 s after step 40", step: 40, at: 0 };
  const nan = {
    class: "NAN_LOSS" as const,
    summary: "train/loss became nan at step 12",
    step: 12,
    key: "train/loss",
    value: "nan",
    at: 0,
  };
  const anomalyEvents = (f: Fleet, id: string) =>
    f.s.outbox.flatMap((e) =>
      e.kind === "event" && e.event.job_id === id && e.event.edge === "anomaly" ? [e] : [],
    );

  it("warns by default: an event (the job.anomaly webhook) once per kind, and the run goes on", () => {
    const { f, id, run } = runningJob();
    expect(f.decide({ type: "anomaly", runId: run.id, anomaly: { ...hang, policy: "warn" } }).result).toBe(
      "warned",
    );
    expect(f.decide({ type: "anomaly", runId: run.id, anomaly: { ...hang, policy: "warn" } }).result).toBe(
      "ignored",
    );
    // Another stall, at a later step, is another anomaly.
    const later = { ...hang, step: 90, policy: "warn" as const };
    expect(f.decide({ type: "anomaly", runId: run.id, anomaly: later }).result).toBe("warned");
    const events = anomalyEvents(f, id);
    expect(events).toHaveLength(2);
    expect(events[0]!.job).toBeDefined();
    expect(events[0]!.event).toMatchObject({
      from_status: "RUNNING",
      to_status: "RUNNING",
      actor: "system:monitor",
    });
    expect(JSON.parse(events[0]!.event.detail)).toMatchObject({
      run_id: run.id,
      anomaly: { class: "HANG", step: 40, policy: "warn" },
    });
    expect(f.job(id).status).toBe("RUNNING");
    f.checkInvariants();
  });

  it("under on_anomaly stop: the run is stopped (its runner told why) and the job FAILED with the class, a NaN not retried", () => {
    const { f, id, run } = runningJob({ retryOnUserFailure: false });
    expect(f.decide({ type: "anomaly", runId: run.id, anomaly: { ...nan, policy: "stop" } }).result).toBe(
      "stopped",
    );
    expect(f.job(id).status).toBe("FAILED");
    expect(JSON.parse(f.s.meta(`notice:${run.id}`)!)).toMatchObject({ cause: "stopped" });
    expect(f.s.openCommands(f.s.ranks(run.id)[0]!.node_id).some((c) => c.kind === "stop")).toBe(true);
    f.advance(DIAGNOSIS_SETTLE_MS);
    expect(diagnosisOf(f, run.id)).toMatchObject({ class: "NAN_LOSS", action: { retried: false } });
    f.advance(3_600_000);
    expect(f.job(id).status).toBe("FAILED");
  });

  it("a hang stopped is HANG, and retried", () => {
    const { f, id, run } = runningJob();
    f.decide({ type: "anomaly", runId: run.id, anomaly: { ...hang, at: f.now, policy: "stop" } });
    f.report(id, "stopped", { exitCode: 143 });
    f.advance(DIAGNOSIS_SETTLE_MS);
    expect(diagnosisOf(f, run.id)).toMatchObject({ class: "HANG", action: { retried: true } });
    f.advance(RETRY_BASE);
    expect(f.currentRun(id).id).not.toBe(run.id);
  });

  it("of a run that is no longer the running one changes nothing", () => {
    const { f, id, run } = runningJob();
    f.report(id, "failed", { exitCode: 1 });
    expect(f.decide({ type: "anomaly", runId: run.id, anomaly: { ...nan, policy: "stop" } }).result).toBe(
      "ignored",
    );
    expect(anomalyEvents(f, id)).toEqual([]);
  });
});

describe("what only the agent saw", () => {
  it.each([
    ["OOM-killed by the host", "HOST_OOM"],
    ["head: container ray-head was killed for exceeding its memory limit (OOMKilled)", "HOST_OOM"],
    ["ran out of memory (OUT_OF_MEMORY)", "HOST_OOM"],
    ["lost a node (NODE_FAIL)", "NODE_LOST"],
  ])("%s is %s", (reason, cls) => {
    const { f, id, run } = runningJob();
    f.report(id, "exited", { exitCode: null, reason, infra: true });
    f.advance(DIAGNOSIS_SETTLE_MS);
    expect(diagnosisOf(f, run.id)).toMatchObject({ class: cls, action: { retried: true } });
  });
});

describe("a per_gpu run", () => {
  it("is diagnosed over every process's global rank, each on its node", () => {
    const f = new Fleet();
    for (const n of ["gpu-a", "gpu-b"]) f.agent(n, 2);
    const id = f.submit({ nodes: 2, gpus: 2, processes: "per_gpu", maxRetries: 2 });
    f.report(id, "started");
    const run = f.currentRun(id);
    const second = f.s.node(f.s.ranks(run.id).find((r) => r.rank === 1)!.node_id)!.name;
    f.decide({
      type: "run_event",
      input: {
        runId: run.id,
        epoch: run.epoch,
        rank: 1,
        event: "failed",
        exitCode: 1,
        reason: "local rank 1 (rank 3): the training exited with code 1",
        infra: false,
        source: "runner",
      },
    });
    const oom = OOM.map((l) => ({ ...l, ts: l.ts + 5_000 }));
    const echo = lines("RuntimeError: [../gloo/transport/tcp/pair.cc:598] Connection closed by peer").map(
      (l) => ({ ...l, ts: l.ts + 9_000 }),
    );
    f.decide({
      type: "diagnosed",
      runId: run.id,
      verdict: verdictFor(f, run.id, { 0: echo, 1: echo, 3: oom }),
    });
    expect(diagnosisOf(f, run.id)).toMatchObject({
      class: "CUDA_OOM",
      rank: 3,
      node: second,
      line: { rank: 3, seq: 14 },
      action: { retried: false },
    });
    expect(runFacts(f.s, run.id)).toBeNull();
  });
});

describe("a failure its runner reported first", () => {
  const runnerFailed = (f: Fleet, run: { id: string; epoch: number }) =>
    f.decide({
      type: "run_event",
      input: {
        runId: run.id,
        epoch: run.epoch,
        rank: 0,
        event: "failed",
        exitCode: 137,
        reason: "the training was killed by SIGKILL",
        infra: false,
        source: "runner",
      },
    });

  it("waits for the agent's word (docker's OOMKilled) and takes it: HOST_OOM, retried", () => {
    const { f, id, run } = runningJob();
    runnerFailed(f, run);
    expect(f.job(id).status).toBe("FAILED");
    f.advance(DIAGNOSIS_SETTLE_MS + 3_000);
    expect(diagnosisOf(f, run.id)).toBeNull();
    f.report(id, "exited", { exitCode: 137, reason: "OOM-killed by the host", infra: true });
    f.advance(0);
    expect(diagnosisOf(f, run.id)).toMatchObject({ class: "HOST_OOM", action: { retried: true } });
  });

  it("is diagnosed without it once AGENT_WAIT_MS passed (an agent that never says)", () => {
    const { f, run } = runningJob();
    runnerFailed(f, run);
    f.advance(AGENT_WAIT_MS - 1);
    expect(diagnosisOf(f, run.id)).toBeNull();
    f.advance(1_000);
    expect(diagnosisOf(f, run.id)).toMatchObject({ class: "SIGNAL", action: { retried: false } });
  });
});
