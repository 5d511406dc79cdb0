/** The console reaches a real browser: sign in through the form, the jobs page renders, no CSP violation. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane.js";
import { launch, shot, signIn, type UiBrowser } from "./browser.js";

let cp: ControlPlane;
let ui: UiBrowser;

beforeAll(async () => {
  [cp, ui] = await Promise.all([startControlPlane({ agent: false }), launch()]);
});
afterAll(async () => {
  await ui?.close();
  await cp?.stop();
});

describe("console in chromium", () => {
  it("signs in with a token and shows the jobs page, its script running under the CSP", async () => {
    const ctx = await ui.context();
    const page = await ctx.newPage();
    const violations: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") violations.push(m.text());
    });
    await signIn(page, cp.url, cp.adminToken);
    await expect(page.getByRole("heading", { level: 1, name: "Jobs" }).isVisible()).resolves.toBe(true);
    await shot(page, "smoke-jobs");
    expect(violations).toEqual([]);
    await ctx.close();
  });
});
