/**
 * docs/api.md's "Audit log" table names every action the audit log records and no other: a route can
 * record only an action of AUDIT_ACTIONS (worker/services/audit.service.ts types it), so an action added
 * there without a row here fails this test.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { AUDIT_ACTIONS } from "../../contract/audit.schema.js";

const api = readFileSync(resolve(import.meta.dirname, "../../docs/api.md"), "utf8");

/** The backticked names in the first column of the table under "### Audit log". */
function documentedActions(): string[] {
  const section = api.slice(api.indexOf("### Audit log"));
  const table = section.slice(
    section.indexOf("| Action"),
    section.indexOf("\n\n", section.indexOf("| Action")),
  );
  return table
    .split("\n")
    .slice(2)
    .flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]!));
}

describe("docs/api.md, the audit log", () => {
  it("lists every action the audit log records, and only those", () => {
    const documented = documentedActions();
    expect(documented.length).toBeGreaterThan(0);
    expect([...new Set(documented)].sort()).toEqual([...AUDIT_ACTIONS].sort());
  });
});
