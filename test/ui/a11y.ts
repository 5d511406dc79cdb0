/**
 * The accessibility scan: axe-core (the engine behind most accessibility checkers) run inside the page.
 * It is evaluated through the DevTools protocol, which the page's CSP does not govern, so the console's
 * strict CSP stays on while it runs.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** The WCAG 2.x A/AA violations on the page as it is now, serious and critical ones first. */
export async function axeScan(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    // axe is the global the evaluated source defined.
    const axe = (
      globalThis as unknown as {
        axe: { run: (ctx: Document, opts: object) => Promise<{ violations: unknown[] }> };
      }
    ).axe;
    const r = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
      resultTypes: ["violations"],
    });
    const violations = r.violations as Array<{
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: unknown[] }>;
    }>;
    return violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
  });
  const rank = (i: string | null) => ["critical", "serious", "moderate", "minor"].indexOf(i ?? "minor");
  return (found as AxeViolation[]).sort((a, b) => rank(a.impact) - rank(b.impact));
}

/** Only what blocks people: axe's serious and critical findings. */
export function serious(violations: AxeViolation[]): AxeViolation[] {
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
