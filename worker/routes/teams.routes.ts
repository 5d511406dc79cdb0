import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { AuditAction } from "../../contract/audit.schema.js";
import { nowIso } from "../../contract/ids.js";
import { DeletedProfile, OneTeam, TeamList } from "../../contract/responses.schema.js";
import {
  SetBudgetBody,
  SetMemberBody,
  SetTeamBody,
  TeamName,
  TeamQuota,
  type TeamView,
} from "../../contract/teams.js";
import { type Db, db, schema } from "../../d1/client.js";
import { type Ctx, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { evaluateBudgets } from "../services/budgets.service.js";
import { fleetByRef } from "../services/fleets.service.js";
import { pushTeams, readTeams } from "../services/teams.service.js";
import { userByName } from "../services/users.service.js";

const Series = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function teamName(raw: string): string {
  const name = TeamName.safeParse(raw);
  if (!name.success)
    throw new AppError("BAD_REQUEST", `team names are lowercase [a-z0-9-], starting with a letter: ${raw}`);
  return name.data;
}

async function teamView(d: Db, name: string): Promise<TeamView> {
  const team = (await readTeams(d)).find((t) => t.name === name);
  if (!team) throw new AppError("NOT_FOUND", `no team ${name}`);
  return team;
}

/**
 * After a change: the audit log says so (it is made), and every fleet decides with it from its next
 * decision on (503 UNAVAILABLE when one did not take it: repeating the request hands it over).
 */
async function changed(c: Ctx, d: Db, action: AuditAction, team: string, details = {}): Promise<void> {
  await recordAudit(c, { action, target: `team:${team}`, details });
  await pushTeams(c.env, d);
}

/**
 * A removal whose target is gone already (404) still hands every fleet the teams as they are: repeating
 * a removal that answered 503 (a fleet did not take it) brings the fleets up to date too.
 */
async function removing<T>(c: Ctx, remove: (d: Db) => Promise<T>): Promise<T> {
  const d = db(c.env.DB);
  try {
    return await remove(d);
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") await pushTeams(c.env, d);
    throw err;
  }
}

/**
 * The user's primary team stays exactly one of their teams: the one given, or (none given) the one they
 * have, or else the oldest membership left.
 */
async function settlePrimary(d: Db, userId: string, primary: string | null): Promise<void> {
  const { teamMembers: m } = schema;
  const rows = await d.select().from(m).where(eq(m.userId, userId)).all();
  if (rows.length === 0) return;
  const keep =
    primary ??
    rows.find((r) => r.isPrimary)?.team ??
    [...rows].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))[0]!.team;
  await d.batch([
    d.update(m).set({ isPrimary: false }).where(eq(m.userId, userId)),
    d
      .update(m)
      .set({ isPrimary: true })
      .where(and(eq(m.userId, userId), eq(m.team, keep))),
  ]);
}

