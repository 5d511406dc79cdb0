/**
 * Teams in the Fleet DO's rules (docs/scheduling.md "Teams: guarantees, borrowing and reclaim"), in
 * memory: the page's worked example run step by step, and each rule a user would notice — in-guarantee
 * work first, limits that explain themselves, a quota lowered below use stopping nothing, per-user quotas
 * still binding inside a team, and a borrower never displacing work within a guarantee.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_PRIORITY_CLASSES } from "../../contract/priority-classes.js";
import type { FleetBudgets, FleetTeams, TeamQuota } from "../../contract/teams.js";
import { Fleet, type SubmitOptions, T0 } from "./fleet-harness.js";

const codes = (f: Fleet, id: string) =>
  (JSON.parse(f.job(id).pending_reasons) as Array<{ code: string }>).map((r) => r.code);
const reasonsOf = (f: Fleet, id: string) =>
  JSON.parse(f.job(id).pending_reasons) as Array<{ code: string; details: Record<string, unknown> }>;

const MEMBERS: FleetTeams["members"] = {
  usr_vic: { teams: ["vision"], primary: "vision" },
  usr_sam: { teams: ["speech"], primary: "speech" },
  usr_sue: { teams: ["speech"], primary: "speech" },
};

function q(guaranteed: number, o: Partial<TeamQuota> = {}): TeamQuota {
  return { guaranteed, borrow_limit: null, lend_limit: null, weight: 1, ...o };
}

/** A fleet whose classes may be preempted at once, with these quotas on series h200. */
function fleet(quotas: Record<string, TeamQuota>): Fleet {
  const f = new Fleet();
  f.decide({
    type: "set_priority_classes",
    classes: BUILTIN_PRIORITY_CLASSES.map((c) => ({ ...c, min_runtime_seconds: 0 })),
  });
  setQuotas(f, quotas);
  return f;
}

function setQuotas(f: Fleet, quotas: Record<string, TeamQuota>): void {
  const doc: FleetTeams = {
    teams: ["speech", "vision"],
    members: MEMBERS,
    quotas: Object.fromEntries(Object.entries(quotas).map(([t, x]) => [t, { h200: x }])),
  };
  f.decide({ type: "set_teams", teams: doc });
}

function running(f: Fleet, o: SubmitOptions): string {
  const id = f.submit({ python: true, ...o });
  expect(f.job(id).status, JSON.stringify(reasonsOf(f, id))).toBe("SUBMITTED");
  f.report(id, "started");
  return id;
}

