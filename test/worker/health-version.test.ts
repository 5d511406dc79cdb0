/**
 * GET /v1/health says what is running (release, API generation, oldest sf accepted, build) and whether
 * D1's schema is the one this bundle expects: the last migration wrangler applied (its d1_migrations
 * table) against the newest migration file the bundle names.
 */
import { createExecutionContext, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_VERSION, MIN_CLI_VERSION, PRODUCT_VERSION } from "../../contract/version.js";
import { createApp } from "../../worker/app.js";
import { EXPECTED_MIGRATION, KNOWN_MIGRATIONS } from "../../worker/routes/health.routes.js";
import { described } from "./openapi-conformance.js";
import { testEnv } from "./test-env.js";

async function health(): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await SELF.fetch("http://sf.test/v1/health");
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("GET /v1/health", () => {
  it("keeps ok and api, and states the release, the API generation, the oldest sf accepted and the build", async () => {
    const r = await health();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      ok: true,
      api: "v1",
      version: PRODUCT_VERSION,
      api_version: API_VERSION,
      min_cli_version: MIN_CLI_VERSION,
      build: "dev",
    });
    expect(Date.parse(r.body.time as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("reports the build SF_BUILD names (e.g. the git sha of a deploy)", async () => {
    const ctx = createExecutionContext();
    const env = { ...testEnv, SF_BUILD: "3f9c2ab" };
    const res = await described(
      "GET",
      "http://sf.test/v1/health",
      await createApp().fetch(new Request("http://sf.test/v1/health"), env, ctx),
    );
    await waitOnExecutionContext(ctx);
    expect(((await res.json()) as { build: string }).build).toBe("3f9c2ab");
  });

  it("refuses to run with an SF_BUILD that is not 1-100 printable characters without spaces (500 on /v1)", async () => {
    const ctx = createExecutionContext();
    const env = { ...testEnv, SF_BUILD: "not a sha" };
    const res = await described(
      "GET",
      "http://sf.test/v1/health",
      await createApp().fetch(new Request("http://sf.test/v1/health"), env, ctx),
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("INTERNAL");
  });

  it("names every migration file of migrations/, in order: adding one without naming it fails here", () => {
    expect(KNOWN_MIGRATIONS).toEqual(testEnv.TEST_MIGRATIONS.map((m) => m.name));
    expect(EXPECTED_MIGRATION).toBe(testEnv.TEST_MIGRATIONS.at(-1)!.name);
  });

  it("says the ledger is up to date when the last applied migration is the newest the bundle knows", async () => {
    expect((await health()).body.migrations).toEqual({
      applied: EXPECTED_MIGRATION,
      expected: EXPECTED_MIGRATION,
      up_to_date: true,
    });
  });

  it("says it is not when D1 was migrated by another release (here: a migration this bundle does not know)", async () => {
    await testEnv.DB.prepare(
      "INSERT INTO d1_migrations (name) VALUES ('9999_from_a_newer_release.sql')",
    ).run();
    try {
      expect((await health()).body.migrations).toEqual({
        applied: "9999_from_a_newer_release.sql",
        expected: EXPECTED_MIGRATION,
        up_to_date: false,
      });
    } finally {
      await testEnv.DB.prepare(
        "DELETE FROM d1_migrations WHERE name = '9999_from_a_newer_release.sql'",
      ).run();
    }
  });

  it("says it is not when D1 is behind the bundle (the newest migration not applied yet)", async () => {
    const last = await testEnv.DB.prepare(
      "SELECT id, name FROM d1_migrations ORDER BY id DESC LIMIT 1",
    ).first<{
      id: number;
      name: string;
    }>();
    await testEnv.DB.prepare("DELETE FROM d1_migrations WHERE id = ?").bind(last!.id).run();
    try {
      expect((await health()).body.migrations).toEqual({
        applied: KNOWN_MIGRATIONS.at(-2),
        expected: EXPECTED_MIGRATION,
        up_to_date: false,
      });
    } finally {
      await testEnv.DB.prepare("INSERT INTO d1_migrations (id, name) VALUES (?, ?)")
        .bind(last!.id, last!.name)
        .run();
    }
  });

  it("says applied: null when D1 has no migration table at all, and still answers 200", async () => {
    await testEnv.DB.exec("ALTER TABLE d1_migrations RENAME TO d1_migrations_away");
    try {
      const r = await health();
      expect(r.status).toBe(200);
      expect(r.body.migrations).toEqual({ applied: null, expected: EXPECTED_MIGRATION, up_to_date: false });
    } finally {
      await testEnv.DB.exec("ALTER TABLE d1_migrations_away RENAME TO d1_migrations");
    }
  });
});
