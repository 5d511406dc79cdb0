/**
 * What the console's job-page tests share: the page's state badge and action buttons, a submit, and an
 * action posted the way the page does it (button, then confirmation).
 */
import { expect } from "vitest";
import type { ConsoleBrowser } from "./console-support.js";
import { api, customSpec } from "./helpers.js";

/** The text of the job page's state badge. */
export function badge(html: string): string | undefined {
  return /<span class="state state-([A-Z]+)" data-job-state="">([A-Z]+)<\/span>/.exec(html)?.[2];
}

/** The action button named `label` (its opening tag). */
export function button(html: string, action: string): string {
  const m = new RegExp(`<button[^>]*data-action="${action}"[^>]*>`).exec(html);
  if (!m) throw new Error(`no ${action} button`);
  return m[0];
}

export async function submit(token: string, fleet: string, name: string, gpus = 1): Promise<string> {
  const r = await api(token, "POST", "/v1/jobs", await customSpec({ fleet, name, gpus }));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.job.id as string;
}

/** Posts an action's form the way the page does: first the button, then the confirmation's button. */
export async function confirmAction(
  b: ConsoleBrowser,
  id: string,
  action: string,
  extra: Record<string, string> = {},
) {
  const page = await b.get(`/console/jobs/${id}`);
  const first = await b.post(`/console/jobs/${id}/${action}`, {}, { from: page.html });
  expect(first.status).toBe(200);
  const key = /name="key" value="([^"]+)"/.exec(first.html)?.[1];
  return b.post(
    `/console/jobs/${id}/${action}`,
    { confirm: "1", ...(key ? { key } : {}), ...extra },
    { from: first.html },
  );
}