describe("teams", () => {
  it("the worked example of docs/scheduling.md: speech borrows vision's idle GPU up to its limit; vision reclaims it", () => {
    const f = fleet({ vision: q(2), speech: q(2, { borrow_limit: 1 }) });
    f.agent("gpu-a", 4);
    // Speech's first two jobs run within its guarantee; the third borrows; a fourth would pass its limit.
    const s1 = running(f, { user: "usr_sam" });
    const s2 = running(f, { user: "usr_sam" });
    const s3 = running(f, { user: "usr_sam" });
    const borrowed = (id: string) => f.currentRun(id).borrowed;
    expect([borrowed(s1), borrowed(s2), borrowed(s3)]).toEqual([0, 0, 1]);
    const s4 = f.submit({ user: "usr_sam", python: true });
    expect(reasonsOf(f, s4)).toMatchObject([
      { code: "TEAM_BORROW_LIMIT", details: { team: "speech", guaranteed: 2, borrow_limit: 1, in_use: 3 } },
    ]);

    // Vision's first job takes the last free GPU; its second finds none and takes back the borrowed one.
    const v1 = running(f, { user: "usr_vic" });
    expect(borrowed(v1)).toBe(0);
    const s3run = f.currentRun(s3);
    const v2 = f.submit({ user: "usr_vic", python: true });
    expect(reasonsOf(f, v2)).toMatchObject([{ code: "PREEMPTING", details: { victims: s3 } }]);
    expect(f.transitions(s3).slice(-2)).toEqual(["RUNNING→PAUSED", "PAUSED→QUEUED"]);
    const paused = f.s.outbox.find(
      (e) => e.kind === "event" && e.event.job_id === s3 && e.event.to_status === "PAUSED",
    );
    expect(paused?.kind === "event" && JSON.parse(paused.event.detail)).toMatchObject({
      preempted: true,
      cause: "reclaim",
      preempted_by: v2,
      team: "speech",
      reclaiming_team: "vision",
    });
    for (const id of [s1, s2, v1]) expect(f.job(id).status).toBe("RUNNING");

    // The borrower's agent reports it stopped: its GPU goes to vision at once.
    f.report(s3, "stopped", { exitCode: 143 });
    expect(f.job(v2).status).toBe("SUBMITTED");
    expect(f.currentRun(v2).gpus).toBe(1);
    expect(JSON.parse(f.currentRun(v2).placement)[0].gpu_indices).toEqual(
      JSON.parse(s3run.placement)[0].gpu_indices,
    );
    // Speech waits in place: it may borrow, but every GPU is within a guarantee and vision uses its own.
    expect(reasonsOf(f, s3)).toMatchObject([{ code: "TEAM_LEND_LIMIT", details: { lendable: 0 } }]);
    expect(codes(f, s4)).toEqual(["TEAM_LEND_LIMIT"]);
    // When speech's own job ends, the preempted job (its place first) runs again within speech's guarantee.
    f.report(s1, "exited", { exitCode: 0 });
    expect(f.job(s3).status).toBe("SUBMITTED");
    expect(f.currentRun(s3).borrowed).toBe(0);
    expect(f.job(s4).status).toBe("QUEUED");
    f.checkInvariants();
  });

  it("starts work within a guarantee before borrowers of the same class, whatever the order of submission", () => {
    const f = fleet({ vision: q(1), speech: q(0) });
    f.agent("gpu-a", 1);
    const blocker = running(f, { user: "usr_vic" });
    const borrower = f.submit({ user: "usr_sam", python: true });
    const own = f.submit({ user: "usr_vic", python: true });
    f.report(blocker, "exited", { exitCode: 0 });
    expect(f.job(own).status).toBe("SUBMITTED");
    expect(f.job(borrower).status).toBe("QUEUED");
  });

  it("lowering a quota below what a team holds stops nothing; new work waits, and a raise starts it at once", () => {
    const f = fleet({ speech: q(2) });
    f.agent("gpu-a", 4);
    const a = running(f, { user: "usr_sam", gpus: 2 });
    setQuotas(f, { speech: q(0, { borrow_limit: 0 }) });
    expect(f.job(a).status).toBe("RUNNING");
    expect([...f.s.commandRows.values()].some((c) => c.kind === "stop")).toBe(false);
    const b = f.submit({ user: "usr_sam", python: true });
    expect(codes(f, b)).toEqual(["TEAM_BORROW_LIMIT"]);
    setQuotas(f, { speech: q(3) });
    expect(f.job(b).status).toBe("SUBMITTED");
  });

  it("keeps a user's own quota inside the team's", () => {
    const f = fleet({ speech: q(4) });
    f.agent("gpu-a", 4);
    running(f, { user: "usr_sam", gpus: 2, maxGpus: 2 });
    const more = f.submit({ user: "usr_sam", python: true, maxGpus: 2 });
    expect(codes(f, more)).toEqual(["QUOTA_GPUS"]);
    // Another member of the team is not held by sam's quota.
    expect(f.job(running(f, { user: "usr_sue", gpus: 2 })).status).toBe("RUNNING");
  });

  it("runs a non-preemptible class only within its team's guarantee", () => {
    const f = fleet({ speech: q(1), vision: q(0) });
    f.agent("gpu-a", 4);
    running(f, { user: "usr_sam", priorityClass: "critical" });
    const over = f.submit({ user: "usr_sam", python: true, priorityClass: "critical" });
    expect(reasonsOf(f, over)).toMatchObject([
      { code: "TEAM_GUARANTEE_FULL", details: { team: "speech", guaranteed: 1, in_use: 1 } },
    ]);
    const none = f.submit({ user: "usr_nobody", python: true, priorityClass: "critical" });
    expect(codes(f, none)).toEqual(["TEAM_GUARANTEE_FULL"]);
    // A normal job of the same team borrows the idle GPUs.
    expect(f.job(running(f, { user: "usr_sam" })).status).toBe("RUNNING");
  });

  it("never lets a borrower displace work within a guarantee, even of a lower class", () => {
    const f = fleet({ vision: q(2), speech: q(0) });
    f.agent("gpu-a", 2);
    const low = running(f, { user: "usr_vic", gpus: 2, priorityClass: "low" });
    const high = f.submit({ user: "usr_sam", python: true, priorityClass: "high" });
    // Nothing is lendable: vision uses all of its guarantee.
    expect(codes(f, high)).toEqual(["TEAM_LEND_LIMIT"]);
    expect(f.job(low).status).toBe("RUNNING");
    // Within a guarantee, the same high job would have displaced it (priority).
    setQuotas(f, { vision: q(1), speech: q(1) });
    expect(reasonsOf(f, high)).toMatchObject([{ code: "PREEMPTING", details: { victims: low } }]);
  });

  it("holds borrowing within what other teams lend", () => {
    const f = fleet({ vision: q(3, { lend_limit: 1 }), speech: q(1) });
    f.agent("gpu-a", 4);
    running(f, { user: "usr_sam" });
    running(f, { user: "usr_sam" });
    const third = f.submit({ user: "usr_sam", python: true });
    expect(reasonsOf(f, third)).toMatchObject([
      { code: "TEAM_LEND_LIMIT", details: { series: "h200", lendable: 1, borrowed: 1 } },
    ]);
  });

  it("budgets: a spent budget refuses new jobs, holds queued ones, pauses a running one at its next checkpoint (pause policy), and everything resumes when the period renews (a test clock)", () => {
    const f = fleet({ speech: q(2) });
    f.agent("gpu-a", 2);
    const running1 = running(f, { user: "usr_sam" });
    const renews = T0 + 3_600_000;
    f.decide({
      type: "set_budgets",
      budgets: {
        speech: {
          policy: "pause",
          period: "2026-12",
          used_gpu_hours: 10.2,
          limit_gpu_hours: 10,
          resets_at: renews,
        },
      },
    });
    const refused = f.trySubmit({ jobId: "job_late", user: "usr_sam", python: true });
    expect(refused.ok || refused.code).toBe("BUDGET_EXHAUSTED");
    expect(refused.ok || refused.message).toMatch(
      /team speech used 10.2 of its 10 GPU-hour budget for 2026-12/,
    );
    // Vision is not held by speech's budget.
    expect(f.job(running(f, { user: "usr_vic" })).status).toBe("RUNNING");

    // Nothing is killed: the running job pauses right after its next checkpoint.
    expect(f.job(running1).status).toBe("RUNNING");
    const run = f.currentRun(running1);
    f.decide({ type: "checkpointed", runId: run.id, step: 300 });
    expect(f.job(running1).status).toBe("PAUSED");
    expect(f.transitions(running1).at(-1)).toBe("RUNNING→PAUSED");
    const stop = [...f.s.commandRows.values()].find((c) => c.run_id === run.id && c.kind === "stop");
    expect(stop).toBeDefined();
    f.report(running1, "stopped", { exitCode: 143 });
    expect(f.currentRun(running1).status).toBe("PAUSED");

    // Next period: it goes back to the queue by itself and runs.
    f.advance(renews - f.now + 1_000);
    expect(f.job(running1).status).toBe("SUBMITTED");
    expect(f.transitions(running1).slice(-2)).toEqual(["PAUSED→QUEUED", "QUEUED→SUBMITTED"]);
    f.checkInvariants();
  });

  it("budgets: the Worker's push each minute changes nothing while the same teams are spent (their hours moving) or none is", () => {
    const f = fleet({ speech: q(2) });
    f.agent("gpu-a", 2);
    running(f, { user: "usr_sam" });
    // A submit to a fleet that is not steady runs a full pass, which leaves it steady.
    f.submit({ user: "usr_vic" });
    expect(f.s.steady).toBe(true);
    const push = (budgets: FleetBudgets) => f.decide({ type: "set_budgets", budgets });
    expect(push({}).effects).toEqual([]);
    expect(f.s.steady).toBe(true);
    const spent = {
      policy: "refuse" as const,
      period: "2026-12",
      used_gpu_hours: 10.2,
      limit_gpu_hours: 10,
      resets_at: T0 + 3_600_000,
    };
    expect(push({ speech: spent }).effects).not.toEqual([]);
    f.submit({ user: "usr_vic" });
    expect(f.s.steady).toBe(true);
    // A minute later the team has used more: nothing to decide again, and the fleet stays steady.
    expect(push({ speech: { ...spent, used_gpu_hours: 10.4 } }).effects).toEqual([]);
    expect(f.s.steady).toBe(true);
    // The budget raised above its use: the team is no longer spent, and that is decided.
    expect(push({}).effects).not.toEqual([]);
  });

  it("budgets: under borrow_free a team whose budget is spent runs only within its guarantee", () => {
    const f = fleet({ speech: q(1), vision: q(1) });
    f.agent("gpu-a", 4);
    f.decide({
      type: "set_budgets",
      budgets: {
        speech: {
          policy: "borrow_free",
          period: "2026-W49",
          used_gpu_hours: 5,
          limit_gpu_hours: 5,
          resets_at: T0 + 86_400_000,
        },
      },
    });
    const inside = running(f, { user: "usr_sam" });
    const beyond = f.submit({ user: "usr_sam", python: true });
    expect(reasonsOf(f, beyond)).toMatchObject([
      { code: "BUDGET_EXHAUSTED", details: { team: "speech", policy: "borrow_free", period: "2026-W49" } },
    ]);
    expect(f.job(inside).status).toBe("RUNNING");
  });
});
