/**
 * What the console journey (console-journey.test.ts) does to pages besides its steps: watching every page
 * for dialogs (an executed XSS payload opens one) and logged errors (a CSP violation is one), polling,
 * screenshots in light and dark, and keyboard focus.
 */
import type { BrowserContext, Page } from "playwright-core";
import { shot } from "./browser.js";

/** Every dialog any page opened: an executed XSS payload would open one. */
export const dialogs: string[] = [];
/** Errors the pages logged (a CSP violation is one). */
export const pageErrors: string[] = [];

function watch(p: Page): Page {
  p.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  p.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(`${p.url()}: ${m.text()}`);
  });
  p.on("pageerror", (e) => pageErrors.push(`${p.url()}: ${e.message}`));
  return p;
}

export async function newPage(ctx: BrowserContext): Promise<Page> {
  return watch(await ctx.newPage());
}

/** Polls `read` until `ok` holds for its value; fails with the last value after `timeoutMs`. */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)} after ${timeoutMs} ms`);
}

/** Saves the page in light and dark. */
export async function shots(p: Page, name: string): Promise<void> {
  await p.emulateMedia({ colorScheme: "light" });
  await shot(p, `${name}-light`);
  await p.emulateMedia({ colorScheme: "dark" });
  await shot(p, `${name}-dark`);
  await p.emulateMedia({ colorScheme: "light" });
}

/** Presses Tab until the focused element's accessible name is `name` (fails after 100 presses). */
export async function tabTo(p: Page, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await p.keyboard.press("Tab");
    if ((await focusedName(p)) === name) return;
  }
  throw new Error(`Tab never reached "${name}"`);
}

/** The accessible names focus visits, pressing Tab `presses` times from the top of the page. */
export async function focusOrder(p: Page, presses: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < presses; i++) {
    await p.keyboard.press("Tab");
    names.push(await focusedName(p));
  }
  return names;
}

function focusedName(p: Page): Promise<string> {
  return p.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return "";
    const label = el.getAttribute("aria-label");
    return (label ?? el.textContent ?? "").trim();
  });
}
