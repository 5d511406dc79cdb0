/**
 * Tier 2: team GPU-hour budgets through the real Worker, D1 and Fleet DO — metered from the ledger by the
 * Worker's cron (`scheduled`), a team at 100 % gets its new jobs refused with BUDGET_EXHAUSTED, its members'
 * endpoints get the 80 % and 100 % webhooks exactly once per period, and usage by team (JSON and CSV)
 * sums to the ledger to the GPU-second, within guarantee and borrowed apart. (The pause policy and the
 * renewal next month run against a test clock in test/unit/fleet-teams.test.ts.)
 */
import {
  createExecutionContext,
  createScheduledController,
  env,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../worker/env.js";
import worker from "../../worker/index.js";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";

let bud = "";
let other = "";

beforeAll(async () => {
  bud = await createUser("bg-user");
  other = await createUser("bg-other");
  await publishTestCapsule();
});

/** The Worker's cron, as Cloudflare runs it every minute. */
async function cron(at = Date.now()): Promise<void> {
  const ctx = createExecutionContext();
  worker.scheduled(
    createScheduledController({ scheduledTime: at, cron: "* * * * *" }),
    env as unknown as AppEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

/** The ledger's own sum for a month: finished allocations by day, and open runs up to `now`. */
async function ledgerSeconds(month: string, now: number): Promise<number> {
  const done = await env.DB.prepare(
    "SELECT coalesce(sum(gpu_seconds), 0) AS s FROM run_usage WHERE day >= ? AND day < ?",
  )
    .bind(`${month}-01`, `${month}-32`)
    .first<{ s: number }>();
  const open = await env.DB.prepare("SELECT gpus, allocated_at FROM runs WHERE ended_at IS NULL").all<{
    gpus: number;
    allocated_at: string;
  }>();
  return (
    (done?.s ?? 0) +
    open.results.reduce((s, r) => s + ((now - Date.parse(r.allocated_at)) / 1000) * r.gpus, 0)
  );
}

describe("team GPU-hour budgets", () => {
  it("refuses new jobs of a team at 100 %, sends each threshold's webhook once, and lists usage by team to the GPU-second", async () => {
    await createFleet("bg-fleet");
    const agent = await ScriptedAgent.connect((await enroll("bg-fleet")).credential);
    agent.hello(inventory("box-b", 2));
    await agent.next("welcome");
    await api(ADMIN, "PUT", "/v1/teams/bg-team", {});
    await api(ADMIN, "PUT", "/v1/teams/bg-team/members/bg-user", {});
    await api(ADMIN, "PUT", "/v1/teams/bg-team/quotas/bg-fleet/h200", { guaranteed: 1 });
    const hook = await api(bud, "POST", "/v1/webhooks", {
      url: "http://127.0.0.1:9/hook",
      events: ["team.budget_warning", "team.budget_exhausted"],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    // `*` with a budget event keeps it (`*` covers job events only), and `fleet` filters job events only.
    await createFleet("bg-elsewhere");
    const starred = await api(bud, "POST", "/v1/webhooks", {
      url: "http://127.0.0.1:9/starred",
      events: ["job.failed", "*", "team.budget_exhausted", "*"],
      fleet: "bg-elsewhere",
    });
    expect(starred.status, JSON.stringify(starred.body)).toBe(201);
    expect(starred.body.webhook.events).toEqual(["*", "team.budget_exhausted"]);

    // Two jobs: one within the guarantee, one borrowed. They run a moment.
    const ids: string[] = [];
    const launches: Array<Awaited<ReturnType<typeof agent.next<"launch">>>> = [];
    for (let i = 0; i < 2; i++) {
      const spec = await customSpec({ fleet: "bg-fleet", gpus: 1 });
      const id = (await api(bud, "POST", "/v1/jobs", spec)).body.job.id;
      const l = await agent.next("launch", (f) => f.request.job_id === id);
      agent.send({ v: 1, type: "ack", id: agent.id(), ref: l.id });
      const r = agent.report(l.request, "launched");
      await agent.next("ack", (f) => f.ref === r);
      ids.push(id);
      launches.push(l);
    }
    await new Promise((r) => setTimeout(r, 300));
    // A budget of 1 GPU-hour: far from spent; nothing happens.
    const set = await api(ADMIN, "PUT", "/v1/teams/bg-team/budget", { monthly_gpu_hours: 1 });
    expect(set.body.team.budget).toEqual({ monthly_gpu_hours: 1, weekly_gpu_hours: null, policy: "refuse" });
    const ok = await api(bud, "POST", "/v1/jobs?dry_run=1", await customSpec({ fleet: "bg-fleet", gpus: 1 }));
    expect(ok.status).toBe(200);

    // One job ends: its GPU-seconds reach the ledger. The budget is lowered under what was used.
    const done = agent.report(launches[0]!.request, "exited", { exit_code: 0 });
    await agent.next("ack", (f) => f.ref === done);
    await api(ADMIN, "PUT", "/v1/teams/bg-team/budget", { monthly_gpu_hours: 0.0001 });
    await cron();
    await cron();
    const refused = await api(bud, "POST", "/v1/jobs", await customSpec({ fleet: "bg-fleet", gpus: 1 }));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: "BUDGET_EXHAUSTED",
      details: { team: "bg-team", limit_gpu_hours: 0.0001, policy: "refuse" },
    });
    expect(refused.body.error.message).toMatch(/GPU-hour budget for \d{4}-\d{2}/);
    // A user of no team is not held by it.
    expect(
      (await api(other, "POST", "/v1/jobs?dry_run=1", await customSpec({ fleet: "bg-fleet" }))).status,
    ).toBe(200);

    // 80 % and 100 %: one delivery each, whatever how often the cron ran.
    const deliveries = (await api(bud, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries`)).body
      .deliveries as Array<{ id: string; type: string }>;
    expect(deliveries.map((d) => d.type).sort()).toEqual(["team.budget_exhausted", "team.budget_warning"]);
    const exhausted = deliveries.find((d) => d.type === "team.budget_exhausted")!;
    const month0 = new Date().toISOString().slice(0, 7);
    expect(exhausted.id).toBe(`evt_budget_bg-team_${month0}_100`);
    const toStarred = (await api(bud, "GET", `/v1/webhooks/${starred.body.webhook.id}/deliveries`)).body
      .deliveries as Array<{ id: string; type: string }>;
    expect(toStarred.map((d) => [d.type, d.id])).toEqual([["team.budget_exhausted", exhausted.id]]);
    const one = await api(bud, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries/${exhausted.id}`);
    expect(one.body.delivery.payload).toMatchObject({
      type: "team.budget_exhausted",
      data: { team: "bg-team", threshold_percent: 100, limit_gpu_hours: 0.0001, policy: "refuse" },
    });

    // Usage by team: the team's two jobs (one borrowed) and nothing of other teams for its member.
    const now = Date.now();
    const month = new Date(now).toISOString().slice(0, 7);
    const usage = await api(bud, "GET", "/v1/usage/teams");
    expect(usage.status).toBe(200);
    expect(usage.body.period).toBe(month);
    const mine = usage.body.rows.filter((r: { team: string | null }) => r.team === "bg-team");
    expect(mine).toHaveLength(1);
    expect(mine[0].in_guarantee_gpu_seconds).toBeGreaterThan(0);
    expect(mine[0].borrowed_gpu_seconds).toBeGreaterThan(0);
    expect(usage.body.rows.every((r: { team: string | null }) => r.team === "bg-team")).toBe(true);
    expect(usage.body.teams[0]).toMatchObject({
      team: "bg-team",
      budget_gpu_hours: 0.0001,
      budget_policy: "refuse",
    });
    expect(usage.body.teams[0].budget_percent).toBeGreaterThan(100);

    // The admin's CSV has every team (and no team) and sums to the ledger to the GPU-second.
    const res = await SELF.fetch("http://sf.test/v1/usage/teams?format=csv", {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(res.headers.get("content-type")).toMatch(/text\/csv/);
    const at = Date.now();
    const lines = (await res.text()).trim().split("\n");
    expect(lines[0]).toBe(
      "team,fleet,in_guarantee_gpu_seconds,borrowed_gpu_seconds,gpu_seconds,gpu_hours,lost_gpu_seconds",
    );
    const cells = lines.slice(1).map((l) => l.split(","));
    for (const c of cells) expect(Number(c[2]) + Number(c[3])).toBeCloseTo(Number(c[4]), 2);
    const sum = cells.reduce((s, c) => s + Number(c[4]), 0);
    const ledger = await ledgerSeconds(month, at);
    // Open runs keep accruing between the two reads: at most the GPUs running × the time between them.
    expect(Math.abs(sum - ledger)).toBeLessThan(1 + ((at - now) / 1000) * 4);
    expect((await api(bud, "GET", "/v1/usage/teams?period=2026-13")).body.error.code).toBe("BAD_REQUEST");
    agent.close();
  });
});
