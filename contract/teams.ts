/**
 * Teams and their quotas (docs/scheduling.md "Teams: guarantees, borrowing and reclaim"). A team has
 * members (a user may belong to several; one is their primary team) and, per fleet and GPU series, a
 * quota: `guaranteed` GPUs that are the team's whenever it wants them, `borrow_limit` more it may use
 * while others leave theirs idle, `lend_limit` of its guarantee others may borrow while it is idle, and
 * a `weight` for sharing what is borrowed. A job runs for one team (`resources.team`, or its submitter's
 * primary team).
 *
 * Teams live in D1 (admin routes only); every fleet holds what it decides with, pushed whenever an admin
 * changes a team (`FleetTeams`): the names, the members and that fleet's quotas. No submit and no
 * scheduling decision reads D1 for them.
 */
import { z } from "zod";
import type { ErrorDetails } from "./errors.js";

export const TeamName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,31}$/,
    "lowercase letters, digits and -, starting with a letter, at most 32 chars",
  );

const Gpus = z.number().int().min(0).max(1_000_000);

/** A team's share of one GPU series in one fleet. */
export const TeamQuota = z.object({
  /** GPUs that are the team's: its jobs get them back from borrowers (reclaim). */
  guaranteed: Gpus,
  /** GPUs beyond the guarantee it may use while others' are idle; null: no limit but the fleet's size. */
  borrow_limit: Gpus.nullable().default(null),
  /** GPUs of its guarantee others may borrow while it does not use them; null: all of it. */
  lend_limit: Gpus.nullable().default(null),
  /** Its share of borrowed GPUs against other borrowers (more weight, more of them). */
  weight: z.number().positive().max(1000).default(1),
});
export type TeamQuota = z.infer<typeof TeamQuota>;

/** PUT /v1/teams/:name */
export const SetTeamBody = z.object({ description: z.string().max(200).optional() });

/** PUT /v1/teams/:name/members/:user */
export const SetMemberBody = z.object({
  /** Make this the user's primary team (the team of their jobs that name none). */
  primary: z.boolean().optional(),
});

/** One team as the API shows it. */
export interface TeamView {
  name: string;
  description: string;
  members: Array<{ user_id: string; user: string; primary: boolean }>;
  quotas: Array<{ fleet_id: string; fleet: string; series: string } & TeamQuota>;
  created_at: string;
}

/** What a fleet decides with: every team's name, every member, and this fleet's quotas. */
export const FleetTeams = z.object({
  teams: z.array(z.string()),
  /** Per user id: their teams and their primary one. */
  members: z.record(z.string(), z.object({ teams: z.array(z.string()), primary: z.string() })),
  /** Per team, per GPU series. */
  quotas: z.record(z.string(), z.record(z.string(), TeamQuota)),
});
export type FleetTeams = z.infer<typeof FleetTeams>;

export const NO_TEAMS: FleetTeams = { teams: [], members: {}, quotas: {} };

export type TeamRefusal = {
  code: "TEAM_UNKNOWN" | "TEAM_NOT_MEMBER";
  message: string;
  details: ErrorDetails;
};

/**
 * The team a job runs for: the one it names, which its submitter must belong to, or else the submitter's
 * primary team; null: the submitter is in no team (the job borrows wherever teams hold guarantees).
 */
export function resolveTeam(
  doc: FleetTeams,
  userId: string,
  requested: string | undefined,
): { team: string | null } | TeamRefusal {
  const member = doc.members[userId];
  if (requested === undefined) return { team: member?.primary ?? null };
  if (!doc.teams.includes(requested))
    return {
      code: "TEAM_UNKNOWN",
      message: `no team ${requested}; teams: ${doc.teams.join(", ") || "none"}`,
      details: { team: requested, teams: doc.teams },
    };
  if (!member?.teams.includes(requested))
    return {
      code: "TEAM_NOT_MEMBER",
      message: `you are not a member of team ${requested}${member ? `; your teams: ${member.teams.join(", ")}` : "; you are in no team"}`,
      details: { team: requested, your_teams: member?.teams ?? [] },
    };
  return { team: requested };
}
