/**
 * `sf admin …`: users and quotas, fleets and their maintenance, profiles, recipes. Every route behind
 * these needs the admin role; a non-admin gets exit 3. Implementations load only when a command runs.
 * Priority classes and teams have files of their own (admin-priority-class, admin-team .commands.ts).
 */
import { Argument, type Command, InvalidArgumentError, Option } from "commander";
import { registerPriorityClassCommands } from "./admin-priority-class.commands.js";
import { registerTeamCommands } from "./admin-team.commands.js";
import { collect, examples, int } from "./options.js";

const ROLES = ["viewer", "operator", "admin"];
const KINDS = ["process", "docker", "kuberay", "slurm"];

function nonNegative(v: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError("must be a number ≥ 0");
  return n;
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

  registerPriorityClassCommands(admin);
  registerTeamCommands(admin);

  const fleet = admin
    .command("fleet")
    .description(
      "create and inspect fleets, set their labels, network settings and failure rules, mint agent enrollment tokens",
    )
    .addHelpText(
      "after",
      examples(["sf admin fleet ls", "sf admin fleet show local", "sf admin fleet diagnosis local"]),
    );

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
    .command("labels")
    .argument("<name>", "the fleet")
    .argument("[labels...]", "labels to set, KEY=VALUE (others are kept)")
    .description(
      "show or set the fleet's labels, which `sf submit --fleet-selector` matches (site, region, …)",
    )
    .option("--rm <key>", "remove this label (repeatable)", collect)
    .addHelpText(
      "after",
      examples([
        "sf admin fleet labels lab",
        "sf admin fleet labels lab site=eu region=fra",
        "sf admin fleet labels lab --rm region",
      ]),
    )
    .action(async (name: string, labels: string[], o, cmd: Command) =>
      (await fleets()).fleetLabels(cmd, name, labels, o),
    );

  fleet
    .command("diagnosis")
    .argument("<name>", "the fleet")
    .description(
      "show or replace the fleet's own failure rules (a log-line pattern or an exit code → a class, tried before the built-in ones) and its per-class retry actions",
    )
    .addOption(
      new Option(
        "--set <file>",
        "replace them all from a JSON or YAML file: { rules: [{ pattern | exit_code, class, hint?, action? }], actions: { CLASS: action } }",
      ).conflicts("clear"),
    )
    .option("--clear", "remove them all: the built-in table decides again")
    .addHelpText(
      "after",
      `${examples([
        "sf admin fleet diagnosis lab",
        "sf admin fleet diagnosis lab --set rules.yaml",
        "sf admin fleet diagnosis lab --clear",
        "sf admin fleet diagnosis lab --json | jq '.diagnosis.rules[0]'",
      ])}

A rules.yaml (docs/operations.md "A fleet's own rules"):
  rules:
    - pattern: "(?i)lustre.*stale file handle"   # a JavaScript regex over one log line
      class: NETWORK
      hint: "The scratch mount went away: ask #storage."
      action: retry              # retry | retry_elsewhere | retry_if_infra | no_retry
    - exit_code: 42
      class: DISK_FULL
  actions:
    DISK_FULL: no_retry          # this fleet's action for a class

The earliest line or exit a rule matches decides, and the diagnosis names the rule (its index). The file is
checked before anything is sent: a pattern that does not compile or matches an empty line, an unknown class
or action, a rule with both or neither of pattern and exit_code is refused (INVALID_RULES, exit 5) naming
the rule. Only failures diagnosed after the change use the new rules.`,
    )
    .action(async (name: string, o: { set?: string; clear?: boolean }, cmd: Command) =>
      (await import("../impl/admin/fleet-diagnosis.js")).fleetDiagnosis(cmd, name, o),
    );

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
