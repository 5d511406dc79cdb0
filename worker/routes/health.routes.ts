/**
 * GET /v1/health: public and cheap (one D1 read), for load balancers and for people. Besides `ok` it says
 * what is running: the release, the API generation, the oldest sf it accepts, the build, and whether the
 * ledger's schema is the one this bundle was built for.
 */
import { desc } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import { z } from "zod";
import { API_VERSION, MIN_CLI_VERSION, PRODUCT_VERSION } from "../../contract/version.js";
import { db } from "../../d1/client.js";
import type { Env } from "../auth/middleware.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { describe } from "../openapi/describe.js";
import { errorFields, log } from "../services/log.js";

export const API_PREFIX = "v1";

/**
 * The D1 migrations this bundle was written against, oldest first: the files of migrations/, which
 * wrangler applies in name order. test/worker/health-version.test.ts compares this list with those files,
 * so adding a migration without naming it here fails the tests.
 */
export const KNOWN_MIGRATIONS = [
  "0000_init.sql",
  "0001_device_codes.sql",
  "0002_webhooks.sql",
  "0003_run_resumed_from.sql",
  "0004_fleet_network.sql",
  "0005_admission_counts.sql",
  "0006_secrets.sql",
  "0007_fleet_hf_unavailable.sql",
  "0008_audit_log.sql",
  "0009_metric_counters.sql",
  "0010_blob_uploads.sql",
  "0011_console_sessions.sql",
  "0012_drop_admission_counts.sql",
  "0013_priority_classes.sql",
  "0014_teams.sql",
  "0015_lost_work.sql",
  "0016_placement.sql",
  "0017_diagnosis.sql",
] as const;

export const EXPECTED_MIGRATION = KNOWN_MIGRATIONS.at(-1)!;

/** The table wrangler (and the test pool) keeps of the migrations it applied, in the order it did. */
const d1Migrations = sqliteTable("d1_migrations", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name"),
});

/** The last migration applied to D1; null when D1 has no migration table (it was never migrated). */
async function appliedMigration(d1: D1Database): Promise<string | null> {
  try {
    const row = await db(d1)
      .select({ name: d1Migrations.name })
      .from(d1Migrations)
      .orderBy(desc(d1Migrations.id))
      .limit(1)
      .get();
    return row?.name ?? null;
  } catch (err) {
    // A missing table is an unmigrated ledger; anything else means D1 itself did not answer.
    if (/no such table/i.test(String((err as { cause?: unknown }).cause ?? err))) return null;
    throw err;
  }
}

/** GET /v1/health: what is running, and whether D1's schema is the one this bundle expects. */
const Health = z.looseObject({
  ok: z.literal(true).describe("Always `true`: the Worker answers and D1 is reachable"),
  /** The path prefix, `v1`. */
  api: z.string().describe("The API's path prefix, `v1`"),
  time: z.string().describe("The server's clock when it answered, ISO 8601 UTC"),
  /** The server's release (also `starforge-server-version`). */
  version: z
    .string()
    .describe("The server's release, e.g. `0.1.0` (also the `starforge-server-version` header)"),
  /** The API generation (also `starforge-api-version`). */
  api_version: z
    .number()
    .int()
    .describe("The API generation, e.g. `1` (also the `starforge-api-version` header)"),
  /** The oldest sf accepted (also `starforge-min-cli-version`). */
  min_cli_version: z
    .string()
    .describe("The oldest `sf` release the server accepts (also the `starforge-min-cli-version` header)"),
  /** SF_BUILD (e.g. a git sha); `dev` when unset. */
  build: z
    .string()
    .describe("What the deployment was built from (`SF_BUILD`, e.g. a git sha); `dev` when unset"),
  migrations: z
    .looseObject({
      /** The last migration applied to D1; null when D1 was never migrated. */
      applied: z
        .string()
        .nullable()
        .describe(
          "The last migration applied to D1, e.g. `0017_diagnosis.sql`; null when D1 was never migrated",
        ),
      /** The newest migration this bundle was built with. */
      expected: z.string().describe("The newest migration this Worker was built with"),
      up_to_date: z
        .boolean()
        .describe(
          "Whether `applied` is `expected`; false: D1 is behind this Worker or was migrated by another release",
        ),
    })
    .describe("Whether D1's schema is the one this Worker was built for"),
});

export const healthRoutes = new Hono<Env>().get(
  "/health",
  describe({
    id: "getHealth",
    tag: "Health",
    summary: "Liveness, versions and the ledger's schema",
    description:
      "Public, cheap (one D1 read) and never refused for failed logins or an old sf. " +
      "`migrations.up_to_date` false means D1 is behind this Worker or was migrated by another release. " +
      "HEAD answers the same status without a body.",
    auth: "none",
    ok: { 200: Health },
    errors: ["UNAVAILABLE"],
  }),
  async (c) => {
    let applied: string | null;
    try {
      applied = await appliedMigration(c.env.DB);
    } catch (err) {
      log("error", "health: D1 unreachable", errorFields(err));
      throw new AppError("UNAVAILABLE", "the ledger database is unreachable");
    }
    return c.json({
      ok: true,
      api: API_PREFIX,
      time: new Date().toISOString(),
      version: PRODUCT_VERSION,
      api_version: API_VERSION,
      min_cli_version: MIN_CLI_VERSION,
      build: config(c.env).build,
      migrations: { applied, expected: EXPECTED_MIGRATION, up_to_date: applied === EXPECTED_MIGRATION },
    });
  },
);
