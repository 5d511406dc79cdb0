/** `sf webhook deliveries|redeliver|test`: what was sent to an endpoint, and sending again. */
import type { Command } from "commander";
import { DeliveryPage, type DeliveryView, OneDelivery } from "../../../contract/responses.schema.js";
import { type Api, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print, printJson, table } from "../../output.js";
import { age } from "../job/format.js";
import { parseLimit } from "../job/list.js";

/** An attempt gives up after 10 s on the server; waiting a little longer sees its result. */
const TEST_WAIT_MS = 15_000;
const STATES = ["pending", "delivered", "failed"];

function stateColor(s: string): string {
  return s === "delivered" ? c.green(s) : s === "failed" ? c.red(s) : c.yellow(s);
}

function lastAnswer(d: DeliveryView): string {
  if (d.attempts === 0) return "-";
  return d.last_status_code !== null ? String(d.last_status_code) : (d.last_error ?? "error");
}

export async function deliveries(
  cmd: Command,
  id: string,
  event: string | undefined,
  o: { state?: string; limit?: string },
): Promise<void> {
  const api = authedApi(cmd);
  if (event) return showDelivery(api, id, event);
  if (o.state && !STATES.includes(o.state))
    throw new CliError(`--state must be one of ${STATES.join(", ")}`, { exit: EXIT.USAGE });
  const limit = parseLimit(o.limit, 30);
  const q = new URLSearchParams({ limit: String(Math.min(limit, 200)) });
  if (o.state) q.set("state", o.state);
  const page = await api.get(route("/v1/webhooks/{id}/deliveries", { id }, q), DeliveryPage);
  emit(page, () => {
    if (page.deliveries.length === 0) {
      info(o.state ? `no ${o.state} deliveries` : "no deliveries yet — `sf webhook test` sends one");
      return;
    }
    table(
      page.deliveries.map((d) => ({
        event: d.id,
        type: d.type,
        state: stateColor(d.state),
        attempts: d.attempts,
        last: lastAnswer(d),
        codes: d.attempt_log.map((a) => a.status_code ?? "×").join(" "),
        age: age(d.created_at),
      })),
      ["event", "type", "state", "attempts", "last", "codes", "age"],
    );
    if (page.next_cursor) info(`(the newest ${page.deliveries.length}; --limit N for more)`);
  });
}

async function getDelivery(api: Api, id: string, event: string) {
  return (
    await api.get(route("/v1/webhooks/{id}/deliveries/{delivery}", { id, delivery: event }), OneDelivery)
  ).delivery;
}

async function showDelivery(api: Api, id: string, event: string): Promise<void> {
  const d = await getDelivery(api, id, event);
  emit({ delivery: d }, () => {
    print(`${c.bold(d.id)} ${d.type} ${stateColor(d.state)}`);
    if (d.next_attempt_at && d.state === "pending") print(c.dim(`next attempt at ${d.next_attempt_at}`));
    table(
      d.attempt_log.map((a) => ({
        n: a.n,
        at: a.at,
        status: a.status_code ?? "-",
        error: a.error,
        ms: a.duration_ms,
      })),
      ["n", "at", "status", "error", "ms"],
    );
    print(c.dim("body:"));
    printJson(d.payload);
  });
}

export async function redeliver(cmd: Command, id: string, event: string): Promise<void> {
  const r = await authedApi(cmd).post(
    route("/v1/webhooks/{id}/deliveries/{delivery}/redeliver", { id, delivery: event }),
    OneDelivery,
  );
  emit(r, () =>
    info(`${c.green("✓")} queued ${r.delivery.id} again; \`sf webhook deliveries ${id} ${event}\` shows it`),
  );
}

export async function test(cmd: Command, id: string, o: { wait: boolean }): Promise<void> {
  const api = authedApi(cmd);
  const queued = (await api.post(route("/v1/webhooks/{id}/test", { id }), OneDelivery)).delivery;
  if (!o.wait) {
    emit({ delivery: queued }, () => info(`${c.green("✓")} queued ${queued.id}`));
    return;
  }
  const deadline = Date.now() + TEST_WAIT_MS;
  let d = queued;
  while (d.attempts === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    d = await getDelivery(api, id, queued.id);
  }
  const ok = d.last_status_code !== null && d.last_status_code >= 200 && d.last_status_code < 300;
  if (d.attempts > 0 && !ok) {
    throw new CliError(`the endpoint answered ${lastAnswer(d)} to ${d.id}`, {
      code: "WEBHOOK_TEST_FAILED",
      details: { delivery: d },
      hint: `it is retried with backoff; \`sf webhook deliveries ${id} ${d.id}\` shows every attempt`,
    });
  }
  emit({ delivery: d }, () => {
    if (d.attempts === 0)
      info(`${queued.id} is still queued; \`sf webhook deliveries ${id}\` shows it later`);
    else info(`${c.green("✓")} the endpoint answered ${d.last_status_code} to ${d.id}`);
  });
}
