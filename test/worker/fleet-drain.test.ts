/**
 * Tier 2: the maintenance drain's edges with a scripted agent — what a drain does to a job that is still
 * launching (it becomes a blocker, then is paused as soon as it runs), to a non-resumable one (a blocker
 * that keeps running), and that a person acting on a drained job takes it over.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";

let op = "";

beforeAll(async () => {
  op = await createUser("drain-op");
  await api(ADMIN, "PUT", "/v1/users/drain-op/quota", { max_gpus: 16, max_jobs: 20, daily_gpu_hours: 100 });
  await publishTestCapsule();
});

async function resumableSpec(fleet: string) {
  const spec = await customSpec({ fleet, gpus: 1 });
  spec.lifecycle = { ...spec.lifecycle, resumable: true };
  return spec;
}

const drain = (fleet: string) =>
  api(ADMIN, "POST", `/v1/fleets/${fleet}/maintenance/drain`, { note: "kernel upgrade" });
const status = async (id: string) => (await api(op, "GET", `/v1/jobs/${id}`)).body.job.status;

describe("maintenance drain (Fleet DO)", () => {
  it("a job still launching is a blocker, then paused as soon as it runs; a non-resumable one keeps running as a blocker", async () => {
    await createFleet("dr-launch", { kind: "docker" });
    const agent = await ScriptedAgent.connect((await enroll("dr-launch")).credential);
    agent.hello(inventory("box-d", 2));
    await agent.next("welcome");
    const launching = (await api(op, "POST", "/v1/jobs", await resumableSpec("dr-launch"))).body.job.id;
    const custom = (await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "dr-launch", gpus: 1 }))).body
      .job.id;
    const l1 = await agent.next("launch", (f) => f.request.job_id === launching);
    const l2 = await agent.next("launch", (f) => f.request.job_id === custom);
    for (const l of [l1, l2]) agent.send({ v: 1, type: "ack", id: agent.id(), ref: l.id });
    const r2 = agent.report(l2.request, "launched");
    await agent.next("ack", (f) => f.ref === r2);
    expect(await status(custom)).toBe("RUNNING");
    expect(await status(launching)).toBe("SUBMITTED");

    const d = await drain("dr-launch");
    expect(d.status).toBe(200);
    expect(d.body.paused).toEqual([]);
    expect(d.body.blockers).toEqual([
      expect.objectContaining({
        job_id: launching,
        status: "SUBMITTED",
        reason: expect.stringMatching(/launching/),
      }),
      expect.objectContaining({
        job_id: custom,
        status: "RUNNING",
        reason: expect.stringMatching(/cannot resume/),
      }),
    ]);

    // It starts: the drain pauses it at once, through its agent.
    const r1 = agent.report(l1.request, "launched");
    await agent.next("ack", (f) => f.ref === r1);
    expect(await status(launching)).toBe("PAUSED");
    const stop = await agent.next("stop", (f) => f.run_id === l1.request.run_id);
    expect(stop.reason).toMatch(/draining: kernel upgrade/);
    const events = (await api(op, "GET", `/v1/jobs/${launching}`)).body.events;
    expect(events.at(-1)).toMatchObject({
      from: "RUNNING",
      to: "PAUSED",
      edge: "pause",
      actor: "system:drain",
    });
    const fin = agent.report(l1.request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === fin);
    const m = (await api(ADMIN, "GET", "/v1/fleets/dr-launch/maintenance")).body;
    expect(m.paused).toEqual([launching]);
    expect(m.blockers.map((b: { job_id: string }) => b.job_id)).toEqual([custom]);
    expect(await status(custom)).toBe("RUNNING");
    agent.close();
  });

  it("a person who resumes a drained job takes it over: it waits with FLEET_DRAINING, and the drain's resume leaves it alone", async () => {
    await createFleet("dr-takeover", { kind: "docker" });
    const agent = await ScriptedAgent.connect((await enroll("dr-takeover")).credential);
    agent.hello(inventory("box-t", 1));
    await agent.next("welcome");
    const running = (await api(op, "POST", "/v1/jobs", await resumableSpec("dr-takeover"))).body.job.id;
    const launch = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
    const r = agent.report(launch.request, "launched");
    await agent.next("ack", (f) => f.ref === r);
    const queued = (await api(op, "POST", "/v1/jobs", await resumableSpec("dr-takeover"))).body.job.id;

    const d = await drain("dr-takeover");
    expect(d.body).toMatchObject({ paused: [running], held: [queued] });
    const fin = agent.report(launch.request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === fin);
    // The owner resumes the held job by hand during the drain: it waits, and is theirs now.
    const mine = await api(op, "POST", `/v1/jobs/${queued}/resume`);
    expect(mine.body.job.status).toBe("QUEUED");
    expect(mine.body.job.pending_reasons.map((p: { code: string }) => p.code)).toContain("FLEET_DRAINING");
    const after = await api(ADMIN, "POST", "/v1/fleets/dr-takeover/maintenance/resume");
    expect(after.body.resumed).toEqual([running]);
    // Only one GPU: the job the drain paused first (it was submitted first) runs first.
    const next = await agent.next("launch", (f) => f.id !== launch.id);
    expect(next.request.job_id).toBe(running);
    expect(next.request.attempt).toBe(2);
    agent.close();
  });
});
