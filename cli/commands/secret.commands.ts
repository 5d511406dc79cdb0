/**
 * `sf secret …`: values your jobs get as environment variables, kept sealed by the control plane
 * (docs/security.md "Secrets"). Implementations load only when a command runs.
 */
import type { Command } from "commander";
import { examples } from "./options.js";

const secrets = () => import("../impl/secret/secrets.js");

export function register(program: Command): void {
  const secret = program
    .command("secret")
    .description("secrets your jobs get as environment variables (HF_TOKEN, WANDB_API_KEY, …): set, ls, rm")
    .addHelpText(
      "after",
      `${examples([
        "sf secret set HF_TOKEN                 # asks for the value, input hidden",
        'printf %s "$WANDB_KEY" | sf secret set WANDB_API_KEY',
        "sf submit exp1 --profile h200:1 --secret WANDB_API_KEY",
      ])}

A job gets only the secrets it names (JobSpec secrets: [NAME] or sf submit --secret NAME);
a job that names a HuggingFace model or dataset also gets your HF_TOKEN, which the
admission preflight uses for gated repos. Values are sealed at rest, never shown again,
and masked as *** in the job's stored logs.`,
    );

  secret
    .command("set")
    .argument("<name>", "an environment variable name, e.g. HF_TOKEN")
    .description("store or replace a secret; the value comes from standard input or --from-file, never argv")
    .allowExcessArguments(false)
    .option("--from-file <file>", "read the value from this file (one trailing newline is dropped)")
    .option("--fleet <fleet>", "a fleet's secret, for every job on it that names it (admins)")
    .addHelpText(
      "after",
      examples([
        "sf secret set HF_TOKEN",
        "sf secret set GCP_KEY --from-file key.json",
        'printf %s "$TOKEN" | sf secret set HF_TOKEN --fleet gpu-east',
      ]),
    )
    .action(async (name: string, o, cmd: Command) => (await secrets()).set(cmd, name, o));

  secret
    .command("ls")
    .alias("list")
    .description("list secret names, who set them and when (never values)")
    .option("--fleet <fleet>", "a fleet's secrets instead of yours")
    .option("--user <name>", "another user's secrets (admins)")
    .addHelpText("after", examples(["sf secret ls", "sf secret ls --fleet gpu-east --json"]))
    .action(async (o, cmd: Command) => (await secrets()).ls(cmd, o));

  secret
    .command("rm")
    .argument("<name>", "the secret's name")
    .description("remove a secret; queued jobs that name it then fail to launch")
    .option("--fleet <fleet>", "a fleet's secret (admins)")
    .option("--user <name>", "another user's secret (admins)")
    .addHelpText("after", examples(["sf secret rm HF_TOKEN"]))
    .action(async (name: string, o, cmd: Command) => (await secrets()).rm(cmd, name, o));
}
