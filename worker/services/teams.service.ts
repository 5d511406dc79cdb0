/**
 * Teams as admins set them (D1 `teams`, `team_members`, `team_quotas`; read only by admin routes and
 * when a fleet is created) and their push to every Fleet DO: the team names, every member and that
 * fleet's own quotas (contract/teams.ts FleetTeams).
 */
import { asc } from "drizzle-orm";
import type { FleetTeams, TeamView } from "../../contract/teams.js";
import { type Db, schema } from "../../d1/client.js";
import { fleetStub } from "../../durable-objects/fleet/stub.js";
import type { AppEnv } from "../env.js";
import { pushToFleets } from "./fleets.service.js";

interface AllTeams {
  teams: Array<typeof schema.teams.$inferSelect>;
  members: Array<typeof schema.teamMembers.$inferSelect & { user: string }>;
  quotas: Array<typeof schema.teamQuotas.$inferSelect & { fleet: string }>;
}

async function readAll(d: Db): Promise<AllTeams> {
  const { teams, teamMembers, teamQuotas, users, fleets } = schema;
  const [t, m, q, u, f] = await d.batch([
    d.select().from(teams).orderBy(asc(teams.name)),
    d.select().from(teamMembers),
    d.select().from(teamQuotas),
    d.select({ id: users.id, name: users.name }).from(users),
    d.select({ id: fleets.id, name: fleets.name }).from(fleets),
  ]);
  const userName = new Map(u.map((x) => [x.id, x.name]));
  const fleetName = new Map(f.map((x) => [x.id, x.name]));
  return {
    teams: t,
    members: m.map((x) => ({ ...x, user: userName.get(x.userId) ?? x.userId })),
    quotas: q.map((x) => ({ ...x, fleet: fleetName.get(x.fleetId) ?? x.fleetId })),
  };
}

/** Every team with its members and quotas, by name. */
export async function readTeams(d: Db): Promise<TeamView[]> {
  const all = await readAll(d);
  return all.teams.map((t) => ({
    name: t.name,
    description: t.description,
    budget: {
      monthly_gpu_hours: t.monthlyGpuHours,
      weekly_gpu_hours: t.weeklyGpuHours,
      policy: t.budgetPolicy,
    },
    members: all.members
      .filter((m) => m.team === t.name)
      .map((m) => ({ user_id: m.userId, user: m.user, primary: m.isPrimary }))
      .sort((a, b) => (a.user < b.user ? -1 : 1)),
    quotas: all.quotas
      .filter((q) => q.team === t.name)
      .map((q) => ({
        fleet_id: q.fleetId,
        fleet: q.fleet,
        series: q.series,
        guaranteed: q.guaranteed,
        borrow_limit: q.borrowLimit,
        lend_limit: q.lendLimit,
        weight: q.weight,
      }))
      .sort((a, b) => (a.fleet + a.series < b.fleet + b.series ? -1 : 1)),
    created_at: t.createdAt,
  }));
}

/** What one fleet decides with. */
function fleetDoc(all: AllTeams, fleetId: string): FleetTeams {
  const doc: FleetTeams = { teams: all.teams.map((t) => t.name), members: {}, quotas: {} };
  for (const m of all.members) {
    const e = doc.members[m.userId] ?? { teams: [], primary: m.team };
    e.teams.push(m.team);
    if (m.isPrimary) e.primary = m.team;
    doc.members[m.userId] = e;
  }
  for (const e of Object.values(doc.members)) e.teams.sort();
  for (const q of all.quotas) {
    if (q.fleetId !== fleetId) continue;
    doc.quotas[q.team] = {
      ...doc.quotas[q.team],
      [q.series]: {
        guaranteed: q.guaranteed,
        borrow_limit: q.borrowLimit,
        lend_limit: q.lendLimit,
        weight: q.weight,
      },
    };
  }
  return doc;
}

/**
 * Hands every fleet (or the one given) what it decides with: their next decision uses it. Idempotent, so
 * an admin whose change answered 503 here (a fleet did not take it) repeats it.
 */
export async function pushTeams(env: AppEnv, d: Db, fleetId?: string): Promise<void> {
  const all = await readAll(d);
  const ids = fleetId
    ? [fleetId]
    : (await d.select({ id: schema.fleets.id }).from(schema.fleets)).map((f) => f.id);
  await pushToFleets(ids, "teams", (id) => fleetStub(env, id).setTeams(fleetDoc(all, id)));
}
