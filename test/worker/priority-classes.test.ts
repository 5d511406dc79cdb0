/**
 * Tier 2: priority classes through the real Worker, D1 and Fleet DO — the admin API, admission's coded
 * refusals, and a preemption seen by a scripted agent: the victim's stop frame with its class's grace,
 * its job queued again under the same id, the preemptor launched on the freed GPU, then the victim again.
 * The classes this file adds are its own (the built-ins other files schedule with are left as they are).
 */
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { signIn } from "./console-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";

let op = "";
let viewer = "";

beforeAll(async () => {
  op = await createUser("pc-op");
  viewer = await createUser("pc-viewer", "viewer");
  await api(ADMIN, "PUT", "/v1/users/pc-op/quota", { max_gpus: 16, max_jobs: 20, daily_gpu_hours: 100 });
  await publishTestCapsule();
});

afterAll(async () => {
  for (const name of ["pc-bulk", "pc-new"]) await api(ADMIN, "DELETE", `/v1/priority-classes/${name}`);
});

async function specOf(fleet: string, priorityClass?: string) {
  const spec = await customSpec({ fleet, gpus: 1 });
  spec.lifecycle = {
    max_retries: 2,
    retry_on_user_failure: false,
    resumable: true,
    ...(priorityClass ? { priority_class: priorityClass } : {}),
  };
  return spec;
}

describe("the priority classes API", () => {
  it("lists the five built-ins highest first, to anyone signed in", async () => {
    const r = await api(viewer, "GET", "/v1/priority-classes");
    expect(r.status).toBe(200);
    const names = r.body.priority_classes.map((c: { name: string }) => c.name);
    expect(names.filter((n: string) => !n.startsWith("pc-"))).toEqual([
      "critical",
      "high",
      "normal",
      "low",
      "scavenger",
    ]);
    expect(r.body.priority_classes[0]).toMatchObject({ name: "critical", value: 1000, preemptible: false });
  });

  it("adds a class (its value required), changes one field at a time, and refuses what it must", async () => {
    const noValue = await api(ADMIN, "PUT", "/v1/priority-classes/pc-new", { grace_seconds: 10 });
    expect(noValue.status).toBe(400);
    expect(noValue.body.error.message).toMatch(/give it a value/);
    const added = await api(ADMIN, "PUT", "/v1/priority-classes/pc-new", {
      value: -200,
      description: "nightly evals",
    });
    expect(added.status).toBe(201);
    expect(added.body.priority_class).toMatchObject({
      name: "pc-new",
      value: -200,
      preemptible: true,
      grace_seconds: 120,
      builtin: false,
    });
    const changed = await api(ADMIN, "PUT", "/v1/priority-classes/pc-new", { grace_seconds: 15 });
    expect(changed.status).toBe(200);
    // A field left out keeps its value: the description too.
    expect(changed.body.priority_class).toMatchObject({
      value: -200,
      grace_seconds: 15,
      description: "nightly evals",
    });
    expect((await api(op, "PUT", "/v1/priority-classes/pc-new", { value: 1 })).status).toBe(403);
    expect((await api(ADMIN, "PUT", "/v1/priority-classes/Bad_Name", { value: 1 })).status).toBe(400);
    const builtin = await api(ADMIN, "DELETE", "/v1/priority-classes/normal");
    expect(builtin.status).toBe(409);
    expect(builtin.body.error.code).toBe("CONFLICT");
    expect((await api(ADMIN, "DELETE", "/v1/priority-classes/pc-new")).status).toBe(200);
    expect((await api(ADMIN, "DELETE", "/v1/priority-classes/pc-new")).body.error.code).toBe("NOT_FOUND");
  });
});

