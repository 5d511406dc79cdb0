/**
 * A silent agent does not fail its runs at once: they stay RUNNING while its node is `lost`; only when
 * the grace period (SF_AGENT_LOST_GRACE_SECONDS, 2 s in tests) ends do they fail as infrastructure
 * failures, freeing the GPUs. An agent back within the grace keeps its runs.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { testEnv } from "./test-env.js";

let op = "";

beforeAll(async () => {
  op = await createUser("lost-op");
  await publishTestCapsule();
});

async function runningJobOn(fleet: string) {
  const f = await createFleet(fleet, { kind: "process" });
  const { credential } = await enroll(fleet);
  const agent = await ScriptedAgent.connect(credential);
  agent.hello(inventory(`${fleet}-box`, 2));
  await agent.next("welcome");
  const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet, gpus: 2 }));
  const launch = await agent.next("launch");
  agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
  const r = agent.report(launch.request, "launched");
  await agent.next("ack", (x) => x.ref === r);
  const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(f.id));
  return { agent, credential, jobId: sub.body.job.id as string, launch, stub };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function view(fleet: string, jobId: string) {
  const [j, f] = await Promise.all([
    api(op, "GET", `/v1/jobs/${jobId}`),
    api(ADMIN, "GET", `/v1/fleets/${fleet}`),
  ]);
  return { job: j.body, fleet: f.body };
}

describe("lost agents", () => {
  it("keeps a silent agent's run RUNNING during the grace period, then fails it as an infrastructure failure", async () => {
    const { agent, jobId, stub } = await runningJobOn("lost-a");
    agent.close();
    await sleep(100);
    const during = await view("lost-a", jobId);
    expect(during.job.job.status).toBe("RUNNING");
    expect(during.fleet.nodes[0]).toMatchObject({ status: "lost", lost_since: expect.any(String) });
    expect(during.fleet.totals.allocated).toBe(2);

    await sleep(2100);
    await runDurableObjectAlarm(stub);
    const after = await view("lost-a", jobId);
    expect(after.job.job.status).toBe("FAILED");
    expect(after.job.events.at(-1)).toMatchObject({ edge: "failed", detail: { infra: true } });
    expect(after.job.events.at(-1).detail.reason).toMatch(/silent for more than 2 s/);
    expect(after.fleet.totals.allocated).toBe(0);
  });

  it("keeps the run when the agent is back within the grace period, even after the grace has passed", async () => {
    const { agent, credential, jobId, launch, stub } = await runningJobOn("lost-b");
    agent.close();
    await sleep(100);
    const back = await ScriptedAgent.connect(credential);
    const r = launch.request;
    back.hello(inventory("lost-b-box", 2), [
      { run_id: r.run_id, epoch: r.epoch, rank: 0, state: "launched", exit_code: null, reason: null },
    ]);
    expect((await back.next("welcome")).expected).toHaveLength(1);
    await sleep(2100);
    await runDurableObjectAlarm(stub);
    const after = await view("lost-b", jobId);
    expect(after.job.job.status).toBe("RUNNING");
    expect(after.fleet.nodes[0].status).toBe("ready");
    expect(after.fleet.totals.allocated).toBe(2);
    back.close();
  });
});
