/**
 * A minimal browser for the console's workerd tests: it keeps the session cookie, follows nothing by
 * itself (redirects are asserted), and sends forms the way a browser does, Origin included.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { sha256Hex } from "../../contract/digest.js";
import { testEnv } from "./test-env.js";

export const ORIGIN = "http://sf.test";

export interface Page {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

export class ConsoleBrowser {
  /** The session cookie as the browser sends it back (`name=value`), or "" once cleared. */
  cookie = "";
  /** The Set-Cookie headers of the last answer, to assert the cookie's attributes. */
  setCookies: string[] = [];

  /** `origin` is where the console is: http://sf.test, or https://sf.test to get the https cookie. */
  constructor(readonly origin = ORIGIN) {}

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
    if (o.origin !== null) headers.origin = o.origin ?? this.origin;
    return this.send(path, { method: "POST", headers, body: body.toString() });
  }

  async send(path: string, init: RequestInit): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set("cookie", this.cookie);
    const res = await SELF.fetch(`${this.origin}${path}`, { ...init, headers, redirect: "manual" });
    // workerd has Headers.getSetCookie; this project's workers-types predate it.
    this.setCookies = (res.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
    for (const set of this.setCookies) {
      const [pair] = set.split(";");
      const eq = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, eq), pair!.slice(eq + 1)];
      this.cookie = /max-age=0|expires=Thu, 01 Jan 1970/i.test(set) || !value ? "" : `${name}=${value}`;
    }
    return {
      status: res.status,
      html: await res.text(),
      headers: res.headers,
      location: res.headers.get("location"),
    };
  }

  /** The session cookie's value (what only the browser holds). */
  get cookieValue(): string {
    return this.cookie.slice(this.cookie.indexOf("=") + 1);
  }
}

/** The CSRF token a page's forms carry. */
export function csrfIn(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error("no CSRF field on this page");
  return m[1]!;
}

/** A browser signed in with `token` (at `origin`: http://sf.test unless given). */
export async function signIn(token: string, origin = ORIGIN): Promise<ConsoleBrowser> {
  const b = new ConsoleBrowser(origin);
  const r = await b.post("/console/sign-in", { token, next: "/console/jobs" });
  expect(r.status, r.html).toBe(303);
  expect(r.location).toBe("/console/jobs");
  expect(b.cookie).toMatch(origin.startsWith("https:") ? /^__Host-sf_session=/ : /^sf_session=/);
  return b;
}

/** The D1 row of `b`'s session (found by the cookie's sha256, as the Worker finds it), or null. */
export async function sessionRow(b: ConsoleBrowser): Promise<SessionRow | null> {
  return testEnv.DB.prepare("SELECT * FROM console_sessions WHERE id = ?")
    .bind(await sha256Hex(b.cookieValue))
    .first<SessionRow>();
}

export interface SessionRow {
  id: string;
  token_id: string;
  created_at: string;
  idle_expires_at: string;
  expires_at: string;
  user_agent: string | null;
}
