/**
 * Tier 3: `sf admin team …` and `sf submit|sweep --team` against a real control plane. Teams, members and
 * quotas are set and read back as a person (tables, messages) and a script (--json) sees them; a submit for
 * a team its user is not in is refused with TEAM_NOT_MEMBER; and on a fleet of this file's own (one agent,
 * 2 simulated H200s) a job of a team without a guarantee borrows, a job of the team it borrowed from takes
 * its guarantee back, and `sf job show` says so: the team, the borrowed run, "reclaimed by team …".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForStatus } from "../support/jobs.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { unique } from "../support/shared-control-plane.js";
import { type TeamScene, teamScene } from "./team-fixture.js";

/** This file's fleet with one agent (2 simulated H200s), and one without nodes (what goes there waits). */
let cp: TeamScene["cp"];
let admin: TeamScene["admin"];
let s: TeamScene["s"];
let p: TeamScene["p"];
let fleet = "";
let empty = "";
let agent: TeamScene["agent"] | undefined;
/** Teams and users are deployment-wide: this file's have names no other file uses. */
const ML = unique("ml");
const VIS = unique("vis");
const OPS = unique("ops");
const ADA = unique("ada");
const EXP = unique("exp");

interface Team {
  name: string;
  description: string;
  members: Array<{ user: string; primary: boolean }>;
  quotas: Array<{
    fleet: string;
    series: string;
    guaranteed: number;
    borrow_limit: number | null;
    lend_limit: number | null;
    weight: number;
  }>;
}

/** A charlm run that trains until it is stopped (~50 steps/s), checkpointing every 2 s. */
const LONG = ["--set", "max_steps=100000", "--set", "batch_size=1000", "--set", "checkpoint_every=100"];
const JOB_ID = /job_[0-9a-z]{26}/;

beforeAll(async () => {
  ({ cp, admin, fleet, empty, agent, s, p } = await teamScene({
    name: "teams",
    gpus: 2,
    user: ADA,
    exp: EXP,
  }));
});

afterAll(async () => {
  for (const t of [ML, VIS, OPS]) await sf(["admin", "team", "rm", t], admin);
  await agent?.dispose();
});

