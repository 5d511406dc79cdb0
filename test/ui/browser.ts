/**
 * Headless chromium for the UI tier: Debian's package driven by playwright-core (no browser download),
 * a fresh profile per launch (playwright makes a temporary one), the flags a root container needs. Screenshots go to test-results/ui/.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

const ROOT = resolve(import.meta.dirname, "../..");
export const SHOTS = join(ROOT, "test-results/ui");

export function chromiumPath(): string {
  return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
}

export interface UiBrowser {
  browser: Browser;
  /** A new browser context (own cookies), light or dark. */
  context(o?: { dark?: boolean; phone?: boolean }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function launch(): Promise<UiBrowser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
    ],
  });
  return {
    browser,
    context: (o = {}) =>
      browser.newContext({
        colorScheme: o.dark ? "dark" : "light",
        viewport: o.phone ? { width: 390, height: 844 } : { width: 1280, height: 860 },
        timezoneId: "Asia/Tokyo",
        locale: "en-GB",
      }),
    async close() {
      await browser.close();
    },
  };
}

/** Saves a full-page screenshot as test-results/ui/<name>.png. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const file = join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Signs `page` in to the console at `url` with a personal access token, through the sign-in form. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/console/jobs`);
  await page.getByLabel("Personal access token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/console\/jobs/);
}
