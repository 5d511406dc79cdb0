/**
 * Tier 2: a time window that closes by the clock, not by a configuration change. The Fleet DO's one
 * alarm (the `windows` timer) must wake at the window's end, stop the running job through its agent,
 * and record why; reopening resumes it. Waits for a real minute boundary (at most ~2 minutes).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { HEARTBEAT_PING } from "../../contract/agent-frames.schema.js";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { testEnv } from "./test-env.js";

let op = "";

beforeAll(async () => {
  op = await createUser("window-op");
  await api(ADMIN, "PUT", "/v1/users/window-op/quota", { max_gpus: 8, max_jobs: 10, daily_gpu_hours: 100 });
  await publishTestCapsule();
});

const hhmm = (t: number) => new Date(t).toISOString().slice(11, 16);

describe("time windows (Fleet DO alarm)", () => {
  it("at the window's end the running job is stopped through its agent (STOPPED, system:window); reopening re-queues it", async () => {
    const now = Date.now();
    // The window opened a minute ago and closes at the next minute boundary (or the one after, so the
    // job has time to start first).
    const minute = Math.floor(now / 60_000) * 60_000;
    const closesAt = minute + (now - minute > 40_000 ? 120_000 : 60_000);
    const day = new Date(now).getUTCDay();
    await createFleet("win-clock", {
      kind: "process",
      windows: [{ days: [day], start: hhmm(minute - 60_000), end: hhmm(closesAt), tz: "UTC" }],
    });
    const agent = await ScriptedAgent.connect((await enroll("win-clock")).credential);
    agent.hello(inventory("box-w", 2));
    await agent.next("welcome");
    // Like forgelet, ping while waiting, or the fleet would rightly declare this silent agent lost.
    const heartbeat = setInterval(() => agent.sendRaw(HEARTBEAT_PING), 5000);
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "win-clock", gpus: 1 }));
    expect(sub.status).toBe(201);
    const launch = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
    const started = agent.report(launch.request, "launched");
    await agent.next("ack", (f) => f.ref === started);
    expect((await api(op, "GET", `/v1/jobs/${sub.body.job.id}`)).body.job.status).toBe("RUNNING");

    // Nothing happens before the window's end. Then the Fleet DO's alarm (armed for it: this pool runs
    // alarms on request, so the test runs the one that is due) stops the job.
    const fleetId = (await api(ADMIN, "GET", "/v1/fleets/win-clock")).body.fleet.id;
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(fleetId));
    await new Promise((r) => setTimeout(r, Math.max(0, closesAt - Date.now() - 2000)));
    expect(agent.frames.some((f) => f.type === "stop")).toBe(false);
    await new Promise((r) => setTimeout(r, Math.max(0, closesAt - Date.now() + 200)));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const stop = await agent.next("stop");
    expect(stop).toMatchObject({ run_id: launch.request.run_id, grace_seconds: 30 });
    const stopped = (await api(op, "GET", `/v1/jobs/${sub.body.job.id}`)).body;
    expect(stopped.job.status).toBe("STOPPED");
    const edge = stopped.events.at(-1);
    expect(edge).toMatchObject({ to: "STOPPED", edge: "stop_running", actor: "system:window" });
    expect(edge.detail.reason).toMatch(/window closed; it resumes when the window opens at /);
    // The agent confirms (the workload checkpointed and exited): GPUs are free.
    const fin = agent.report(launch.request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === fin);
    expect((await api(ADMIN, "GET", "/v1/fleets/win-clock")).body.totals.allocated).toBe(0);

    // The admin opens the fleet all week: the window-stopped job is resumed as a new run.
    const open = await api(ADMIN, "PATCH", "/v1/fleets/win-clock", {
      windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "00:00", tz: "UTC" }],
    });
    expect(open.status).toBe(200);
    const again = await agent.next("launch", (f) => f.request.run_id !== launch.request.run_id);
    expect(again.request.attempt).toBe(2);
    const events = (await api(op, "GET", `/v1/jobs/${sub.body.job.id}`)).body.events;
    expect(
      events.find((e: { from: string; to: string }) => e.from === "STOPPED" && e.to === "QUEUED"),
    ).toMatchObject({ actor: "system:window", detail: { reason: "its window reopened" } });
    clearInterval(heartbeat);
    agent.close();
  }, 180_000);
});