describe("admission of a priority class", () => {
  it("refuses an unknown class (422) and one above the quota (403), queueing nothing; allows it once granted", async () => {
    await createFleet("pc-admit");
    const before = (await api(op, "GET", "/v1/jobs?limit=200")).body.jobs.length;
    const unknown = await api(op, "POST", "/v1/jobs", await specOf("pc-admit", "urgent"));
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe("PRIORITY_CLASS_UNKNOWN");
    const above = await api(op, "POST", "/v1/jobs", await specOf("pc-admit", "high"));
    expect(above.status).toBe(403);
    expect(above.body.error).toMatchObject({
      code: "PRIORITY_CLASS_NOT_ALLOWED",
      details: { priority_class: "high", max_priority_class: "normal" },
    });
    expect((await api(op, "GET", "/v1/jobs?limit=200")).body.jobs.length).toBe(before);

    const q = await api(ADMIN, "PUT", "/v1/users/pc-op/quota", {
      max_gpus: 16,
      max_jobs: 20,
      daily_gpu_hours: 100,
      max_priority_class: "high",
    });
    expect(q.body.quota.max_priority_class).toBe("high");
    const ok = await api(op, "POST", "/v1/jobs", await specOf("pc-admit", "high"));
    expect(ok.status).toBe(201);
    expect(ok.body.job.priority_class).toBe("high");
    const read = await api(op, "GET", `/v1/jobs/${ok.body.job.id}`);
    expect(read.body.job.priority_class).toBe("high");
  });
});

