/**
 * `sf admin team …`: teams, their members, quotas and budgets. Registered by admin.commands.ts; the
 * implementation loads only when a command runs.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { examples, int } from "./options.js";

const teams = () => import("../impl/admin/teams.js");

/**
 * A GPU count, or `none`: no limit for --borrow-limit, all of the guarantee for --lend-limit. `none` stays
 * the string (the implementation sends null): commander turns a parser's null into "".
 */
function countOrNone(name: string) {
  return (v: string): number | "none" => {
    if (v === "none") return v;
    if (!/^\d+$/.test(v))
      throw new InvalidArgumentError(`${name} takes a number of GPUs or "none", got "${v}"`);
    return Number(v);
  };
}

function weight(v: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n <= 0 || n > 1000)
    throw new InvalidArgumentError("--weight must be a number above 0, at most 1000");
  return n;
}

const TEAMS_HELP = `
A job runs for one team: the one it names (sf submit --team NAME), else its
submitter's primary team. Per fleet and GPU series, a team's quota says:
  guaranteed    GPUs that are the team's: its jobs get them whenever they want
                them; other teams' jobs that borrowed them are preempted once
                past their class's minimum runtime (they checkpoint and queue
                again: "reclaimed by team ...")
  borrow limit  GPUs beyond the guarantee its jobs may use while other teams
                leave theirs idle (none: no limit but the fleet's size); such a
                run is "borrowed"
  lend limit    GPUs of its guarantee other teams may borrow while it leaves
                them idle (none: all of it)
  weight        its share of borrowed GPUs against other borrowers (weight 2
                gets twice what weight 1 gets)
Teams count in a fleet only for the series some team has a quota for there.
Jobs of a class that may not borrow or is never preempted (\`sf admin
priority-class ls\`) run only inside their team's guarantee.`;

/** A number of GPU-hours (fractions too), or `none`: no budget for that period (kept as the string, as above). */
function hoursOrNone(name: string) {
  return (v: string): number | "none" => {
    if (v === "none") return v;
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n) || n < 0 || n > 100_000_000)
      throw new InvalidArgumentError(
        `${name} takes a number of GPU-hours (0 to 100000000) or "none", got "${v}"`,
      );
    return n;
  };
}

/** What a team's work does once its budget is spent (contract/teams.ts BUDGET_POLICIES). */
const BUDGET_POLICIES = ["refuse", "pause", "borrow_free"];

const BUDGET_HELP = `
A budget caps the GPU-hours a team's jobs use per calendar month and/or per ISO
week (Monday to Monday), both in UTC; it renews by itself when the next period
starts. Every GPU a run holds counts, in the team's guarantee or borrowed. Use
is metered from the ledger every minute and at once when a budget is set, so a
budget set below what the team already used binds immediately.
What happens once it is spent (--policy):
  refuse       (default) new jobs of the team are refused (BUDGET_EXHAUSTED,
               exit 5); its queued jobs wait (pending reason BUDGET_EXHAUSTED)
               and its running jobs go on
  pause        as refuse, and its running jobs also pause at their next
               checkpoint (never killed); they resume when the period renews
  borrow_free  new jobs are still accepted, but only work within the team's
               guarantee runs: its queued jobs start only on its guaranteed
               GPUs, never on other teams' idle ones; running ones go on
Once per period, at 80 % and at 100 %, the team's members' webhooks that
subscribe to them get team.budget_warning and team.budget_exhausted (\`sf webhook
add URL --events team.budget_warning,team.budget_exhausted\`; '*' has neither).
\`sf usage --by team\` shows each team's use against its budget (docs/scheduling.md
"Budgets").`;

