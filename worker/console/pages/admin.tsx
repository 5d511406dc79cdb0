/** @jsxImportSource hono/jsx */
/**
 * Admin pages (admins only; anyone else gets the "not found" page): users (create, disable/enable, their
 * tokens and quota), fleets with their nodes (and, read-only, the priority classes and teams), webhooks
 * of every user with their delivery log and "Redeliver". Every form posts here with the CSRF field and
 * calls the matching /v1 route as the admin (apiSend); a refusal re-renders the form with the API's code
 * and message and what was typed.
 */
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import { FLEET_KINDS, ROLES } from "../../../contract/api.schema.js";
import type { PriorityClass } from "../../../contract/priority-classes.js";
import type { FleetView, QuotaView, TokenView, UserView } from "../../../contract/responses.schema.js";
import type { TeamView } from "../../../contract/teams.js";
import { ApiFailure, apiGet, apiSend, type ConsoleCtx, type ConsoleEnv } from "../api.js";
import { CsrfField, DataTable, Notice, Time } from "../layout.js";
import type { Session } from "../session.js";
import {
  adminOnly,
  attempt,
  enc,
  form,
  type NodeRow,
  num,
  page,
  type Refusal,
  Refused,
} from "./admin-shared.js";
import { webhookPage, webhooksPage } from "./admin-webhooks.js";
import { budgetLabel } from "./usage.js";

// users ------------------------------------------------------------------------------------------

const UsersTable: FC<{ users: UserView[] }> = ({ users }) => (
  <DataTable class="users" columns={["Name", "Role", "Email", "Status", "Created"]}>
    {users.map((u) => (
      <tr data-user={u.name}>
        <th scope="row">
          <a href={`/console/admin/users/${enc(u.name)}`}>{u.name}</a>
        </th>
        <td>{u.role}</td>
        <td>{u.email ?? "—"}</td>
        <td>{u.disabled ? "disabled" : "active"}</td>
        <td>
          <Time iso={u.created_at} />
        </td>
      </tr>
    ))}
  </DataTable>
);

const CreateUserForm: FC<{ session: Session; values: Record<string, string>; refused: Refusal }> = ({
  session,
  values,
  refused,
}) => (
  <form method="post" action="/console/admin/users" class="card admin-form">
    <h2>Create a user</h2>
    <Refused refused={refused} />
    <CsrfField session={session} />
    <label for="new-user-name">Name</label>
    <input
      id="new-user-name"
      name="name"
      type="text"
      required
      autocomplete="off"
      value={values.name ?? ""}
      aria-describedby="new-user-name-hint"
    />
    <p class="note" id="new-user-name-hint">
      Lowercase letters, digits, <code>.</code> <code>_</code> <code>-</code>; 2–39 characters, starting with
      a letter.
    </p>
    <label for="new-user-role">Role</label>
    <select id="new-user-role" name="role">
      {ROLES.map((r) => (
        <option value={r} selected={(values.role ?? "operator") === r}>
          {r}
        </option>
      ))}
    </select>
    <label for="new-user-email">Email (optional)</label>
    <input id="new-user-email" name="email" type="email" autocomplete="off" value={values.email ?? ""} />
    <p>
      <button type="submit" class="primary">
        Create user
      </button>
    </p>
  </form>
);

async function usersPage(
  c: ConsoleCtx,
  o: { values?: Record<string, string>; refused?: Refusal; created?: { name: string; token?: string } } = {},
) {
  const { users } = await apiGet<{ users: UserView[] }>(c, "/v1/users");
  const session = c.get("session");
  return page(
    c,
    o.created ? "User created" : "Admin",
    "users",
    <>
      <h1>{o.created ? `User ${o.created.name} created` : "Admin: users"}</h1>
      {o.created?.token ? (
        <Notice kind="info" title="Their token, shown once">
          <p>
            <strong>Copy it now:</strong> this token is shown only this once and cannot be read again. Give it
            to {o.created.name} through a safe channel.
          </p>
          <p>
            {`Token of ${o.created.name}: `}
            <code id="new-token" class="secret">
              {o.created.token}
            </code>
          </p>
        </Notice>
      ) : null}
      <section aria-labelledby="users-h">
        <h2 id="users-h">Users</h2>
        <UsersTable users={users} />
      </section>
      <CreateUserForm
        session={session}
        values={o.created ? {} : (o.values ?? {})}
        refused={o.refused ?? null}
      />
    </>,
    o.refused ? 400 : 200,
  );
}

