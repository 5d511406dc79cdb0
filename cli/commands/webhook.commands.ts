/**
 * `sf webhook …`: endpoints that receive your job events, signed (docs/operations.md "Webhooks").
 * Implementations load only when a command runs.
 */
import type { Command } from "commander";
import { examples } from "./options.js";

const endpoints = () => import("../impl/webhook/endpoints.js");
const deliveries = () => import("../impl/webhook/deliveries.js");

export function register(program: Command): void {
  const webhook = program
    .command("webhook")
    .description("send signed job events to your HTTPS endpoints: add, list, test, deliveries, redeliver")
    .addHelpText(
      "after",
      `${examples([
        "sf webhook add https://ci.example.org/starforge",
        "sf webhook test wh_01jv8…",
        "sf webhook deliveries wh_01jv8…",
      ])}

Each delivery is a POST signed the Standard Webhooks way (webhook-id,
webhook-timestamp, webhook-signature): verify it with the webhook's whsec_ secret
and any Standard Webhooks library (docs/api.md "Verifying a delivery").`,
    );

  webhook
    .command("add")
    .argument("<url>", "the endpoint: an http(s) URL without user name or password")
    .description("create a webhook and print its signing secret (shown once)")
    .option(
      "--events <list>",
      "comma-separated event types (job.succeeded, job.failed, job.stopped, job.queued, job.running, …) or '*' " +
        "(default: job.succeeded,job.failed,job.stopped)",
    )
    .option("--fleet <fleet>", "only jobs of this fleet (name or id)")
    .option("--description <text>", "a note for yourself")
    .addHelpText(
      "after",
      examples([
        "sf webhook add https://ci.example.org/starforge",
        "sf webhook add https://hooks.example.org/sf --events '*' --fleet local",
        "SECRET=$(sf webhook add https://hooks.example.org/sf --events job.failed)",
      ]),
    )
    .action(async (url: string, o, cmd: Command) => (await endpoints()).add(cmd, url, o));

  webhook
    .command("ls")
    .alias("list")
    .description("list your webhooks")
    .addHelpText("after", examples(["sf webhook ls", "sf webhook ls --json"]))
    .action(async (_o: unknown, cmd: Command) => (await endpoints()).ls(cmd));

  webhook
    .command("rm")
    .argument("<id>", "the webhook id (wh_…)")
    .description("delete a webhook; its pending deliveries are not sent")
    .addHelpText("after", examples(["sf webhook rm wh_01jv8…"]))
    .action(async (id: string, _o: unknown, cmd: Command) => (await endpoints()).rm(cmd, id));

  webhook
    .command("rotate-secret")
    .argument("<id>", "the webhook id (wh_…)")
    .description("replace the signing secret (printed once); the old one also signs for 24 hours")
    .addHelpText("after", examples(["sf webhook rotate-secret wh_01jv8…"]))
    .action(async (id: string, _o: unknown, cmd: Command) => (await endpoints()).rotate(cmd, id));

  webhook
    .command("test")
    .argument("<id>", "the webhook id (wh_…)")
    .description("send a webhook.test event and wait for the endpoint's answer (exit 1 unless 2xx)")
    .option("--no-wait", "only queue it; see the result with `sf webhook deliveries`")
    .addHelpText(
      "after",
      examples(["sf webhook test wh_01jv8…", "sf webhook test wh_01jv8… --no-wait --json"]),
    )
    .action(async (id: string, o: { wait: boolean }, cmd: Command) => (await deliveries()).test(cmd, id, o));

  webhook
    .command("deliveries")
    .argument("<id>", "the webhook id (wh_…)")
    .argument("[event]", "one delivery's event id (evt_…): show its attempts and body")
    .description("list a webhook's deliveries, newest first, with attempts and last status code")
    .option("--state <state>", "only pending, delivered or failed deliveries")
    .option("--limit <n>", "show at most N deliveries (default 30)")
    .addHelpText(
      "after",
      examples([
        "sf webhook deliveries wh_01jv8…",
        "sf webhook deliveries wh_01jv8… --state failed",
        "sf webhook deliveries wh_01jv8… evt_job_01jv6…_5",
      ]),
    )
    .action(async (id: string, event: string | undefined, o, cmd: Command) =>
      (await deliveries()).deliveries(cmd, id, event, o),
    );

  webhook
    .command("redeliver")
    .argument("<id>", "the webhook id (wh_…)")
    .argument("<event>", "the delivery's event id (evt_…)")
    .description("send a delivery again now: same id and body, a fresh retry budget")
    .addHelpText("after", examples(["sf webhook redeliver wh_01jv8… evt_job_01jv6…_5"]))
    .action(async (id: string, event: string, _o: unknown, cmd: Command) =>
      (await deliveries()).redeliver(cmd, id, event),
    );
}