export function registerTeamCommands(admin: Command): void {
  const team = admin
    .command("team")
    .description(
      "teams: their members, and per fleet and GPU series the GPUs each is guaranteed, may borrow and lends (docs/scheduling.md)",
    )
    .addHelpText(
      "after",
      `${TEAMS_HELP}\n${examples([
        "sf admin team set ml --description 'ML research'",
        "sf admin team member add ml ada --primary",
        "sf admin team quota set ml --fleet lab --series h200 --guaranteed 16 --borrow-limit 8",
        "sf admin team ls",
      ])}`,
    );

  team
    .command("ls")
    .description(
      "list the teams: members (* their primary team) and quotas as fleet/series guaranteed+borrow limit/lend limit, weight",
    )
    .addHelpText(
      "after",
      `
A quota cell reads lab/h200 16+8/4 w2: 16 H200s guaranteed in fleet lab, up
to 8 more borrowed, up to 4 of the 16 lent while idle, weight 2 (∞: no borrow
limit; all: it lends its whole guarantee).
${examples(["sf admin team ls", "sf admin team ls --json"])}`,
    )
    .action(async (_o: unknown, cmd: Command) => (await teams()).listTeams(cmd));

  team
    .command("show")
    .argument("<name>", "the team")
    .description("show a team: its members, which of them it is the primary team of, and its quotas")
    .addHelpText("after", examples(["sf admin team show ml", "sf admin team show ml --json"]))
    .action(async (name: string, _o: unknown, cmd: Command) => (await teams()).showTeam(cmd, name));

  team
    .command("set")
    .argument("<name>", "lowercase team name (letters, digits, -; starts with a letter; at most 32)")
    .description("create a team, or change its description")
    .option("--description <text>", "what the team is (default: kept; empty for a new team)")
    .addHelpText(
      "after",
      examples(["sf admin team set ml", "sf admin team set ml --description 'ML research'"]),
    )
    .action(async (name: string, o: { description?: string }, cmd: Command) =>
      (await teams()).setTeam(cmd, name, o),
    );

  team
    .command("budget")
    .argument("<name>", "the team")
    .description(
      "show a team's GPU-hour budget and its use, or change the given fields (the others keep their value): GPU-hours per calendar month and/or ISO week (UTC), and what happens once spent",
    )
    .option(
      "--monthly <hours|none>",
      "GPU-hours the team's jobs may use per calendar month (UTC); none: no monthly budget",
      hoursOrNone("--monthly"),
    )
    .option(
      "--weekly <hours|none>",
      "GPU-hours the team's jobs may use per ISO week (UTC, from Monday); none: no weekly budget",
      hoursOrNone("--weekly"),
    )
    .addOption(
      new Option(
        "--policy <policy>",
        "what happens once it is spent: refuse new jobs, pause running ones too, or run only within the guarantee (default for a team: refuse)",
      ).choices(BUDGET_POLICIES),
    )
    .addHelpText(
      "after",
      `${BUDGET_HELP}\n${examples([
        "sf admin team budget ml                              # show it and its use",
        "sf admin team budget ml --monthly 500                # 500 GPU-hours a month, refuse when spent",
        "sf admin team budget ml --weekly 150 --policy pause",
        "sf admin team budget ml --policy borrow_free",
        "sf admin team budget ml --monthly none --weekly none # no budget any more",
      ])}`,
    )
    .action(async (name: string, o, cmd: Command) => (await teams()).setBudget(cmd, name, o));

  team
    .command("rm")
    .argument("<name>", "the team")
    .description(
      "delete a team with its members and quotas (a member whose primary team it was gets another of theirs)",
    )
    .addHelpText("after", examples(["sf admin team rm ml"]))
    .action(async (name: string, _o: unknown, cmd: Command) => (await teams()).removeTeam(cmd, name));

  const member = team
    .command("member")
    .description("add users to a team and remove them (a user may be in several; one is their primary)")
    .addHelpText(
      "after",
      examples(["sf admin team member add ml ada --primary", "sf admin team member rm ml ada"]),
    );

  member
    .command("add")
    .argument("<team>", "the team")
    .argument("<user>", "the user")
    .description(
      "add a user to a team; a user's first team is their primary one: the team of their jobs that name none",
    )
    .option("--primary", "make it the user's primary team (also for a member already)")
    .addHelpText(
      "after",
      examples([
        "sf admin team member add ml ada             # ada may submit with --team ml",
        "sf admin team member add ml ada --primary   # ada's jobs run for ml unless they name another team",
      ]),
    )
    .action(async (t: string, user: string, o: { primary?: boolean }, cmd: Command) =>
      (await teams()).addMember(cmd, t, user, o),
    );

  member
    .command("rm")
    .argument("<team>", "the team")
    .argument("<user>", "the user")
    .description(
      "remove a user from a team (if it was their primary team, their oldest other team becomes it); their jobs keep the team they were queued for",
    )
    .addHelpText("after", examples(["sf admin team member rm ml ada"]))
    .action(async (t: string, user: string, _o: unknown, cmd: Command) =>
      (await teams()).removeMember(cmd, t, user),
    );

  const quota = team
    .command("quota")
    .description("set and remove a team's quota for one GPU series in one fleet")
    .addHelpText(
      "after",
      `${TEAMS_HELP}\n${examples(["sf admin team quota set ml --fleet lab --series h200 --guaranteed 16"])}`,
    );

  const where = (cmd: Command) =>
    cmd
      .addOption(new Option("--fleet <fleet>", "the fleet (name or id)").makeOptionMandatory())
      .addOption(
        new Option(
          "--series <series>",
          "the GPU series (as profiles name it, e.g. h200)",
        ).makeOptionMandatory(),
      );

  where(
    quota
      .command("set")
      .argument("<team>", "the team")
      .description(
        "set a team's quota for a GPU series in a fleet; flags left out keep the quota's value (a new quota: borrow limit none, lend limit none, weight 1)",
      ),
  )
    .option(
      "--guaranteed <n>",
      "GPUs the team gets whenever it wants them, reclaimed from borrowers (required for a new quota; 0: it only borrows)",
      int("--guaranteed", 0),
    )
    .option(
      "--borrow-limit <n|none>",
      "GPUs beyond the guarantee it may use while other teams' are idle (none: no limit)",
      countOrNone("--borrow-limit"),
    )
    .option(
      "--lend-limit <n|none>",
      "GPUs of its guarantee other teams may borrow while it leaves them idle (none: all of it)",
      countOrNone("--lend-limit"),
    )
    .option("--weight <w>", "its share of borrowed GPUs against other borrowers (default 1)", weight)
    .addHelpText(
      "after",
      examples([
        "# 16 H200s in fleet lab are ml's:",
        "sf admin team quota set ml --fleet lab --series h200 --guaranteed 16",
        "# and ml may use 8 more while other teams leave theirs idle:",
        "sf admin team quota set ml --fleet lab --series h200 --borrow-limit 8",
        "# others may borrow at most 4 of ml's 16 while ml leaves them idle:",
        "sf admin team quota set ml --fleet lab --series h200 --lend-limit 4",
        "# ml gets twice the borrowed share of a team of weight 1:",
        "sf admin team quota set ml --fleet lab --series h200 --weight 2",
        "# back to no borrow limit, lending the whole guarantee:",
        "sf admin team quota set ml --fleet lab --series h200 --borrow-limit none --lend-limit none",
      ]),
    )
    .action(async (t: string, o, cmd: Command) => (await teams()).setQuota(cmd, t, o));

  where(
    quota
      .command("rm")
      .argument("<team>", "the team")
      .description("remove a team's quota for a GPU series in a fleet: it holds no guarantee there any more"),
  )
    .addHelpText("after", examples(["sf admin team quota rm ml --fleet lab --series h200"]))
    .action(async (t: string, o: { fleet: string; series: string }, cmd: Command) =>
      (await teams()).removeQuota(cmd, t, o),
    );
}
