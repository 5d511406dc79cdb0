/**
 * Tier 2: teams through the real Worker, D1 and Fleet DO — the admin API (members, the primary team,
 * quotas per fleet and series), admission's coded refusals, the new pending reasons as admins change
 * quotas (effective at the next decision, no restart), and a reclaim seen by a scripted agent: team B
 * borrows team A's idle GPUs, A submits, and exactly B's borrowed run is stopped for A.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { ingest } from "./ingest-helpers.js";

let alice = "";
let bob = "";
let carol = "";
let viewer = "";

beforeAll(async () => {
  alice = await createUser("tm-alice");
  bob = await createUser("tm-bob");
  carol = await createUser("tm-carol");
  viewer = await createUser("tm-viewer", "viewer");
  await publishTestCapsule();
  // Borrowers here are stopped at once: no minimum runtime, a short grace.
  const cls = await api(ADMIN, "PUT", "/v1/priority-classes/tm-quick", {
    value: 0,
    min_runtime_seconds: 0,
    grace_seconds: 30,
  });
  expect(cls.status).toBe(201);
});

async function specOf(fleet: string, o: { team?: string; priorityClass?: string; gpus?: number } = {}) {
  const spec = await customSpec({ fleet, gpus: o.gpus ?? 1 });
  if (o.team) spec.resources.team = o.team;
  spec.lifecycle = {
    max_retries: 2,
    retry_on_user_failure: false,
    resumable: true,
    ...(o.priorityClass ? { priority_class: o.priorityClass } : {}),
  };
  return spec;
}

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("the teams API", () => {
  it("creates teams, keeps exactly one primary team per member, sets and removes quotas, and refuses what it must", async () => {
    await createFleet("tm-api");
    const created = await api(ADMIN, "PUT", "/v1/teams/tm-vision", { description: "vision models" });
    expect(created.status).toBe(201);
    expect(created.body.team).toMatchObject({ name: "tm-vision", description: "vision models", members: [] });
    expect((await api(ADMIN, "PUT", "/v1/teams/tm-vision", {})).status).toBe(200);
    expect((await api(ADMIN, "PUT", "/v1/teams/Bad_Name", {})).body.error.code).toBe("BAD_REQUEST");
    expect((await api(alice, "PUT", "/v1/teams/tm-x", {})).status).toBe(403);
    expect((await api(ADMIN, "PUT", "/v1/teams/tm-nope/members/tm-alice", {})).status).toBe(404);
    expect((await api(ADMIN, "PUT", "/v1/teams/tm-vision/members/nobody", {})).body.error.code).toBe(
      "USER_NOT_FOUND",
    );

    // A user's first team is their primary one; another made primary takes its place.
    const added = await api(ADMIN, "PUT", "/v1/teams/tm-vision/members/tm-alice", {});
    expect(added.status).toBe(201);
    expect(added.body.team.members).toEqual([
      { user_id: expect.any(String), user: "tm-alice", primary: true },
    ]);
    await api(ADMIN, "PUT", "/v1/teams/tm-speech", {});
    const second = await api(ADMIN, "PUT", "/v1/teams/tm-speech/members/tm-alice", { primary: true });
    expect(second.body.team.members[0].primary).toBe(true);
    const vision = (await api(viewer, "GET", "/v1/teams/tm-vision")).body.team;
    expect(vision.members[0].primary).toBe(false);
    const unset = await api(ADMIN, "PUT", "/v1/teams/tm-speech/members/tm-alice", { primary: false });
    expect(unset.status).toBe(409);
    // Leaving the primary team makes the other one primary.
    expect((await api(ADMIN, "DELETE", "/v1/teams/tm-speech/members/tm-alice")).status).toBe(200);
    expect((await api(viewer, "GET", "/v1/teams/tm-vision")).body.team.members[0].primary).toBe(true);
    expect((await api(ADMIN, "DELETE", "/v1/teams/tm-speech/members/tm-alice")).status).toBe(404);

    const q = await api(ADMIN, "PUT", "/v1/teams/tm-vision/quotas/tm-api/h200", {
      guaranteed: 4,
      borrow_limit: 2,
    });
    expect(q.status).toBe(201);
    expect(q.body.team.quotas).toEqual([
      {
        fleet_id: expect.any(String),
        fleet: "tm-api",
        series: "h200",
        guaranteed: 4,
        borrow_limit: 2,
        lend_limit: null,
        weight: 1,
      },
    ]);
    expect(
      (await api(ADMIN, "PUT", "/v1/teams/tm-vision/quotas/tm-api/h200", { guaranteed: 6 })).status,
    ).toBe(200);
    const neg = await api(ADMIN, "PUT", "/v1/teams/tm-vision/quotas/tm-api/h200", { guaranteed: -1 });
    expect(neg.body.error.code).toBe("BAD_REQUEST");
    const noFleet = await api(ADMIN, "PUT", "/v1/teams/tm-vision/quotas/tm-nofleet/h200", { guaranteed: 1 });
    expect(noFleet.body.error.code).toBe("FLEET_NOT_FOUND");
    expect((await api(ADMIN, "DELETE", "/v1/teams/tm-vision/quotas/tm-api/h200")).status).toBe(200);
    expect((await api(ADMIN, "DELETE", "/v1/teams/tm-vision/quotas/tm-api/h200")).status).toBe(404);

    // The fleet's preemption rate limit is its own setting (default 10 a minute).
    expect((await api(viewer, "GET", "/v1/fleets/tm-api")).body.fleet.preemptions_per_minute).toBe(10);
    const rate = await api(ADMIN, "PATCH", "/v1/fleets/tm-api", { preemptions_per_minute: 3 });
    expect(rate.body.fleet.preemptions_per_minute).toBe(3);
    expect((await api(ADMIN, "PATCH", "/v1/fleets/tm-api", { preemptions_per_minute: -1 })).status).toBe(400);

    const listed = (await api(viewer, "GET", "/v1/teams")).body.teams.map((t: { name: string }) => t.name);
    expect(listed).toEqual(expect.arrayContaining(["tm-speech", "tm-vision"]));
    expect((await api(ADMIN, "DELETE", "/v1/teams/tm-speech")).status).toBe(200);
    expect((await api(viewer, "GET", "/v1/teams/tm-speech")).status).toBe(404);
    const audit = await api(ADMIN, "GET", "/v1/audit?action=team.quota.");
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(["team.quota.set", "team.quota.delete"]),
    );
  });
});

describe("admission with a team", () => {
  it("runs a job for its submitter's primary team, refuses a team they are not in (403) or that does not exist (422)", async () => {
    await createFleet("tm-admit");
    await api(ADMIN, "PUT", "/v1/teams/tm-admit-a", {});
    await api(ADMIN, "PUT", "/v1/teams/tm-admit-a/members/tm-carol", {});
    const mine = await api(carol, "POST", "/v1/jobs", await specOf("tm-admit"));
    expect(mine.status).toBe(201);
    expect(mine.body.job.team).toBe("tm-admit-a");
    const named = await api(carol, "POST", "/v1/jobs", await specOf("tm-admit", { team: "tm-admit-a" }));
    expect(named.body.job.team).toBe("tm-admit-a");

    const before = (await api(bob, "GET", "/v1/jobs?limit=200")).body.jobs.length;
    const notMember = await api(bob, "POST", "/v1/jobs", await specOf("tm-admit", { team: "tm-admit-a" }));
    expect(notMember.status).toBe(403);
    expect(notMember.body.error).toMatchObject({
      code: "TEAM_NOT_MEMBER",
      details: { team: "tm-admit-a", your_teams: [] },
    });
    const unknown = await api(carol, "POST", "/v1/jobs", await specOf("tm-admit", { team: "tm-ghost" }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe("TEAM_UNKNOWN");
    expect((await api(bob, "GET", "/v1/jobs?limit=200")).body.jobs.length).toBe(before);
    // A job of no team says so.
    const none = await api(bob, "POST", "/v1/jobs", await specOf("tm-admit"));
    expect(none.body.job.team).toBeNull();
  });
});

describe("team quotas in the Fleet DO", () => {
  it("explains a wait by the team's limits, and a quota change decides again at once", async () => {
    await createFleet("tm-limits");
    const agent = await ScriptedAgent.connect((await enroll("tm-limits")).credential);
    agent.hello(inventory("box-l", 2));
    await agent.next("welcome");
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-a", {});
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-b", {});
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-b/members/tm-bob", {});
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-a/quotas/tm-limits/h200", { guaranteed: 2 });
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-b/quotas/tm-limits/h200", { guaranteed: 0, borrow_limit: 0 });

    const job = (await api(bob, "POST", "/v1/jobs", await specOf("tm-limits"))).body.job;
    expect(job.pending_reasons).toMatchObject([
      { code: "TEAM_BORROW_LIMIT", details: { team: "tm-lim-b", guaranteed: 0, borrow_limit: 0 } },
    ]);
    // Team A lends none of its guarantee: B may borrow, but nothing may be lent.
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-a/quotas/tm-limits/h200", { guaranteed: 2, lend_limit: 0 });
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-b/quotas/tm-limits/h200", { guaranteed: 0, borrow_limit: 4 });
    const lend = (await api(bob, "GET", `/v1/jobs/${job.id}`)).body.job;
    expect(lend.pending_reasons).toMatchObject([{ code: "TEAM_LEND_LIMIT", details: { lendable: 0 } }]);
    // A critical job never borrows: it runs only inside its team's guarantee.
    await api(ADMIN, "PUT", "/v1/users/tm-bob/quota", {
      max_gpus: 16,
      max_jobs: 20,
      daily_gpu_hours: 100,
      max_priority_class: "critical",
    });
    const crit = (
      await api(bob, "POST", "/v1/jobs", await specOf("tm-limits", { priorityClass: "critical" }))
    ).body.job;
    expect(crit.pending_reasons.map((r: { code: string }) => r.code)).toContain("TEAM_GUARANTEE_FULL");
    // A lends again: the borrower starts at once, its run marked borrowed.
    await api(ADMIN, "PUT", "/v1/teams/tm-lim-a/quotas/tm-limits/h200", { guaranteed: 2 });
    const launch = await agent.next("launch", (f) => f.request.job_id === job.id);
    expect(launch.request.job_id).toBe(job.id);
    const runs = await waitFor(
      async () => (await api(bob, "GET", `/v1/jobs/${job.id}`)).body.runs,
      (r) => r.length > 0,
      "the borrower's run",
    );
    expect(runs[0].borrowed).toBe(true);
    await api(bob, "POST", `/v1/jobs/${crit.id}/stop`, {});
    agent.close();
  });
});

describe("reclaim", () => {
  it("stops only team B's borrowed run when team A takes back its guarantee, and counts it", async () => {
    await createFleet("tm-reclaim");
    const agent = await ScriptedAgent.connect((await enroll("tm-reclaim")).credential);
    agent.hello(inventory("box-r", 2));
    await agent.next("welcome");
    for (const [team, user] of [
      ["tm-rec-a", "tm-alice"],
      ["tm-rec-b", "tm-bob"],
    ] as const) {
      await api(ADMIN, "PUT", `/v1/teams/${team}`, {});
      await api(ADMIN, "PUT", `/v1/teams/${team}/members/${user}`, { primary: true });
    }
    await api(ADMIN, "PUT", "/v1/teams/tm-rec-a/quotas/tm-reclaim/h200", { guaranteed: 1 });
    await api(ADMIN, "PUT", "/v1/teams/tm-rec-b/quotas/tm-reclaim/h200", { guaranteed: 1 });
    const hook = await api(bob, "POST", "/v1/webhooks", {
      url: "http://127.0.0.1:9/hook",
      events: ["job.preempted"],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const deliveries = async () =>
      (await api(bob, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries`)).body.deliveries as Array<{
        id: string;
        type: string;
      }>;

    // B uses its own GPU and borrows A's idle one.
    const launches: Array<Awaited<ReturnType<typeof agent.next<"launch">>>> = [];
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = (
        await api(bob, "POST", "/v1/jobs", await specOf("tm-reclaim", { priorityClass: "tm-quick" }))
      ).body.job.id;
      ids.push(id);
      const l = await agent.next("launch", (f) => f.request.job_id === id);
      agent.send({ v: 1, type: "ack", id: agent.id(), ref: l.id });
      const r = agent.report(l.request, "launched");
      await agent.next("ack", (f) => f.ref === r);
      launches.push(l);
    }
    const [inGuarantee, borrower] = ids as [string, string];
    expect((await api(bob, "GET", `/v1/jobs/${inGuarantee}`)).body.runs[0].borrowed).toBe(false);
    expect((await api(bob, "GET", `/v1/jobs/${borrower}`)).body.runs[0].borrowed).toBe(true);

    // The borrower trains to step 40 and stores no checkpoint: all of that will be lost work.
    const m = await ingest(launches[1]!.request.ingest.token, "/metrics", {
      run_id: launches[1]!.request.run_id,
      points: [{ key: "train/loss", step: 40, value: 1.5 }],
    });
    expect(m.status).toBe(200);

    // A dry run names the borrower.
    const plan = await api(alice, "POST", "/v1/jobs?dry_run=1", await specOf("tm-reclaim"));
    expect(plan.body.jobs[0]).toMatchObject({ would: "preempt", preempts: [{ job_id: borrower }] });

    // A submits: a normal job, the same class as B's — a reclaim, not a priority preemption.
    const a = (await api(alice, "POST", "/v1/jobs", await specOf("tm-reclaim"))).body.job;
    expect(a.team).toBe("tm-rec-a");
    const stop = await agent.next("stop", (f) => f.run_id === launches[1]!.request.run_id);
    expect(stop.grace_seconds).toBe(30);
    expect(stop.reason).toMatch(/team tm-rec-a takes back its guaranteed GPUs/);
    const victim = (await api(bob, "GET", `/v1/jobs/${borrower}`)).body;
    expect(victim.job.status).toBe("QUEUED");
    const paused = victim.events.find((e: { to: string }) => e.to === "PAUSED");
    expect(paused.detail).toMatchObject({
      preempted: true,
      cause: "reclaim",
      preempted_by: a.id,
      team: "tm-rec-b",
      reclaiming_team: "tm-rec-a",
    });
    // B's run within its guarantee was not touched.
    expect((await api(bob, "GET", `/v1/jobs/${inGuarantee}`)).body.job.status).toBe("RUNNING");

    // Its webhook waits for the run to be gone: only then is what it lost known.
    expect(await deliveries()).toEqual([]);

    const fin = agent.report(launches[1]!.request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === fin);
    // Once its run released its GPUs, the job says what the preemption cost it.
    const after = await waitFor(
      async () => (await api(bob, "GET", `/v1/jobs/${borrower}`)).body.runs[0],
      (r) => r.ended_at !== null,
      "the victim's run to be released",
    );
    expect(after.steps_lost).toBe(40);
    // The job.preempted webhook says it all: by whom and why, the step it resumes from, what it lost.
    const [sent] = await waitFor(deliveries, (d) => d.length > 0, "the job.preempted delivery");
    expect(sent!.type).toBe("job.preempted");
    const payload = (await api(bob, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries/${sent!.id}`))
      .body.delivery.payload;
    expect(payload).toMatchObject({
      id: `evt_${borrower}_${paused.seq}`,
      type: "job.preempted",
      data: {
        job: { id: borrower, status: "PAUSED" },
        run_id: launches[1]!.request.run_id,
        transition: { from: "RUNNING", to: "PAUSED", actor: "system:preempt" },
        detail: { cause: "reclaim", preempted_by: a.id, resume_step: null, steps_lost: 40 },
      },
    });
    expect(payload.data.detail.lost_gpu_seconds).toBeGreaterThan(0);
    const la = await agent.next("launch", (f) => f.request.job_id === a.id);
    expect(la.request.job_id).toBe(a.id);
    const metrics = await SELF.fetch("http://sf.test/v1/admin/metrics", {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const text = await metrics.text();
    expect(text).toContain('starforge_preemptions_total{fleet="tm-reclaim",cause="reclaim"} 1');
    // The victim never stored a checkpoint: all it trained (one GPU, from its start to its stop) is lost.
    const lost = Number(
      /starforge_preemption_lost_gpu_seconds_total\{fleet="tm-reclaim"\} ([\d.e+-]+)/.exec(text)?.[1],
    );
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThan(60);
    expect(payload.data.detail.lost_gpu_seconds).toBeCloseTo(lost, 6);
    // Usage by team shows it as lost work of team B (part of its GPU-seconds), none of team A's.
    const usage = (await api(ADMIN, "GET", "/v1/usage/teams")).body;
    const row = (team: string) =>
      usage.rows.find((r: { team: string; fleet: string }) => r.team === team && r.fleet === "tm-reclaim");
    expect(row("tm-rec-b").lost_gpu_seconds).toBeCloseTo(lost, 6);
    expect(row("tm-rec-b").lost_gpu_seconds).toBeLessThanOrEqual(row("tm-rec-b").gpu_seconds);
    expect(row("tm-rec-a").lost_gpu_seconds).toBe(0);
    expect(usage.teams.find((t: { team: string }) => t.team === "tm-rec-b").lost_gpu_hours).toBeCloseTo(
      lost / 3600,
      9,
    );
    // The borrower waits again in its place: team B is at its guarantee and A's GPU is A's.
    const waiting = (await api(bob, "GET", `/v1/jobs/${borrower}`)).body.job;
    expect(waiting.status).toBe("QUEUED");
    agent.close();
  });
});