describe("sf admin team", () => {
  it("creates teams, adds members and quotas, and shows them as tables and as JSON", async () => {
    const created = await sf(["admin", "team", "set", ML, "--description", "ML research"], admin);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(`created team ${ML}: ML research`);
    const updated = await sf(["admin", "team", "set", ML, "--description", "machine learning"], admin);
    expect(updated.stderr).toContain(`updated team ${ML}: machine learning`);
    for (const t of [VIS, OPS]) expect((await sf(["admin", "team", "set", t], admin)).code).toBe(0);

    // A user's first team is their primary one; --primary moves it.
    const first = await sf(["admin", "team", "member", "add", VIS, ADA], admin);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`added ${ADA} to team ${VIS} (their primary team`);
    const second = await sf(["admin", "team", "member", "add", ML, ADA, "--primary"], admin);
    expect(second.stderr).toContain(`added ${ADA} to team ${ML} (their primary team`);

    // A new quota needs its guarantee; afterwards one flag changes one thing.
    const bare = await sf(["admin", "team", "quota", "set", ML, "--fleet", fleet, "--series", "h200"], admin);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("give it --guaranteed N");
    const badLimit = ["--fleet", fleet, "--series", "h200", "--borrow-limit", "lots"];
    const bad = await sf(["admin", "team", "quota", "set", ML, ...badLimit], admin);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--borrow-limit takes a number of GPUs or "none", got "lots"');
    const q = ["--fleet", fleet, "--series", "h200"];
    const set = await sf(
      [
        "admin",
        "team",
        "quota",
        "set",
        ML,
        ...q,
        "--guaranteed",
        "0",
        "--borrow-limit",
        "4",
        "--weight",
        "2",
      ],
      admin,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain(`0 h200 GPUs guaranteed in fleet ${fleet}, may borrow up to 4 more`);
    const changed = await sfJson<{ team: Team }>(
      ["admin", "team", "quota", "set", ML, ...q, "--borrow-limit", "2"],
      admin,
    );
    expect(changed.team.quotas).toEqual([
      expect.objectContaining({
        fleet,
        series: "h200",
        guaranteed: 0,
        borrow_limit: 2,
        lend_limit: null,
        weight: 2,
      }),
    ]);
    expect((await sf(["admin", "team", "quota", "set", VIS, ...q, "--guaranteed", "2"], admin)).code).toBe(0);

    const ls = await sf(["admin", "team", "ls"], admin);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/^TEAM\s+MEMBERS\s+QUOTAS\s+DESCRIPTION$/m);
    expect(ls.stdout).toMatch(
      new RegExp(`^${ML}\\s+${ADA}\\*\\s+${fleet}/h200 0\\+2/all w2\\s+machine learning$`, "m"),
    );
    expect(ls.stdout).toMatch(new RegExp(`^${VIS}\\s+${ADA}\\s+${fleet}/h200 2\\+∞/all w1\\s+-$`, "m"));
    expect(ls.stderr).toContain("* their primary team");
    const { teams } = await sfJson<{ teams: Team[] }>(["admin", "team", "ls"], admin);
    expect(teams.filter((t) => [ML, VIS, OPS].includes(t.name)).map((t) => t.name)).toEqual([ML, OPS, VIS]);

    const show = await sf(["admin", "team", "show", VIS], admin);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`members  ${ADA}\n`);
    expect(show.stdout).toMatch(/^FLEET\s+SERIES\s+GUARANTEED\s+BORROW LIMIT\s+LEND LIMIT\s+WEIGHT$/m);
    expect(show.stdout).toMatch(new RegExp(`^${fleet}\\s+h200\\s+2\\s+no limit\\s+all \\(2\\)\\s+1$`, "m"));
    const ml = (await sfJson<{ team: Team }>(["admin", "team", "show", ML], admin)).team;
    expect(ml).toMatchObject({ name: ML, description: "machine learning" });
    expect(ml.members).toEqual([expect.objectContaining({ user: ADA, primary: true })]);
    expect((await sf(["admin", "team", "show", OPS], admin)).stdout).toContain("members  none");
  });

  it("refuses what cannot be done with a coded error and its exit code", async () => {
    const missing = await sf(["admin", "team", "show", unique("nosuch")], admin);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("[NOT_FOUND]");
    const badName = await sf(["admin", "team", "set", "Not_A_Name"], admin);
    expect(badName.code).toBe(5);
    expect(badName.stderr).toContain("team names are lowercase");
    const notMember = await sf(["admin", "team", "member", "rm", OPS, ADA], admin);
    expect(notMember.code).toBe(4);
    expect(notMember.stderr).toContain(`${ADA} is not a member of team ${OPS}`);
    const noQuota = await sf(
      ["admin", "team", "quota", "rm", OPS, "--fleet", fleet, "--series", "h200"],
      admin,
    );
    expect(noQuota.code).toBe(4);
    expect(noQuota.stderr).toContain(`team ${OPS} has no h200 quota in fleet ${fleet}`);
    // Everyone may read teams; only admins change them.
    const user: SfEnv = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: s.token } };
    expect((await sf(["admin", "team", "ls"], user)).code).toBe(0);
    const denied = await sf(["admin", "team", "set", unique("mine")], user);
    expect(denied.code).toBe(3);
    // Added and removed again: the member list says so.
    expect((await sf(["admin", "team", "member", "add", OPS, ADA], admin)).code).toBe(0);
    const removed = await sf(["admin", "team", "member", "rm", OPS, ADA], admin);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(`removed ${ADA} from team ${OPS}`);
    expect((await sfJson<{ team: Team }>(["admin", "team", "show", OPS], admin)).team.members).toEqual([]);
  });
});

