/** `sf job ls`: my jobs (or everyone's, for an admin), newest first, following the server's cursor. */
import type { Command } from "commander";
import { JobList, type JobView } from "../../../contract/responses.schema.js";
import { type Api, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { emit, info, status } from "../../output.js";
import { age, colorTable } from "./format.js";

export interface ListOptions {
  all?: boolean;
  status?: string;
  fleet?: string;
  limit?: string;
}

const PAGE_MAX = 200;

/** Up to `limit` jobs, newest first, reading as many pages as that takes. */
export async function listJobs(
  api: Api,
  o: { all?: boolean; status?: string; fleet?: string; limit: number; pageSize?: number },
): Promise<{ jobs: JobView[]; more: boolean }> {
  const jobs: JobView[] = [];
  let cursor: string | null = null;
  for (;;) {
    const q = new URLSearchParams();
    if (o.all) q.set("all", "1");
    if (o.status) q.set("status", o.status);
    if (o.fleet) q.set("fleet", o.fleet);
    q.set("limit", String(Math.min(o.pageSize ?? PAGE_MAX, o.limit - jobs.length)));
    if (cursor) q.set("cursor", cursor);
    const page = await api.get(route("/v1/jobs", {}, q), JobList);
    jobs.push(...page.jobs);
    cursor = page.next_cursor;
    if (!cursor || jobs.length >= o.limit) return { jobs: jobs.slice(0, o.limit), more: cursor !== null };
  }
}

/** The caller's newest job: what `sf job logs` follows when no id is given. */
export async function latestJob(api: Api): Promise<JobView> {
  const { jobs } = await listJobs(api, { limit: 1 });
  if (!jobs[0]) {
    throw new CliError("you have no jobs yet", {
      code: "JOB_NOT_FOUND",
      exit: EXIT.NOT_FOUND,
      hint: "submit one with `sf submit EXP --profile NAME`",
    });
  }
  return jobs[0];
}

export function parseLimit(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`--limit must be a positive integer, got "${raw}"`, { exit: EXIT.USAGE });
  return n;
}

export async function ls(cmd: Command, o: ListOptions): Promise<void> {
  const api = authedApi(cmd);
  const limit = parseLimit(o.limit, 30);
  const { jobs, more } = await listJobs(api, { all: o.all, status: o.status, fleet: o.fleet, limit });
  emit({ jobs, more }, () => {
    if (jobs.length === 0) {
      info(
        o.status || o.fleet
          ? "no jobs match"
          : "no jobs yet — submit one with `sf submit EXP --profile NAME`",
      );
      return;
    }
    colorTable(
      jobs.map((j) => ({
        id: j.id,
        name: j.name,
        status: j.status,
        gpus: j.gpus,
        recipe: j.recipe,
        age: age(j.created_at),
      })),
      ["id", "name", "status", "gpus", "recipe", "age"],
      { status },
    );
    if (more) info(`(showing the newest ${jobs.length}; --limit N for more)`);
  });
}
