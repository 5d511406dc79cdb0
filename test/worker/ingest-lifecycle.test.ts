/**
 * Lifecycle reports from a run's runner reach the job through the Fleet DO: started makes the job
 * RUNNING, succeeded or failed ends it and releases its GPUs; a stale epoch changes nothing.
 */
import { describe, expect, it } from "vitest";
import { api } from "./helpers.js";
import { fleetTotals, ingest, runToken, startRun } from "./ingest-helpers.js";

async function status(op: string, jobId: string): Promise<string> {
  return (await api(op, "GET", `/v1/jobs/${jobId}`)).body.job.status;
}

describe("lifecycle ingest", () => {
  it("moves the job to RUNNING on started and to SUCCEEDED on succeeded, releasing its GPUs", async () => {
    const f = await startRun("lc-a");
    expect(await status(f.op, f.jobId)).toBe("SUBMITTED");
    expect((await fleetTotals(f.fleet)).allocated).toBe(1);

    const started = await ingest(f.token, "/lifecycle", {
      run_id: f.runId,
      event: "started",
      ts: "2026-11-01T10:00:00.000Z",
    });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ outcome: "applied", stop: false, run_over: false });
    expect(await status(f.op, f.jobId)).toBe("RUNNING");
    // A repeat of a report that still applies answers `applied` again and changes nothing.
    const again = await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started" });
    expect(again.body).toMatchObject({ outcome: "applied", stop: false, run_over: false });
    expect(await status(f.op, f.jobId)).toBe("RUNNING");

    const done = await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "succeeded", exit_code: 0 });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ outcome: "applied", run_over: true });
    const detail = await api(f.op, "GET", `/v1/jobs/${f.jobId}`);
    expect(detail.body.job.status).toBe("SUCCEEDED");
    expect(detail.body.runs[0]).toMatchObject({ status: "SUCCEEDED", exit_code: 0 });
    expect(detail.body.runs[0].ended_at).not.toBeNull();
    expect((await fleetTotals(f.fleet)).allocated).toBe(0);
    // Once the run is over a report is `ignored`, and one claiming the workload runs is told to stop.
    const late = await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started" });
    expect(late.body).toMatchObject({ outcome: "ignored", stop: true, run_over: true });
    const lateEnd = await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "succeeded" });
    expect(lateEnd.body).toMatchObject({ outcome: "ignored", stop: false });
    expect(detail.body.events.map((e: { to: string }) => e.to)).toEqual([
      "QUEUED",
      "SUBMITTED",
      "PENDING",
      "RUNNING",
      "SUCCEEDED",
    ]);
  });

  it("fails the job with the runner's exit code and reason on failed", async () => {
    const f = await startRun("lc-b");
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started" });
    const failed = await ingest(f.token, "/lifecycle", {
      run_id: f.runId,
      event: "failed",
      exit_code: 3,
      reason: "loss went NaN",
    });
    expect(failed.status).toBe(200);
    const detail = await api(f.op, "GET", `/v1/jobs/${f.jobId}`);
    expect(detail.body.job.status).toBe("FAILED");
    expect(detail.body.runs[0]).toMatchObject({ status: "FAILED", exit_code: 3, reason: "loss went NaN" });
    expect((await fleetTotals(f.fleet)).allocated).toBe(0);
  });

  it("is idempotent: a replayed report changes nothing", async () => {
    const f = await startRun("lc-c");
    for (let i = 0; i < 2; i++) {
      const r = await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started" });
      expect(r.status).toBe(200);
    }
    const events = (await api(f.op, "GET", `/v1/jobs/${f.jobId}`)).body.events as Array<{ to: string }>;
    expect(events.filter((e) => e.to === "RUNNING")).toHaveLength(1);
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "succeeded" });
    const again = await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "succeeded" });
    expect(again.body.outcome).toBe("ignored");
    expect(await status(f.op, f.jobId)).toBe("SUCCEEDED");
  });

  it("refuses a report under a stale epoch with CONFLICT and leaves the job alone", async () => {
    const f = await startRun("lc-d");
    const stale = await runToken({ ...f, epoch: f.epoch + 100 });
    const r = await ingest(stale, "/lifecycle", { run_id: f.runId, event: "succeeded" });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("CONFLICT");
    expect(await status(f.op, f.jobId)).toBe("SUBMITTED");
    expect((await fleetTotals(f.fleet)).allocated).toBe(1);
  });
});