describe("preemption through the Fleet DO", () => {
  it("stops the victim with its class's grace, queues it again under its id, and launches the preemptor on its GPU", async () => {
    const cls = await api(ADMIN, "PUT", "/v1/priority-classes/pc-bulk", {
      value: -700,
      min_runtime_seconds: 0,
      grace_seconds: 45,
    });
    expect(cls.status).toBe(201);
    await createFleet("pc-preempt");
    const agent = await ScriptedAgent.connect((await enroll("pc-preempt")).credential);
    agent.hello(inventory("box-p", 1));
    await agent.next("welcome");

    const bulk = (await api(op, "POST", "/v1/jobs", await specOf("pc-preempt", "pc-bulk"))).body.job.id;
    const l1 = await agent.next("launch", (f) => f.request.job_id === bulk);
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: l1.id });

    const r1 = agent.report(l1.request, "launched");
    await agent.next("ack", (f) => f.ref === r1);

    const notice = async () =>
      (
        await SELF.fetch("http://sf.test/v1/ingest/notice", {
          headers: { "x-starforge-token": l1.request.ingest.token },
        })
      ).json() as Promise<{ notice: Record<string, unknown> | null }>;
    expect((await notice()).notice).toBeNull();

    // A dry run says whom it would preempt, and changes nothing.
    const plan = await api(op, "POST", "/v1/jobs?dry_run=1", await specOf("pc-preempt", "high"));
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    expect(plan.body).toMatchObject({
      dry_run: true,
      jobs: [{ would: "preempt", preempts: [{ job_id: bulk, priority_class: "pc-bulk", gpus: 1 }] }],
    });
    expect((await api(op, "GET", `/v1/jobs/${bulk}`)).body.job.status).toBe("RUNNING");
    expect((await api(op, "GET", "/v1/jobs?fleet=pc-preempt")).body.jobs).toHaveLength(1);
    const badDry = await api(op, "POST", "/v1/jobs?dry_run=1", await specOf("pc-preempt", "urgent"));
    expect(badDry.body.error.code).toBe("PRIORITY_CLASS_UNKNOWN");
    expect((await api(op, "POST", "/v1/jobs?dry_run=maybe", await specOf("pc-preempt"))).status).toBe(400);

    // The owner follows preemptions by webhook (a closed loopback port: nothing leaves the machine).
    const hook = await api(op, "POST", "/v1/webhooks", {
      url: "http://127.0.0.1:9/hook",
      events: ["job.preempted"],
    });
    expect(hook.status).toBe(201);

    // Admitted beside its reservation, it preempts once confirmed (at once, or milliseconds later).
    const high = await api(op, "POST", "/v1/jobs", await specOf("pc-preempt", "high"));
    expect(high.status).toBe(201);
    const stop = await agent.next("stop", (f) => f.run_id === l1.request.run_id);
    // The runner asks on SIGTERM: why, and by when its agent sends SIGKILL.
    const told = (await notice()).notice;
    expect(told).toMatchObject({ cause: "preempted", preempted_by: high.body.job.id, grace_seconds: 45 });
    expect(Date.parse(String(told?.deadline)) - Date.now()).toBeGreaterThan(40_000);
    const waiting = (await api(op, "GET", `/v1/jobs/${high.body.job.id}`)).body.job;
    expect(waiting.pending_reasons).toMatchObject([{ code: "PREEMPTING", details: { victims: bulk } }]);
    expect(stop.grace_seconds).toBe(45);
    expect(stop.reason).toMatch(/preempted by/);
    const victim = (await api(op, "GET", `/v1/jobs/${bulk}`)).body;
    expect(victim.job.status).toBe("QUEUED");
    expect(victim.events.slice(-2)).toMatchObject([
      { from: "RUNNING", to: "PAUSED", edge: "pause", actor: "system:preempt" },
      { from: "PAUSED", to: "QUEUED", actor: "system:preempt" },
    ]);

    // Its webhook waits until the victim is gone (then it can say what the preemption cost).
    const deliveries = async () =>
      (await api(op, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries`)).body.deliveries as Array<{
        id: string;
        type: string;
      }>;
    expect(await deliveries()).toEqual([]);
    // And the fleet counts it for Prometheus.
    const metrics = await SELF.fetch("http://sf.test/v1/admin/metrics", {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(await metrics.text()).toContain(
      'starforge_preemptions_total{fleet="pc-preempt",cause="priority"} 1',
    );

    // The console shows it on both jobs: the victim's page says by whom; the preemptor's, whom it waits for.
    const browser = await signIn(op);
    const victimPage = (await browser.get(`/console/jobs/${bulk}`)).html;
    expect(victimPage).toContain('data-preempted="1"');
    expect(victimPage).toContain(`href="/console/jobs/${high.body.job.id}"`);
    expect(victimPage).toMatch(/Priority class<\/dt>\s*<dd[^>]*>pc-bulk/);
    const preemptorPage = (await browser.get(`/console/jobs/${high.body.job.id}`)).html;
    expect(preemptorPage).toContain("<code>PREEMPTING</code>");
    expect(preemptorPage).toContain(bulk);

    // The victim checkpoints and exits: its GPU goes to the preemptor.
    const fin = agent.report(l1.request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === fin);
    // Released: the notice is gone with the run.
    expect((await notice()).notice).toBeNull();
    let delivered: Array<{ id: string; type: string }> = [];
    for (let i = 0; i < 50 && delivered.length === 0; i++) {
      delivered = await deliveries();
      if (delivered.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(delivered.map((d) => d.type)).toEqual(["job.preempted"]);
    const one = await api(op, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries/${delivered[0]!.id}`);
    expect(one.body.delivery.payload).toMatchObject({
      type: "job.preempted",
      data: {
        job: { id: bulk, status: "PAUSED" },
        run_id: l1.request.run_id,
        transition: { from: "RUNNING", to: "PAUSED", actor: "system:preempt" },
        detail: {
          preempted: true,
          cause: "priority",
          preempted_by: high.body.job.id,
          class: "pc-bulk",
          grace_seconds: 45,
          // It stored no checkpoint and reported no step: it starts over, and its steps lost are unknown.
          resume_step: null,
          steps_lost: null,
        },
      },
    });
    await api(op, "DELETE", `/v1/webhooks/${hook.body.webhook.id}`);
    const l2 = await agent.next("launch", (f) => f.request.job_id === high.body.job.id);
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: l2.id });
    const r2 = agent.report(l2.request, "launched");
    await agent.next("ack", (f) => f.ref === r2);
    const done = agent.report(l2.request, "exited", { exit_code: 0 });
    await agent.next("ack", (f) => f.ref === done);

    // Then the victim runs again: the same job, a new run.
    const l3 = await agent.next(
      "launch",
      (f) => f.request.job_id === bulk && f.request.run_id !== l1.request.run_id,
    );
    expect(l3.request.attempt).toBe(2);
    const runs = (await api(op, "GET", `/v1/jobs/${bulk}`)).body.runs;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["PAUSED", "SUBMITTED"]);
    agent.close();
  });
});