describe("sf submit --team", () => {
  it("refuses a team its user is not in (TEAM_NOT_MEMBER) or that does not exist (TEAM_UNKNOWN)", async () => {
    const refused = await p.sf(["submit", EXP, "--profile", "h200:1", "--team", OPS]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(
      `error: you are not a member of team ${OPS}; your teams: ${ML}, ${VIS} [TEAM_NOT_MEMBER]`,
    );
    expect(refused.stderr).toContain("hint: submit for one of your teams, or leave out --team");
    expect(refused.stdout).not.toMatch(JOB_ID);
    const json = await p.sf(["submit", EXP, "--profile", "h200:1", "--team", OPS, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "TEAM_NOT_MEMBER" } });

    const unknown = await p.sf(["submit", EXP, "--profile", "h200:1", "--team", unique("nosuch")]);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain("[TEAM_UNKNOWN]");

    // A sweep is admitted all or none: none of its jobs for a team its user is not in.
    const sweep = await p.sf(["sweep", EXP, "--profile", "h200:1", "--set-grid", "seed=1,2", "--team", OPS]);
    expect(sweep.code).toBe(5);
    expect(sweep.stderr).toContain("[TEAM_NOT_MEMBER]");
  });

  it("sf sweep --team runs every job of the sweep for that team", async () => {
    const r = await p.sf([
      "sweep",
      EXP,
      "--profile",
      "h200:1",
      "--set-grid",
      "seed=1,2",
      "--team",
      VIS,
      "--fleet",
      empty,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const jobs = (JSON.parse(r.stdout) as { jobs: Array<{ job: { id: string; team: string | null } }> }).jobs;
    expect(jobs.map((j) => j.job.team)).toEqual([VIS, VIS]);
    for (const j of jobs) expect((await p.sf(["job", "stop", j.job.id])).code).toBe(0);
  });

  it("a job of a team without a guarantee borrows; the team it borrowed from reclaims it, and sf job show says so", async () => {
    // ada's primary team is ML (no guarantee here): her job borrows VIS's idle GPUs. Scavenger: preemptible
    // at once (no minimum runtime).
    const a = await p.sf(["submit", EXP, "--profile", "h200:2", "--priority-class", "scavenger", ...LONG]);
    expect(a.code, a.stderr).toBe(0);
    const borrower = JOB_ID.exec(a.stdout)![0];
    await waitForStatus(cp, s.token, borrower, ["RUNNING"], 60_000);
    const running = await p.sf(["job", "status", borrower]);
    expect(running.code, running.stderr).toBe(0);
    expect(running.stdout).toContain(`scavenger priority (`);
    expect(running.stdout).toContain(`· team ${ML} ·`);
    expect(running.stdout).toMatch(/\[0,1\] \(borrowed\)/);

    // Her job for VIS is within VIS's guarantee: it takes the GPUs back.
    const b = await p.sf(["submit", EXP, "--profile", "h200:2", "--team", VIS, ...LONG]);
    expect(b.code, b.stderr).toBe(0);
    const owner = JOB_ID.exec(b.stdout)![0];
    await waitForStatus(cp, s.token, owner, ["RUNNING"], 90_000);
    const back = await p.sf(["job", "status", owner]);
    expect(back.stdout).toContain(`· team ${VIS} ·`);
    expect(back.stdout).not.toContain("(borrowed)");

    const victim = await p.sf(["job", "status", borrower, "--events", "20"]);
    expect(victim.code, victim.stderr).toBe(0);
    expect(victim.stdout).toMatch(new RegExp(`^${borrower}\\s+\\S+\\s+QUEUED$`, "m"));
    expect(victim.stdout).toContain("[TEAM_LEND_LIMIT]");
    expect(victim.stdout).toMatch(/^1\s+run_\S+\s+PAUSED\s.*\(borrowed\)/m);
    expect(victim.stdout).toMatch(
      new RegExp(`RUNNING → PAUSED\\s.*system:preempt\\s+reclaimed by team ${VIS} for ${owner}`),
    );

    for (const id of [owner, borrower]) expect((await p.sf(["job", "stop", id])).code).toBe(0);
    await waitForStatus(cp, s.token, owner, ["STOPPED"], 60_000);
  });
});
