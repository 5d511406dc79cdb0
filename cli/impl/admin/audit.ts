/** `sf admin audit`: the audit log, newest first, following the server's cursor up to --limit entries. */
import type { Command } from "commander";
import { type AuditEntry, AuditPage } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { emit, info, table } from "../../output.js";
import { parseLimit } from "../job/list.js";

export interface AuditOptions {
  actor?: string;
  action?: string;
  target?: string;
  since?: string;
  until?: string;
  limit?: string;
}

const PAGE_MAX = 200;

/** Refuses a --since/--until that is not an ISO date or time before asking the server. */
function checkTime(flag: string, v: string | undefined): void {
  if (
    v !== undefined &&
    !(/^\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))?$/.test(v) && !Number.isNaN(Date.parse(v)))
  )
    throw new CliError(`${flag} takes an ISO date or time (2026-01-31, 2026-01-31T12:00:00Z), got "${v}"`, {
      exit: EXIT.USAGE,
    });
}

/** `key=value` pairs of an entry's details, for one table cell. */
function detailsText(d: Record<string, unknown>): string {
  return Object.entries(d)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
}

export async function listAudit(cmd: Command, o: AuditOptions): Promise<void> {
  const api = authedApi(cmd);
  const limit = parseLimit(o.limit, 50);
  checkTime("--since", o.since);
  checkTime("--until", o.until);
  const entries: AuditEntry[] = [];
  let cursor: string | null = null;
  for (;;) {
    const q = new URLSearchParams();
    for (const key of ["actor", "action", "target", "since", "until"] as const) {
      const v = o[key];
      if (v) q.set(key, v);
    }
    q.set("limit", String(Math.min(PAGE_MAX, limit - entries.length)));
    if (cursor) q.set("cursor", cursor);
    const page = await api.get(route("/v1/audit", {}, q), AuditPage);
    entries.push(...page.entries);
    cursor = page.next_cursor;
    if (!cursor || entries.length >= limit) break;
  }
  const more = cursor !== null;
  emit({ entries, more }, () => {
    if (entries.length === 0) {
      info("no audit entries match");
      return;
    }
    table(
      entries.map((e) => ({
        time: e.at.replace("T", " ").slice(0, 19),
        actor: e.actor,
        action: e.action,
        target: e.target,
        from: e.ip,
        details: detailsText(e.details),
      })),
      ["time", "actor", "action", "target", "from", "details"],
    );
    if (more) info(`(showing the newest ${entries.length}; --limit N for more)`);
  });
}