async function userPage(
  c: ConsoleCtx,
  name: string,
  o: { flash?: string; refused?: Refusal; quotaValues?: Record<string, string> } = {},
) {
  const session = c.get("session");
  const [{ users }, { tokens }, { quota }] = await Promise.all([
    apiGet<{ users: UserView[] }>(c, "/v1/users"),
    apiGet<{ tokens: TokenView[] }>(c, `/v1/tokens?user=${enc(name)}`),
    apiGet<{ quota: QuotaView }>(c, `/v1/users/${enc(name)}/quota`),
  ]);
  const u = users.find((x) => x.name === name);
  if (!u) throw new ApiFailure(404, "USER_NOT_FOUND", `no user named ${name}`);
  const base = `/console/admin/users/${enc(u.name)}`;
  const qv = o.quotaValues ?? {
    max_gpus: String(quota.max_gpus),
    max_jobs: String(quota.max_jobs),
    daily_gpu_hours: String(quota.daily_gpu_hours),
    priority: String(quota.priority),
    max_priority_class: String(quota.max_priority_class ?? "normal"),
    allowed_profiles: quota.allowed_profiles.join(", "),
  };
  return page(
    c,
    `User ${u.name}`,
    "users",
    <>
      <p class="crumbs">
        <a href="/console/admin">Users</a>
      </p>
      <h1>{`User ${u.name}`}</h1>
      {o.flash ? (
        <Notice kind="info" title="Done">
          <p>{o.flash}</p>
        </Notice>
      ) : null}
      <Refused refused={o.quotaValues ? null : (o.refused ?? null)} />
      <dl class="admin-facts">
        <dt>Role</dt>
        <dd>{u.role}</dd>
        <dt>Email</dt>
        <dd>{u.email ?? "—"}</dd>
        <dt>Status</dt>
        <dd>{u.disabled ? "disabled" : "active"}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={u.created_at} />
        </dd>
      </dl>
      <form method="post" action={`${base}/${u.disabled ? "enable" : "disable"}`}>
        <CsrfField session={session} />
        <button type="submit" class={u.disabled ? "" : "danger"}>
          {u.disabled ? "Enable user" : "Disable user"}
        </button>
      </form>

      <section aria-labelledby="tokens-h">
        <h2 id="tokens-h">Tokens</h2>
        {tokens.length === 0 ? (
          <p class="note">No tokens.</p>
        ) : (
          <DataTable class="tokens" columns={["Name", "Prefix", "Created", "Last used", "Expires", "Status"]}>
            {tokens.map((t) => (
              <tr data-token={t.id}>
                <th scope="row">{t.name}</th>
                <td>
                  <code>{t.prefix}</code>
                </td>
                <td>
                  <Time iso={t.created_at} />
                </td>
                <td>
                  <Time iso={t.last_used_at} fallback="never" />
                </td>
                <td>
                  <Time iso={t.expires_at} fallback="never" />
                </td>
                <td>
                  {t.revoked_at ? (
                    <span>
                      {"revoked "}
                      <Time iso={t.revoked_at} />
                    </span>
                  ) : (
                    <form method="post" action={`${base}/tokens/${enc(t.id)}/revoke`}>
                      <CsrfField session={session} />
                      <button type="submit" class="danger">
                        Revoke<span class="visually-hidden">{` token ${t.name}`}</span>
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      <section aria-labelledby="quota-h">
        <h2 id="quota-h">Quota</h2>
        <form method="post" action={`${base}/quota`} class="card admin-form">
          <Refused refused={o.quotaValues ? (o.refused ?? null) : null} />
          <CsrfField session={session} />
          <div class="form-grid">
            {(
              [
                ["max_gpus", "GPUs at once"],
                ["max_jobs", "Active jobs"],
                ["daily_gpu_hours", "GPU-hours per UTC day"],
                ["priority", "Priority (0–100)"],
                ["max_priority_class", "Highest priority class"],
              ] as const
            ).map(([k, label]) => (
              <div>
                <label for={`quota-${k}`}>{label}</label>
                <input
                  id={`quota-${k}`}
                  name={k}
                  type="text"
                  inputmode={k === "max_priority_class" ? "text" : "decimal"}
                  required
                  value={qv[k] ?? ""}
                />
              </div>
            ))}
          </div>
          <label for="quota-allowed_profiles">Allowed profiles (comma-separated; empty: all)</label>
          <input
            id="quota-allowed_profiles"
            name="allowed_profiles"
            type="text"
            value={qv.allowed_profiles ?? ""}
          />
          <p>
            <button type="submit" class="primary">
              Set quota
            </button>
          </p>
        </form>
      </section>
      <p>
        <a href={`/console/admin/webhooks?user=${enc(u.name)}`}>{`Webhooks of ${u.name}`}</a>
        {" · "}
        <a href={`/console/usage?user=${enc(u.name)}`}>{`Usage of ${u.name}`}</a>
      </p>
    </>,
    o.refused ? 400 : 200,
  );
}

// fleets -----------------------------------------------------------------------------------------

/**
 * Every team: its members (their primary team marked), its GPU-hour budget and, one row each, its quotas
 * per fleet and GPU series. Read-only: admins change teams with `sf admin team` (the /v1/teams routes).
 */
const TeamsTable: FC<{ teams: TeamView[] }> = ({ teams }) => (
  <DataTable
    class="teams"
    columns={[
      "Team",
      "Members",
      "Budget",
      "Fleet",
      "Series",
      "Guaranteed",
      "Borrow limit",
      "Lend limit",
      "Weight",
    ]}
  >
    {teams.map((t) => {
      const span = Math.max(1, t.quotas.length);
      const head = (
        <>
          <th scope="row" rowspan={span}>
            {t.name}
            {t.description ? <span class="note">{` — ${t.description}`}</span> : null}
          </th>
          <td rowspan={span}>
            {t.members.length === 0
              ? "—"
              : t.members.map((m, i) => (
                  <span class="member" data-member={m.user}>
                    {i > 0 ? ", " : ""}
                    {m.user}
                    {m.primary ? <span class="note"> (primary)</span> : null}
                  </span>
                ))}
          </td>
          <td rowspan={span} data-budget="">
            {budgetLabel(t.budget)}
          </td>
        </>
      );
      if (t.quotas.length === 0)
        return (
          <tr data-team={t.name}>
            {head}
            <td colspan={6} class="note">
              No quotas: it is guaranteed nothing, and its jobs borrow where quotas apply.
            </td>
          </tr>
        );
      return t.quotas.map((q, i) => (
        <tr data-team={t.name} data-quota={`${q.fleet}/${q.series}`}>
          {i === 0 ? head : null}
          <td>
            <a href={`/console/fleets/${enc(q.fleet)}`}>{q.fleet}</a>
          </td>
          <td>{q.series}</td>
          <td>{String(q.guaranteed)}</td>
          <td>{q.borrow_limit === null ? "—" : String(q.borrow_limit)}</td>
          <td>{q.lend_limit === null ? "all" : String(q.lend_limit)}</td>
          <td>{String(q.weight)}</td>
        </tr>
      ));
    })}
  </DataTable>
);

async function fleetsPage(
  c: ConsoleCtx,
  o: { values?: Record<string, string>; refused?: Refusal; flash?: string } = {},
) {
  const session = c.get("session");
  const { fleets } = await apiGet<{ fleets: FleetView[] }>(c, "/v1/fleets");
  const [{ priority_classes: classes }, { teams }] = await Promise.all([
    apiGet<{ priority_classes: PriorityClass[] }>(c, "/v1/priority-classes"),
    apiGet<{ teams: TeamView[] }>(c, "/v1/teams"),
  ]);
  const nodes = await Promise.all(
    fleets.map((f) => apiGet<{ nodes: NodeRow[] }>(c, `/v1/fleets/${enc(f.name)}/nodes`)),
  );
  const v = o.values ?? {};
  return page(
    c,
    "Admin: fleets",
    "fleets",
    <>
      <h1>Admin: fleets and nodes</h1>
      {o.flash ? (
        <Notice kind="info" title="Done">
          <p>{o.flash}</p>
        </Notice>
      ) : null}
      {fleets.length === 0 ? <p class="note">No fleets yet.</p> : null}
      {fleets.map((f, i) => (
        <section aria-labelledby={`fleet-${f.id}`}>
          <h2 id={`fleet-${f.id}`}>
            <a href={`/console/fleets/${enc(f.name)}`}>{f.name}</a> <span class="note">{`(${f.kind})`}</span>
          </h2>
          {f.description ? <p>{f.description}</p> : null}
          {nodes[i]!.nodes.length === 0 ? (
            <p class="note">No nodes.</p>
          ) : (
            <DataTable class="nodes" columns={["Node", "Series", "GPUs in use", "State"]}>
              {nodes[i]!.nodes.map((n) => (
                <tr>
                  <th scope="row">{n.name}</th>
                  <td>{n.series}</td>
                  <td>{`${n.gpus.filter((g) => g.job_id).length} / ${n.gpus.length}`}</td>
                  <td>
                    {[
                      n.status,
                      n.agent ? "agent" : "admin-registered",
                      n.cordoned ? "cordoned" : "",
                      n.revoked ? "revoked" : "",
                    ]
                      .filter(Boolean)
                      .join(", ")}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </section>
      ))}
      <section aria-labelledby="classes-h">
        <h2 id="classes-h">Priority classes</h2>
        <p class="note">
          Every fleet schedules with these (highest value first; a higher class may preempt a lower
          preemptible one after its minimum runtime). Change them with{" "}
          <code>sf admin priority-class set</code>.
        </p>
        <DataTable
          class="priority-classes"
          columns={["Class", "Value", "Preemptible", "Grace", "Minimum runtime", "Borrows", "Description"]}
        >
          {classes.map((k) => (
            <tr>
              <th scope="row">{k.name}</th>
              <td>{String(k.value)}</td>
              <td>{k.preemptible ? "yes" : "no"}</td>
              <td>{`${k.grace_seconds} s`}</td>
              <td>{`${k.min_runtime_seconds} s`}</td>
              <td>{k.may_borrow ? "yes" : "no"}</td>
              <td>{k.description}</td>
            </tr>
          ))}
        </DataTable>
      </section>
      <section aria-labelledby="teams-h">
        <h2 id="teams-h">Teams</h2>
        <p class="note">
          Per fleet and GPU series, a team's guaranteed GPUs are its own (it reclaims them from borrowers);
          beyond them it may borrow up to its borrow limit (— is no limit) from idle teams, which lend up to
          their lend limit; weight shares what is borrowed. A member's primary team is the one their jobs run
          for unless they name another. A budget caps the team's GPU-hours per month and/or ISO week (UTC);
          its policy says what happens once it is spent (refuse new jobs, pause running ones, or run only
          within the guarantee). Read-only here: admins change teams with <code>sf admin team</code>.
        </p>
        {teams.length === 0 ? <p class="note">No teams yet.</p> : <TeamsTable teams={teams} />}
      </section>
      <form method="post" action="/console/admin/fleets" class="card admin-form">
        <h2>Create a fleet</h2>
        <Refused refused={o.refused ?? null} />
        <CsrfField session={session} />
        <label for="new-fleet-name">Fleet name</label>
        <input id="new-fleet-name" name="name" type="text" required autocomplete="off" value={v.name ?? ""} />
        <label for="new-fleet-kind">Kind</label>
        <select id="new-fleet-kind" name="kind">
          {FLEET_KINDS.map((k) => (
            <option value={k} selected={(v.kind ?? "process") === k}>
              {k}
            </option>
          ))}
        </select>
        <label for="new-fleet-description">Description (optional)</label>
        <input id="new-fleet-description" name="description" type="text" value={v.description ?? ""} />
        <p>
          <button type="submit" class="primary">
            Create fleet
          </button>
        </p>
      </form>
    </>,
    o.refused ? 400 : 200,
  );
}

// routes -----------------------------------------------------------------------------------------

export const adminPages = new Hono<ConsoleEnv>()
  .use("/admin", adminOnly)
  .use("/admin/*", adminOnly)
  .get("/admin", (c) => usersPage(c))
  .post("/admin/users", async (c) => {
    const v = await form(c);
    const body: Record<string, unknown> = { name: (v.name ?? "").trim(), role: v.role ?? "operator" };
    if (v.email?.trim()) body.email = v.email.trim();
    const r = await attempt(() => apiSend<{ user: UserView; token?: string }>(c, "POST", "/v1/users", body));
    if (r.refused) return usersPage(c, { values: v, refused: r.refused });
    return usersPage(c, { created: { name: r.ok.user.name, ...(r.ok.token ? { token: r.ok.token } : {}) } });
  })
  .get("/admin/users/:name", (c) => userPage(c, c.req.param("name")))
  .post("/admin/users/:name/disable", (c) => setDisabled(c, true))
  .post("/admin/users/:name/enable", (c) => setDisabled(c, false))
  .post("/admin/users/:name/quota", async (c) => {
    const name = c.req.param("name");
    const v = await form(c);
    const body = {
      max_gpus: num(v.max_gpus),
      max_jobs: num(v.max_jobs),
      daily_gpu_hours: num(v.daily_gpu_hours),
      priority: num(v.priority),
      ...(v.max_priority_class ? { max_priority_class: v.max_priority_class.trim() } : {}),
      allowed_profiles: (v.allowed_profiles ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    };
    const r = await attempt(() => apiSend(c, "PUT", `/v1/users/${enc(name)}/quota`, body));
    if (r.refused) return userPage(c, name, { refused: r.refused, quotaValues: v });
    return userPage(c, name, { flash: `The quota of ${name} is set.` });
  })
  .post("/admin/users/:name/tokens/:id/revoke", async (c) => {
    const name = c.req.param("name");
    const id = c.req.param("id");
    const r = await attempt(() => apiSend(c, "DELETE", `/v1/tokens/${enc(id)}`));
    if (r.refused) return userPage(c, name, { refused: r.refused });
    return userPage(c, name, { flash: "The token is revoked: sessions signed in with it have ended." });
  })
  .get("/admin/fleets", (c) => fleetsPage(c))
  .post("/admin/fleets", async (c) => {
    const v = await form(c);
    const body = { name: (v.name ?? "").trim(), kind: v.kind ?? "process", description: v.description ?? "" };
    const r = await attempt(() => apiSend<{ fleet: FleetView }>(c, "POST", "/v1/fleets", body));
    if (r.refused) return fleetsPage(c, { values: v, refused: r.refused });
    return fleetsPage(c, { flash: `Fleet ${r.ok.fleet.name} created.` });
  })
  .get("/admin/webhooks", (c) => webhooksPage(c))
  .get("/admin/webhooks/:id", (c) => webhookPage(c, c.req.param("id")))
  .post("/admin/webhooks/:id/deliveries/:delivery/redeliver", async (c) => {
    const id = c.req.param("id");
    const delivery = c.req.param("delivery");
    const r = await attempt(() =>
      apiSend(c, "POST", `/v1/webhooks/${enc(id)}/deliveries/${enc(delivery)}/redeliver`),
    );
    if (r.refused) return webhookPage(c, id, { refused: r.refused });
    return webhookPage(c, id, { flash: `Delivery ${delivery} is queued to be sent again.` });
  });

async function setDisabled(c: ConsoleCtx, disabled: boolean) {
  const name = c.req.param("name")!;
  const r = await attempt(() => apiSend(c, "PATCH", `/v1/users/${enc(name)}`, { disabled }));
  if (r.refused) return userPage(c, name, { refused: r.refused });
  return userPage(c, name, { flash: `${name} is ${disabled ? "disabled" : "enabled"}.` });
}
