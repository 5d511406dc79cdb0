/**
 * `sf admin …`: users and quotas, fleets and their maintenance, profiles, recipes. Every route behind
 * these needs the admin role; a non-admin gets exit 3. Implementations load only when a command runs.
 */
import { Argument, type Command, InvalidArgumentError, Option } from "commander";

const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  ${l}`).join("\n")}`;

const ROLES = ["viewer", "operator", "admin"];
const KINDS = ["process", "docker", "kuberay", "slurm"];

function int(name: string, min: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min)
      throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return Number(v);
  };
}

function nonNegative(v: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError("must be a number ≥ 0");
  return n;
}

function collect(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), v];
}

function keyValue(v: string, prev: string[] | undefined): string[] {
  if (!/^[^=]+=/.test(v)) throw new InvalidArgumentError(`takes NAME=VALUE, got "${v}"`);
  return collect(v, prev);
}

function portRange(v: string): string {
  if (v !== "any" && !/^\d{4,5}-\d{4,5}$/.test(v))
    throw new InvalidArgumentError(`takes LOW-HIGH (e.g. 29500-29599) or "any", got "${v}"`);
  return v;
}

const NETWORK_HELP = {
  env: "a variable every rank of a distributed job gets, e.g. NCCL_SOCKET_IFNAME=ib0 (NCCL_*, GLOO_*, UCX_*, FI_*, TORCH_NCCL_*, TORCH_DISTRIBUTED_*, MLX5_*, OMPI_*); repeatable",
  timeout: "seconds the ranks of a distributed job wait for each other at the rendezvous (default 300)",
  ports: "ports rank 0 may listen on, LOW-HIGH, or any (default: any free port)",
};

const users = () => import("../impl/admin/users.js");
const fleets = () => import("../impl/admin/fleets.js");
const profiles = () => import("../impl/admin/profiles.js");
const recipes = () => import("../impl/admin/recipes.js");
const audit = () => import("../impl/admin/audit.js");
const nodes = () => import("../impl/admin/nodes.js");
const classes = () => import("../impl/admin/priority-classes.js");
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

