/** @jsxImportSource hono/jsx */
/** Admin: every user's webhooks and a webhook's delivery log with "Redeliver". */
import type { DeliveryView, UserView, WebhookView } from "../../../contract/responses.schema.js";
import { apiGet, type ConsoleCtx } from "../api.js";
import { CsrfField, DataTable, Notice, Time } from "../layout.js";
import { enc, page, type Refusal, Refused } from "./admin-shared.js";

// webhooks ---------------------------------------------------------------------------------------

export async function webhooksPage(c: ConsoleCtx) {
  const only = c.req.query("user");
  const { users } = await apiGet<{ users: UserView[] }>(c, "/v1/users");
  const shown = (only ? users.filter((u) => u.name === only) : users).slice(0, 200);
  const lists = await Promise.all(
    shown.map((u) => apiGet<{ webhooks: WebhookView[] }>(c, `/v1/webhooks?user=${enc(u.name)}`)),
  );
  const rows = shown.flatMap((u, i) => lists[i]!.webhooks.map((w) => ({ owner: u.name, w })));
  return page(
    c,
    "Admin: webhooks",
    "webhooks",
    <>
      <h1>{only ? `Admin: webhooks of ${only}` : "Admin: webhooks"}</h1>
      {only ? (
        <p>
          <a href="/console/admin/webhooks">Every user's webhooks</a>
        </p>
      ) : null}
      {rows.length === 0 ? (
        <p class="note">No webhooks.</p>
      ) : (
        <DataTable class="webhooks" columns={["Endpoint", "Owner", "Events", "Created"]}>
          {rows.map(({ owner, w }) => (
            <tr>
              <th scope="row">
                <a href={`/console/admin/webhooks/${enc(w.id)}`}>{w.url}</a>
              </th>
              <td>{owner}</td>
              <td>{w.events.join(", ")}</td>
              <td>
                <Time iso={w.created_at} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>,
  );
}

export async function webhookPage(c: ConsoleCtx, id: string, o: { flash?: string; refused?: Refusal } = {}) {
  const session = c.get("session");
  const [{ webhook }, page1] = await Promise.all([
    apiGet<{ webhook: WebhookView }>(c, `/v1/webhooks/${enc(id)}`),
    apiGet<{ deliveries: DeliveryView[]; next_cursor: string | number | null }>(
      c,
      `/v1/webhooks/${enc(id)}/deliveries?limit=100`,
    ),
  ]);
  const base = `/console/admin/webhooks/${enc(webhook.id)}`;
  return page(
    c,
    "Webhook",
    "webhooks",
    <>
      <p class="crumbs">
        <a href="/console/admin/webhooks">Webhooks</a>
      </p>
      <h1>Webhook</h1>
      {o.flash ? (
        <Notice kind="info" title="Done">
          <p>{o.flash}</p>
        </Notice>
      ) : null}
      <Refused refused={o.refused ?? null} />
      <dl class="admin-facts">
        <dt>Endpoint</dt>
        <dd>
          <code>{webhook.url}</code>
        </dd>
        <dt>Events</dt>
        <dd>{webhook.events.join(", ")}</dd>
        <dt>Description</dt>
        <dd>{webhook.description || "—"}</dd>
        <dt>Secret</dt>
        <dd>
          <code>{`${webhook.secret_prefix}…`}</code>
        </dd>
      </dl>
      <section aria-labelledby="deliveries-h">
        <h2 id="deliveries-h">Delivery log</h2>
        {page1.deliveries.length === 0 ? (
          <p class="note">No deliveries yet.</p>
        ) : (
          <DataTable
            class="deliveries"
            columns={[
              "Event",
              "Type",
              "State",
              "Attempts",
              "Last answer",
              "Created",
              "Next attempt",
              "Action",
            ]}
          >
            {page1.deliveries.map((d) => (
              <tr data-delivery={d.id}>
                <th scope="row">
                  <code>{d.id}</code>
                </th>
                <td>{d.type}</td>
                <td>{d.state}</td>
                <td>{String(d.attempts)}</td>
                <td>{d.last_status_code !== null ? `HTTP ${d.last_status_code}` : (d.last_error ?? "—")}</td>
                <td>
                  <Time iso={d.created_at} />
                </td>
                <td>
                  <Time iso={d.next_attempt_at} />
                </td>
                <td>
                  <form method="post" action={`${base}/deliveries/${enc(d.id)}/redeliver`}>
                    <CsrfField session={session} />
                    <button type="submit">
                      Redeliver<span class="visually-hidden">{` ${d.id}`}</span>
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>,
    o.refused ? 400 : 200,
  );
}
