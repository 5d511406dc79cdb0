/**
 * A minimal browser for the console's workerd tests: it keeps the session cookie, follows nothing by
 * itself (redirects are asserted), and sends forms the way a browser does, Origin included.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";

export const ORIGIN = "http://sf.test";

export interface Page {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

export class ConsoleBrowser {
  cookie = "";

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.send(path, { method: "GET", headers });
  }

  /** Submits a form; `_csrf` is taken from `from` (a page's HTML) unless given in `fields`. */
  async post(
    path: string,
    fields: Record<string, string>,
    o: { from?: string; origin?: string | null } = {},
  ): Promise<Page> {
    const body = new URLSearchParams(fields);
    if (!body.has("_csrf") && o.from) body.set("_csrf", csrfIn(o.from));
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    if (o.origin !== null) headers.origin = o.origin ?? ORIGIN;
    return this.send(path, { method: "POST", headers, body: body.toString() });
  }

  async send(path: string, init: RequestInit): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set("cookie", this.cookie);
    const res = await SELF.fetch(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" });
    const set = res.headers.get("set-cookie");
    if (set) {
      const [pair] = set.split(";");
      const [name, value] = pair!.split("=");
      this.cookie = /max-age=0|expires=Thu, 01 Jan 1970/i.test(set) || !value ? "" : `${name}=${value}`;
    }
    return {
      status: res.status,
      html: await res.text(),
      headers: res.headers,
      location: res.headers.get("location"),
    };
  }
}

/** The CSRF token a page's forms carry. */
export function csrfIn(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error("no CSRF field on this page");
  return m[1]!;
}

/** A browser signed in with `token`. */
export async function signIn(token: string): Promise<ConsoleBrowser> {
  const b = new ConsoleBrowser();
  const r = await b.post("/console/sign-in", { token, next: "/console/jobs" });
  expect(r.status, r.html).toBe(303);
  expect(r.location).toBe("/console/jobs");
  expect(b.cookie).toMatch(/^sf_session=/);
  return b;
}
