/**
 * Auto-retry: infrastructure failures re-queue the job after a backoff (SF_RETRY_BACKOFF_SECONDS, 1 s in
 * tests) while `lifecycle.max_retries` lasts; each attempt is a new run with its own id and epoch. A
 * failure of the workload itself is not retried unless the spec asks.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { testEnv } from "./test-env.js";

let op = "";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  op = await createUser("retry-op");
  await api(ADMIN, "PUT", "/v1/users/retry-op/quota", { max_gpus: 64, max_jobs: 50, daily_gpu_hours: 1000 });
  await publishTestCapsule();
});

async function setup(fleet: string, lifecycle: { max_retries: number; retry_on_user_failure: boolean }) {
  const f = await createFleet(fleet, { kind: "process" });
  const { credential } = await enroll(fleet);
  const agent = await ScriptedAgent.connect(credential);
  agent.hello(inventory(`${fleet}-box`, 2));
  await agent.next("welcome");
  const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet, gpus: 1, lifecycle }));
  expect(sub.status).toBe(201);
  return { agent, jobId: sub.body.job.id as string, stub: testEnv.FLEET.get(testEnv.FLEET.idFromName(f.id)) };
}

/** Takes the next launch (after index `from`), runs it, and ends it with `exit`. */
async function runAndFail(
  agent: ScriptedAgent,
  from: number,
  exit: { exit_code: number | null; infra: boolean },
) {
  const launch = await agent.next("launch", () => true, from);
  agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
  agent.report(launch.request, "launched");
  const r = agent.report(launch.request, "exited", { ...exit, reason: exit.infra ? "node failure" : "bug" });
  await agent.next("ack", (f) => f.ref === r);
  return launch;
}

describe("auto-retry", () => {
  it("retries an infrastructure failure as new runs until the budget is spent, then stays FAILED", async () => {
    const { agent, jobId, stub } = await setup("retry-infra", {
      max_retries: 2,
      retry_on_user_failure: false,
    });
    const seen: Array<{ run: string; epoch: number; attempt: number }> = [];
    for (let i = 0; i < 3; i++) {
      const from = agent.frames.length;
      const l = await runAndFail(agent, from, { exit_code: null, infra: true });
      seen.push({ run: l.request.run_id, epoch: l.request.epoch, attempt: l.request.attempt });
      expect((await api(op, "GET", `/v1/jobs/${jobId}`)).body.job.status).toBe("FAILED");
      await sleep(1100 * 2 ** i);
      await runDurableObjectAlarm(stub);
    }
    expect(seen.map((s) => s.attempt)).toEqual([1, 2, 3]);
    expect(new Set(seen.map((s) => s.run)).size).toBe(3);
    expect(seen[2]!.epoch).toBeGreaterThan(seen[0]!.epoch);
    const final = (await api(op, "GET", `/v1/jobs/${jobId}`)).body;
    expect(final.job.status).toBe("FAILED");
    expect(final.runs).toHaveLength(3);
    expect(final.events.filter((e: { edge: string }) => e.edge === "retry")).toHaveLength(2);
    agent.close();
  }, 30_000);

  it("does not retry a failure of the workload itself", async () => {
    const { agent, jobId, stub } = await setup("retry-user", {
      max_retries: 2,
      retry_on_user_failure: false,
    });
    await runAndFail(agent, 0, { exit_code: 1, infra: false });
    await sleep(1200);
    await runDurableObjectAlarm(stub);
    const j = (await api(op, "GET", `/v1/jobs/${jobId}`)).body;
    expect(j.job.status).toBe("FAILED");
    expect(j.runs).toHaveLength(1);
    agent.close();
  });

  it("retries a workload failure when the spec asks for it", async () => {
    const { agent, jobId, stub } = await setup("retry-asked", {
      max_retries: 1,
      retry_on_user_failure: true,
    });
    await runAndFail(agent, 0, { exit_code: 1, infra: false });
    await sleep(1200);
    await runDurableObjectAlarm(stub);
    const second = await agent.next("launch", (f) => f.request.attempt === 2);
    expect(second.request.job_id).toBe(jobId);
    expect((await api(op, "GET", `/v1/jobs/${jobId}`)).body.job.status).toBe("SUBMITTED");
    agent.close();
  });
});