function signedInt(name: string) {
  return (v: string): number => {
    if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be an integer`);
    return Number(v);
  };
}

export function register(program: Command): void {
  const admin = program
    .command("admin")
    .description(
      "administer the control plane: users, quotas, priority classes, teams, fleets, maintenance, profiles, recipes (admin role)",
    )
    .addHelpText(
      "after",
      examples(["sf admin users", "sf admin user-add ada --role operator", "sf admin fleet show local"]),
    );

  admin
    .command("users")
    .description("list users with their role and whether they are disabled")
    .addHelpText("after", examples(["sf admin users", "sf admin users --json"]))
    .action(async (_o: unknown, cmd: Command) => (await users()).listUsers(cmd));

  admin
    .command("user-add")
    .argument("<name>", "lowercase user name (2–39 chars, starts with a letter)")
    .description("create a user and print their first personal access token (shown once)")
    .addOption(new Option("--role <role>", "the user's role").choices(ROLES).default("operator"))
    .option("--email <email>", "the user's e-mail address")
    .addHelpText(
      "after",
      examples(["sf admin user-add ada", "sf admin user-add bob --role viewer --email bob@example.org"]),
    )
    .action(async (name: string, o: { role: string; email?: string }, cmd: Command) =>
      (await users()).addUser(cmd, name, o),
    );

  admin
    .command("set-role")
    .argument("<name>", "the user")
    .addArgument(new Argument("<role>", "the new role").choices(ROLES))
    .description("change a user's role")
    .addHelpText("after", examples(["sf admin set-role ada admin", "sf admin set-role bob viewer"]))
    .action(async (name: string, role: string, _o: unknown, cmd: Command) =>
      (await users()).setRole(cmd, name, role),
    );

  admin
    .command("disable")
    .argument("<name>", "the user")
    .description("disable a user: their tokens stop working until they are enabled again")
    .addHelpText("after", examples(["sf admin disable bob"]))
    .action(async (name: string, _o: unknown, cmd: Command) => (await users()).setDisabled(cmd, name, true));

  admin
    .command("enable")
    .argument("<name>", "the user")
    .description("enable a disabled user again")
    .addHelpText("after", examples(["sf admin enable bob"]))
    .action(async (name: string, _o: unknown, cmd: Command) => (await users()).setDisabled(cmd, name, false));

  admin
    .command("quota")
    .argument("<user>", "the user")
    .description("show a user's quota, or change the given fields (the others keep their current value)")
    .option("--gpus <n>", "GPUs the user may hold at once", int("--gpus", 0))
    .option("--jobs <n>", "active jobs the user may have at once", int("--jobs", 0))
    .option("--daily-gpu-hours <h>", "GPU-hours the user may use per UTC day", nonNegative)
    .option(
      "--profiles <list>",
      'profiles the user may submit to, comma-separated ("all" or "" allows every profile)',
    )
    .option("--priority <p>", "scheduling priority, 0–100 (higher goes first)", int("--priority", 0))
    .option(
      "--max-priority-class <name>",
      "the highest priority class the user's jobs may ask for (see `sf admin priority-class ls`)",
    )
    .addHelpText(
      "after",
      examples([
        "sf admin quota ada                                  # show",
        "sf admin quota ada --max-priority-class high",
        "sf admin quota ada --gpus 32 --jobs 10",
        "sf admin quota ada --daily-gpu-hours 200 --profiles h200,h100 --priority 20",
        "sf admin quota ada --profiles all",
      ]),
    )
    .action(async (user: string, o, cmd: Command) => (await users()).quota(cmd, user, o));

  const pc = admin
    .command("priority-class")
    .description("priority classes: the queue's order, and who may preempt whom (docs/scheduling.md)")
    .addHelpText("after", examples(["sf admin priority-class ls"]));

  pc.command("ls")
    .description("list the priority classes, highest value first")
    .addHelpText("after", examples(["sf admin priority-class ls", "sf admin priority-class ls --json"]))
    .action(async (_o: unknown, cmd: Command) => (await classes()).listClasses(cmd));

  pc.command("set")
    .argument("<name>", "the class (one of the built-ins, or a new one: then --value is required)")
    .description("change a class's attributes (the others keep their value), or add a class")
    .option("--value <n>", "its value: higher runs first and may preempt lower", signedInt("--value"))
    .option("--preemptible", "jobs of this class may be preempted by higher classes")
    .option("--no-preemptible", "jobs of this class are never preempted")
    .option(
      "--grace-seconds <s>",
      "seconds a preempted job gets to checkpoint before SIGKILL",
      int("--grace-seconds", 0),
    )
    .option(
      "--min-runtime-seconds <s>",
      "seconds a job runs before it may be preempted",
      int("--min-runtime-seconds", 0),
    )
    .option("--borrow", "jobs of this class may use GPUs beyond their team's guarantee")
    .option("--no-borrow", "jobs of this class run only inside guaranteed quota")
    .option("--description <text>", "what the class is for")
    .addHelpText(
      "after",
      examples([
        "sf admin priority-class set low --min-runtime-seconds 120 --grace-seconds 90",
        "sf admin priority-class set batch --value -200 --preemptible --description 'nightly batch'",
        "sf admin priority-class set high --no-preemptible",
      ]),
    )
    .action(async (name: string, o, cmd: Command) => (await classes()).setClass(cmd, name, o));

  pc.command("rm")
    .argument("<name>", "a class an admin added (the built-ins cannot be removed)")
    .description("remove a class; its jobs count as normal from then on")
    .action(async (name: string, _o: unknown, cmd: Command) => (await classes()).removeClass(cmd, name));

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

  const fleet = admin
    .command("fleet")
    .description("create and inspect fleets, mint agent enrollment tokens")
    .addHelpText("after", examples(["sf admin fleet ls", "sf admin fleet show local"]));

  fleet
    .command("create")
    .argument("<name>", "lowercase fleet name (letters, digits, -)")
    .description("create a fleet")
    .addOption(new Option("--kind <kind>", "how its agents run jobs").choices(KINDS).makeOptionMandatory())
    .option(
      "--allow <image>",
      "an image pattern jobs may run (registry/org/*, name:tag, name@sha256:…); repeatable",
      collect,
    )
    .option("--description <text>", "what the fleet is")
    .option("--network-env <NAME=VALUE>", NETWORK_HELP.env, keyValue)
    .option("--rendezvous-timeout <seconds>", NETWORK_HELP.timeout, int("--rendezvous-timeout", 5))
    .option("--rendezvous-ports <range>", NETWORK_HELP.ports, portRange)
    .addHelpText(
      "after",
      examples([
        "sf admin fleet create lab --kind docker --allow 'ghcr.io/acme/*' --description 'the lab GPU boxes'",
        "sf admin fleet create hpc --kind slurm",
        "sf admin fleet create ib --kind docker --network-env NCCL_SOCKET_IFNAME=ib0 --network-env NCCL_IB_HCA=mlx5 --rendezvous-ports 29500-29599",
      ]),
    )
    .action(async (name: string, o, cmd: Command) => (await fleets()).createFleet(cmd, name, o));

  fleet
    .command("ls")
    .description("list fleets")
    .addHelpText("after", examples(["sf admin fleet ls", "sf admin fleet ls --json"]))
    .action(async (_o: unknown, cmd: Command) => (await fleets()).listFleets(cmd));

  fleet
    .command("show")
    .argument("<name>", "the fleet (name or id)")
    .description(
      "show a fleet live: nodes and their GPUs, allocations, totals and the queue with its reasons",
    )
    .addHelpText(
      "after",
      examples(["sf admin fleet show local", "sf admin fleet show local --json | jq .totals"]),
    )
    .action(async (name: string, _o: unknown, cmd: Command) => (await fleets()).showFleet(cmd, name));

  fleet
    .command("network")
    .argument("<name>", "the fleet")
    .description(
      "show or change the network settings of a fleet's distributed jobs: variables every rank gets, the rendezvous timeout, rank 0's ports (docs/multi-node.md)",
    )
    .option("--env <NAME=VALUE>", NETWORK_HELP.env, keyValue)
    .option("--unset-env <NAME>", "remove a variable; repeatable", collect)
    .option("--rendezvous-timeout <seconds>", NETWORK_HELP.timeout, int("--rendezvous-timeout", 5))
    .option("--rendezvous-ports <range>", NETWORK_HELP.ports, portRange)
    .addHelpText(
      "after",
      examples([
        "sf admin fleet network lab",
        "sf admin fleet network lab --env NCCL_SOCKET_IFNAME=eth1 --env GLOO_SOCKET_IFNAME=eth1",
        "sf admin fleet network lab --unset-env NCCL_IB_HCA --rendezvous-timeout 600 --rendezvous-ports any",
      ]),
    )
    .action(async (name: string, o, cmd: Command) => (await fleets()).fleetNetwork(cmd, name, o));

  fleet
    .command("preemption")
    .argument("<name>", "the fleet")
    .description(
      "show or set how many preemptions may start in the fleet per minute (anti-thrash; 0: jobs never displace running ones there)",
    )
    .option(
      "--per-minute <n>",
      "preemptions that may start per minute (default 10; 0: none)",
      int("--per-minute", 0),
    )
    .addHelpText(
      "after",
      examples(["sf admin fleet preemption lab", "sf admin fleet preemption lab --per-minute 3"]),
    )
    .action(async (name: string, o, cmd: Command) => (await fleets()).fleetPreemption(cmd, name, o));

  fleet
    .command("enroll-token")
    .argument("<name>", "the fleet")
    .description("mint a one-shot token an agent enrolls with (`forgelet enroll --token …`)")
    .option("--ttl-minutes <m>", "minutes the token stays valid (default 60)", int("--ttl-minutes", 1))
    .addHelpText(
      "after",
      examples([
        "sf admin fleet enroll-token lab",
        "sf admin fleet enroll-token lab --ttl-minutes 15 --json",
      ]),
    )
    .action(async (name: string, o: { ttlMinutes?: number }, cmd: Command) =>
      (await fleets()).enrollToken(cmd, name, o),
    );

  const node = admin
    .command("node")
    .description("list a fleet's nodes and take one out of service: cordon, drain, revoke, remove")
    .addHelpText(
      "after",
      examples([
        "sf admin node ls --fleet lab",
        "sf admin node cordon gpu-07 --fleet lab --note 'fan swap'",
        "sf admin node drain gpu-07 --fleet lab",
        "sf admin node revoke gpu-07 --fleet lab --note 'disk stolen'",
      ]),
    );
  const fleetOpt = () => new Option("--fleet <fleet>", "the node's fleet (name or id)").makeOptionMandatory();
  node
    .command("ls")
    .description("list the fleet's nodes: status, cordon, agent, GPUs in use")
    .addOption(fleetOpt())
    .action(async (o: { fleet: string }, cmd: Command) => (await nodes()).ls(cmd, o.fleet));
  const actions = [
    ["cordon", "place no new runs on it; running ones go on", true],
    ["uncordon", "let it take new runs again", false],
    [
      "drain",
      "cordon it and move its resumable runs elsewhere (stopped with a checkpoint, queued again)",
      true,
    ],
    ["revoke", "disconnect its agent now and refuse it from then on; its runs are handled as lost", true],
  ] as const;
  for (const [name, what, noted] of actions) {
    const sub = node
      .command(name)
      .argument("<node>", "the node (name or id)")
      .description(what)
      .addOption(fleetOpt());
    if (noted) sub.option("--note <text>", "why, for whoever looks later (shown in `node ls`)");
    sub.action(async (n: string, o: { fleet: string; note?: string }, cmd: Command) =>
      (await nodes()).act(cmd, name, n, o),
    );
  }
  node
    .command("rm")
    .argument("<node>", "the node (name or id)")
    .description("forget a node that holds no run; its agent stays refused")
    .addOption(fleetOpt())
    .action(async (n: string, o: { fleet: string }, cmd: Command) =>
      (await nodes()).act(cmd, "remove", n, o),
    );

  const profile = admin
    .command("profile")
    .description("manage hardware profiles (name → GPU series and node shape)")
    .addHelpText("after", examples(["sf admin profile ls"]));

  profile
    .command("ls")
    .description("list profiles")
    .addHelpText("after", examples(["sf admin profile ls", "sf admin profile ls --json"]))
    .action(async (_o: unknown, cmd: Command) => (await profiles()).listProfiles(cmd));

  profile
    .command("set")
    .argument("<name>", "lowercase profile name")
    .description("create or replace a profile")
    .requiredOption("--series <series>", "the GPU series it runs on (e.g. h200)")
    .requiredOption("--gpus-per-node <n>", "GPUs per node of that series", int("--gpus-per-node", 1))
    .option(
      "--default-gpus <n>",
      "GPUs a bare `--profile NAME` asks for (default: kept, or 1 for a new profile)",
      int("--default-gpus", 1),
    )
    .option("--description <text>", "what it is (default: kept)")
    .addHelpText(
      "after",
      examples([
        "sf admin profile set h200x4 --series h200 --gpus-per-node 8 --default-gpus 4 --description 'half an H200 node'",
      ]),
    )
    .action(async (name: string, o, cmd: Command) => (await profiles()).setProfile(cmd, name, o));

  profile
    .command("rm")
    .argument("<name>", "the profile")
    .description("delete a profile")
    .addHelpText("after", examples(["sf admin profile rm h200x4"]))
    .action(async (name: string, _o: unknown, cmd: Command) => (await profiles()).removeProfile(cmd, name));

  const recipe = admin.command("recipe").description("publish recipe versions to the catalog");

  recipe
    .command("publish")
    .argument("<file>", "a recipe version as .json, .yaml or .yml")
    .description(
      "publish a recipe version (versions are immutable; republishing identical content is a no-op)",
    )
    .addHelpText(
      "after",
      examples([
        "sf admin recipe publish recipes/torch-sft-1.1.0.yaml",
        "sf admin recipe publish recipe.json --json",
      ]),
    )
    .action(async (file: string, _o: unknown, cmd: Command) => (await recipes()).publishRecipe(cmd, file));

  admin
    .command("audit")
    .description(
      "show the audit log, newest first: who did which administrative or security-relevant action to what, when and from where (successful actions only)",
    )
    .option("--actor <who>", "only this actor: a user name or id, agent:<node id> or system")
    .option("--action <prefix>", "only actions starting with this (e.g. secret. or user.create)")
    .option("--target <target>", "only this target (e.g. user:ada, fleet:lab)")
    .option("--since <time>", "only entries at or after this ISO date or time")
    .option("--until <time>", "only entries before this ISO date or time")
    .option("--limit <n>", "at most this many entries (default 50)")
    .addHelpText(
      "after",
      examples([
        "sf admin audit",
        "sf admin audit --action secret. --since 2026-01-01",
        "sf admin audit --actor ada --limit 200 --json",
      ]),
    )
    .action(async (o, cmd: Command) => (await audit()).listAudit(cmd, o));

  const maintenance = admin
    .command("maintenance")
    .description(
      "drain a fleet for maintenance (new submits refused, jobs checkpoint and pause) and resume it",
    )
    .addHelpText(
      "after",
      examples([
        "sf admin maintenance status local",
        "sf admin maintenance drain local --note 'driver upgrade'",
      ]),
    );

  maintenance
    .command("status")
    .argument("<fleet>", "the fleet")
    .description(
      "show whether a fleet is draining: its note, what the drain paused, and what still blocks it",
    )
    .addHelpText("after", examples(["sf admin maintenance status local"]))
    .action(async (f: string, _o: unknown, cmd: Command) => (await fleets()).maintenanceStatus(cmd, f));

  maintenance
    .command("drain")
    .argument("<fleet>", "the fleet")
    .description(
      "start draining (idempotent): new submits are refused with the note, queued jobs are held, running jobs that can resume checkpoint and pause; the rest are listed as blockers",
    )
    .option("--note <text>", "why, shown to people whose submits are refused", "maintenance")
    .addHelpText(
      "after",
      examples(["sf admin maintenance drain local --note 'driver upgrade until 14:00 UTC'"]),
    )
    .action(async (f: string, o: { note: string }, cmd: Command) => (await fleets()).drain(cmd, f, o.note));

  maintenance
    .command("resume")
    .argument("<fleet>", "the fleet")
    .description(
      "end maintenance: accept submits and re-queue the jobs the drain paused, in their original order (they continue from their checkpoints)",
    )
    .addHelpText("after", examples(["sf admin maintenance resume local"]))
    .action(async (f: string, _o: unknown, cmd: Command) => (await fleets()).resume(cmd, f));
}