/** Teams (docs/scheduling.md "Teams"): everyone may read them, admins change them. */
export const teamsRoutes = new Hono<Env>()
  .get(
    "/teams",
    describe({
      id: "listTeams",
      tag: "Teams",
      summary: "List teams, by name, with their members, quotas and budgets",
      role: "viewer",
      ok: { 200: TeamList },
    }),
    requireRole("viewer"),
    async (c) => c.json({ teams: await readTeams(db(c.env.DB)) }),
  )
  .get(
    "/teams/:name",
    describe({
      id: "getTeam",
      tag: "Teams",
      summary: "A team, with its members, quotas and budget",
      role: "viewer",
      ok: { 200: OneTeam },
      errors: ["BAD_REQUEST", "NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => c.json({ team: await teamView(db(c.env.DB), teamName(c.req.param("name"))) }),
  )
  .put(
    "/teams/:name",
    describe({
      id: "setTeam",
      tag: "Teams",
      summary: "Create a team, or change its description",
      description:
        "Names are lowercase `[a-z0-9-]`, starting with a letter, at most 32 characters. Every fleet decides " +
        "with the change from its next decision on; recorded in the audit log as `team.set`.",
      role: "admin",
      body: SetTeamBody,
      ok: {
        201: { description: "The team was created", json: OneTeam },
        200: { description: "The team's description was changed", json: OneTeam },
      },
      errors: ["UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const name = teamName(c.req.param("name"));
      const body = await parseJson(c, SetTeamBody);
      const d = db(c.env.DB);
      const existing = await d.select().from(schema.teams).where(eq(schema.teams.name, name)).get();
      if (existing) {
        if (body.description !== undefined)
          await d
            .update(schema.teams)
            .set({ description: body.description })
            .where(eq(schema.teams.name, name))
            .run();
      } else {
        await d
          .insert(schema.teams)
          .values({ name, description: body.description ?? "", createdAt: nowIso() })
          .run();
      }
      await changed(c, d, "team.set", name, { created: !existing });
      return c.json({ team: await teamView(d, name) }, existing ? 200 : 201);
    },
  )
  .delete(
    "/teams/:name",
    describe({
      id: "deleteTeam",
      tag: "Teams",
      summary: "Delete a team, its memberships and its quotas",
      description:
        "A member whose primary team it was gets another of their teams as primary. Jobs keep their team's " +
        "name and are scheduled as a team without quotas. Recorded as `team.delete`.",
      role: "admin",
      // What the CLI parses the answer with: `{ "deleted": "<name>" }`.
      ok: { 200: DeletedProfile },
      errors: ["BAD_REQUEST", "NOT_FOUND", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    (c) =>
      removing(c, async (d) => {
        const name = teamName(c.req.param("name"));
        const team = await teamView(d, name);
        // Members and quotas go with it (ON DELETE CASCADE); a member's primary team moves to another of theirs.
        await d.delete(schema.teams).where(eq(schema.teams.name, name)).run();
        for (const m of team.members) await settlePrimary(d, m.user_id, null);
        await changed(c, d, "team.delete", name);
        return c.json({ deleted: name });
      }),
  )
  .put(
    "/teams/:name/members/:user",
    describe({
      id: "setTeamMember",
      tag: "Teams",
      summary: "Add a user to a team, or change their membership",
      description:
        "`primary: true` makes this the user's primary team; a user's first team is primary. " +
        '`"primary": false` on their primary team is a CONFLICT: make another team primary instead. ' +
        "Recorded as `team.member.set`.",
      role: "admin",
      body: SetMemberBody,
      ok: {
        201: { description: "The user was added to the team", json: OneTeam },
        200: { description: "The membership was changed", json: OneTeam },
      },
      errors: ["NOT_FOUND", "USER_NOT_FOUND", "CONFLICT", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const name = teamName(c.req.param("name"));
      const body = await parseJson(c, SetMemberBody);
      const d = db(c.env.DB);
      await teamView(d, name);
      const user = await userByName(d, c.req.param("user"));
      const { teamMembers: m } = schema;
      const had = await d
        .select()
        .from(m)
        .where(and(eq(m.team, name), eq(m.userId, user.id)))
        .get();
      if (!had) await d.insert(m).values({ team: name, userId: user.id, createdAt: nowIso() }).run();
      if (had?.isPrimary && body.primary === false)
        throw new AppError(
          "CONFLICT",
          `${name} is ${user.name}'s primary team: make another of their teams primary instead`,
        );
      await settlePrimary(d, user.id, body.primary ? name : null);
      await changed(c, d, "team.member.set", name, { user: user.name, primary: body.primary ?? null });
      return c.json({ team: await teamView(d, name) }, had ? 200 : 201);
    },
  )
  .delete(
    "/teams/:name/members/:user",
    describe({
      id: "removeTeamMember",
      tag: "Teams",
      summary: "Remove a user from a team",
      description:
        "If it was their primary team, another of their teams becomes primary. Recorded as " +
        "`team.member.delete`.",
      role: "admin",
      ok: { 200: OneTeam },
      errors: ["BAD_REQUEST", "NOT_FOUND", "USER_NOT_FOUND", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    (c) =>
      removing(c, async (d) => {
        const name = teamName(c.req.param("name"));
        await teamView(d, name);
        const user = await userByName(d, c.req.param("user"));
        const { teamMembers: m } = schema;
        const gone = await d
          .delete(m)
          .where(and(eq(m.team, name), eq(m.userId, user.id)))
          .returning()
          .all();
        if (gone.length === 0)
          throw new AppError("NOT_FOUND", `${user.name} is not a member of team ${name}`);
        await settlePrimary(d, user.id, null);
        await changed(c, d, "team.member.delete", name, { user: user.name });
        return c.json({ team: await teamView(d, name) });
      }),
  )
  .put(
    "/teams/:name/budget",
    describe({
      id: "setTeamBudget",
      tag: "Teams",
      summary: "Set a team's GPU-hour budget per month and/or week, and what a spent one does",
      description:
        "Every field is optional: absent keeps it, `null` means no budget for that period. `policy`: " +
        "`refuse` (default), `pause` or `borrow_free`. Metered at once: a budget set below what the team " +
        "used binds from this answer on. Recorded as `team.budget.set`.",
      role: "admin",
      body: SetBudgetBody,
      ok: { 200: OneTeam },
      errors: ["NOT_FOUND"],
    }),
    requireRole("admin"),
    async (c) => {
      const name = teamName(c.req.param("name"));
      const body = await parseJson(c, SetBudgetBody);
      const d = db(c.env.DB);
      await teamView(d, name);
      const set = {
        ...(body.monthly_gpu_hours !== undefined ? { monthlyGpuHours: body.monthly_gpu_hours } : {}),
        ...(body.weekly_gpu_hours !== undefined ? { weeklyGpuHours: body.weekly_gpu_hours } : {}),
        ...(body.policy !== undefined ? { budgetPolicy: body.policy } : {}),
      };
      if (Object.keys(set).length > 0)
        await d.update(schema.teams).set(set).where(eq(schema.teams.name, name)).run();
      // Metered now: a budget set below what the team used binds from this answer on.
      await evaluateBudgets(c.env);
      await recordAudit(c, {
        action: "team.budget.set",
        target: `team:${name}`,
        details: {
          monthly_gpu_hours: body.monthly_gpu_hours ?? null,
          weekly_gpu_hours: body.weekly_gpu_hours ?? null,
          policy: body.policy ?? null,
        },
      });
      return c.json({ team: await teamView(d, name) });
    },
  )
  .put(
    "/teams/:name/quotas/:fleet/:series",
    describe({
      id: "setTeamQuota",
      tag: "Teams",
      summary: "Set a team's quota for one GPU series of one fleet",
      description:
        "`:fleet` is a fleet name or id. `guaranteed` is required; `borrow_limit` and `lend_limit` default " +
        "to `null` (no limit but the fleet's size; all of the guarantee), `weight` to 1. Lowering a quota " +
        "below what the team holds stops nothing. Recorded as `team.quota.set`.",
      role: "admin",
      body: TeamQuota,
      ok: {
        201: { description: "The quota was created", json: OneTeam },
        200: { description: "The quota was changed", json: OneTeam },
      },
      errors: ["NOT_FOUND", "FLEET_NOT_FOUND", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const name = teamName(c.req.param("name"));
      const series = c.req.param("series");
      if (!Series.test(series)) throw new AppError("BAD_REQUEST", `not a GPU series name: ${series}`);
      const q = await parseJson(c, TeamQuota);
      const d = db(c.env.DB);
      await teamView(d, name);
      const fleet = await fleetByRef(d, c.req.param("fleet"));
      const row = {
        team: name,
        fleetId: fleet.id,
        series,
        guaranteed: q.guaranteed,
        borrowLimit: q.borrow_limit,
        lendLimit: q.lend_limit,
        weight: q.weight,
        updatedAt: nowIso(),
      };
      const { teamQuotas: t } = schema;
      const had = await d
        .select()
        .from(t)
        .where(and(eq(t.team, name), eq(t.fleetId, fleet.id), eq(t.series, series)))
        .get();
      await d
        .insert(t)
        .values(row)
        .onConflictDoUpdate({ target: [t.team, t.fleetId, t.series], set: row })
        .run();
      await changed(c, d, "team.quota.set", name, {
        fleet: fleet.name,
        series,
        guaranteed: q.guaranteed,
        borrow_limit: q.borrow_limit,
        lend_limit: q.lend_limit,
        weight: q.weight,
      });
      return c.json({ team: await teamView(d, name) }, had ? 200 : 201);
    },
  )
  .delete(
    "/teams/:name/quotas/:fleet/:series",
    describe({
      id: "deleteTeamQuota",
      tag: "Teams",
      summary: "Remove a team's quota for one GPU series of one fleet",
      description: "`:fleet` is a fleet name or id. Recorded as `team.quota.delete`.",
      role: "admin",
      ok: { 200: OneTeam },
      errors: ["BAD_REQUEST", "NOT_FOUND", "FLEET_NOT_FOUND", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    (c) =>
      removing(c, async (d) => {
        const name = teamName(c.req.param("name"));
        const series = c.req.param("series");
        await teamView(d, name);
        const fleet = await fleetByRef(d, c.req.param("fleet"));
        const { teamQuotas: t } = schema;
        const gone = await d
          .delete(t)
          .where(and(eq(t.team, name), eq(t.fleetId, fleet.id), eq(t.series, series)))
          .returning()
          .all();
        if (gone.length === 0)
          throw new AppError("NOT_FOUND", `team ${name} has no ${series} quota in fleet ${fleet.name}`);
        await changed(c, d, "team.quota.delete", name, { fleet: fleet.name, series });
        return c.json({ team: await teamView(d, name) });
      }),
  );
