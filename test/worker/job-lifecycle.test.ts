/**
 * Stop, pause and resume go through the Fleet DO and the one transition table. Every status the ledger
 * ever records is a legal edge, and GPUs held always equal the GPUs of jobs that hold them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findEdge, type JobState } from "../../contract/job-states.js";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";
import { testEnv } from "./test-env.js";

describe("job lifecycle through the API", () => {
  it("holds, resumes, dispatches, stops and resumes again with a new run, releasing GPUs each time", async () => {
    const op = await createUser("life-a");
    await createFleet("life-a");
    const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "life-a", gpus: 4 }));
    const id = r.body.job.id as string;

    expect((await api(op, "POST", `/v1/jobs/${id}/pause`)).body.job.status).toBe("PAUSED");
    expect((await api(op, "POST", `/v1/jobs/${id}/resume`)).body.job.status).toBe("QUEUED");
    await registerNode("life-a", "n1", 8);
    const running = await api(op, "GET", `/v1/jobs/${id}`);
    expect(running.body.job.status).toBe("SUBMITTED");

    const stopped = await api(op, "POST", `/v1/jobs/${id}/stop`, { reason: "wrong lr" });
    expect(stopped.body.job.status).toBe("STOPPED");
    expect((await api(ADMIN, "GET", "/v1/fleets/life-a")).body.totals.allocated).toBe(0);

    const again = await api(op, "POST", `/v1/jobs/${id}/resume`);
    expect(again.body.job.status).toBe("SUBMITTED");
    const detail = await api(op, "GET", `/v1/jobs/${id}`);
    expect(detail.body.runs.map((x: { attempt: number }) => x.attempt)).toEqual([1, 2]);
    expect(detail.body.runs[0]).toMatchObject({ status: "STOPPED", reason: "stop by life-a" });
    expect(detail.body.runs[1].epoch).toBeGreaterThan(detail.body.runs[0].epoch);
    expect(detail.body.events.map((e: { edge: string }) => e.edge)).toEqual([
      "admitted",
      "hold",
      "resume",
      "dispatch",
      "stop_submitted",
      "resume_stopped",
      "dispatch",
    ]);
    expect(detail.body.events[4].detail).toEqual({ reason: "wrong lr" });

    const usage = await api(op, "GET", "/v1/usage");
    expect(usage.body).toMatchObject({ active_gpus: 4, active_jobs: 1 });
    const recorded = await testEnv.DB.prepare(
      "SELECT gpu_seconds FROM run_usage WHERE user_id = (SELECT id FROM users WHERE name = 'life-a')",
    ).all();
    expect(recorded.results).toHaveLength(1);
  });

  it("refuses an action its state does not allow, with INVALID_TRANSITION and no change", async () => {
    const op = await createUser("life-b");
    await createFleet("life-b");
    const id = (await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "life-b" }))).body.job
      .id as string;
    await api(op, "POST", `/v1/jobs/${id}/stop`);
    const pause = await api(op, "POST", `/v1/jobs/${id}/pause`);
    expect(pause.status).toBe(409);
    expect(pause.body.error.code).toBe("INVALID_TRANSITION");
    const resume = await api(op, "POST", `/v1/jobs/${id}/resume`);
    expect(resume.status).toBe(200);
    const queuedResume = await api(op, "POST", `/v1/jobs/${id}/resume`);
    expect(queuedResume.body.error.code).toBe("INVALID_TRANSITION");
    expect((await api(op, "GET", `/v1/jobs/${id}`)).body.job.status).toBe("QUEUED");
  });

  it("records only legal edges and keeps GPU accounting exact under random action sequences", async () => {
    const op = await createUser("life-c");
    await api(ADMIN, "PUT", "/v1/users/life-c/quota", {
      max_gpus: 1000,
      max_jobs: 1000,
      daily_gpu_hours: 1e6,
    });
    let round = 0;
    const Step = fc.oneof(
      fc.record({ kind: fc.constant("submit" as const), gpus: fc.constantFrom(1, 2, 4, 8) }),
      fc.record({
        kind: fc.constantFrom("stop" as const, "pause" as const, "resume" as const),
        pick: fc.nat(),
      }),
      fc.record({ kind: fc.constant("node" as const), gpus: fc.integer({ min: 1, max: 8 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { minLength: 3, maxLength: 18 }), async (steps) => {
        const fleet = `life-c-${round++}`;
        const f = await createFleet(fleet);
        const ids: string[] = [];
        let nodes = 0;
        for (const s of steps) {
          if (s.kind === "submit") {
            const r = await api(
              op,
              "POST",
              "/v1/jobs",
              await customSpec({ fleet, gpus: s.gpus, name: `j${ids.length}` }),
            );
            expect(r.status).toBe(201);
            ids.push(r.body.job.id);
          } else if (s.kind === "node") {
            await registerNode(fleet, `n${nodes++}`, s.gpus);
          } else if (ids.length > 0) {
            const r = await api(op, "POST", `/v1/jobs/${ids[s.pick % ids.length]}/${s.kind}`);
            expect([200, 409]).toContain(r.status);
            if (r.status === 409) expect(r.body.error.code).toBe("INVALID_TRANSITION");
          }
        }
        const events = await testEnv.DB.prepare(
          "SELECT e.job_id, e.seq, e.from_status, e.to_status FROM job_events e JOIN jobs j ON j.id = e.job_id WHERE j.fleet_id = ? ORDER BY e.job_id, e.seq",
        )
          .bind(f.id)
          .all<{ job_id: string; seq: number; from_status: JobState | null; to_status: JobState }>();
        const byJob = new Map<string, typeof events.results>();
        for (const e of events.results) byJob.set(e.job_id, [...(byJob.get(e.job_id) ?? []), e]);
        for (const [jobId, list] of byJob) {
          expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
          expect(list[0]).toMatchObject({ from_status: null, to_status: "QUEUED" });
          for (let i = 1; i < list.length; i++) {
            const e = list[i]!;
            expect(e.from_status, `${jobId} event ${e.seq}`).toBe(list[i - 1]!.to_status);
            expect(findEdge(e.from_status!, e.to_status), `${e.from_status} -> ${e.to_status}`).toBeDefined();
          }
        }
        const view = (await api(ADMIN, "GET", `/v1/fleets/${fleet}`)).body;
        const jobs = (await api(op, "GET", `/v1/jobs?fleet=${fleet}&limit=200`)).body.jobs as Array<{
          status: string;
          gpus: number;
        }>;
        const held = jobs
          .filter((j) => ["SUBMITTED", "PENDING", "RUNNING"].includes(j.status))
          .reduce((s, j) => s + j.gpus, 0);
        expect(view.totals.allocated).toBe(held);
        expect(view.totals.allocated).toBeLessThanOrEqual(view.totals.gpus);
      }),
      { numRuns: 10 },
    );
  });
});
