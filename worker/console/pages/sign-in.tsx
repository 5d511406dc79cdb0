/** @jsxImportSource hono/jsx */
/**
 * Signing in and out. A personal access token is checked by the API itself (GET /v1/me with the token as
 * bearer, in-process), so a wrong token counts as a failed login and a locked-out address is refused
 * exactly as on /v1. The token is not kept: the session only remembers which token it stands for.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { db, schema } from "../../../d1/client.js";
import { hashSecret } from "../../auth/secrets.js";
import type { ConsoleCtx, ConsoleEnv } from "../api.js";
import { Layout, Notice } from "../layout.js";
import { endSession, readSession, startSession } from "../session.js";

const HOME = "/console/jobs";
const BASE = "http://console.invalid";

/**
 * Where to go after signing in, or HOME. Only this console's own pages (never another site, never
 * `//host`, never a path that leaves /console once `..` and `%2e%2e` are resolved, never the sign-in page
 * itself) and exactly the device page, `/device` with at most its `user_code`. The answer is the
 * normalised path, so what is checked is what the browser is sent to.
 */
export function safeNext(next: string | undefined): string {
  if (!next || next.length > 2000 || !next.startsWith("/") || next.startsWith("//")) return HOME;
  // Backslashes, control characters and spaces: browsers "repair" them in ways a check cannot follow.
  for (const ch of next) {
    const n = ch.charCodeAt(0);
    if (n <= 0x20 || n === 0x7f || ch === "\\") return HOME;
  }
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return HOME;
  }
  if (url.origin !== BASE || url.username || url.password) return HOME;
  const path = url.pathname;
  if (path === "/device") {
    const code = url.searchParams.get("user_code");
    if (!url.search) return "/device";
    if ([...url.searchParams.keys()].length === 1 && code !== null && /^[A-Za-z-]{1,20}$/.test(code)) {
      return `/device?user_code=${code}`;
    }
    return "/device";
  }
  if (!path.startsWith("/console/") || path.startsWith("/console/sign-in")) return HOME;
  return path + url.search;
}

const SignInPage = ({ next, error, expired }: { next: string; error?: string; expired?: boolean }) => (
  <Layout title="Sign in">
    <section class="narrow card">
      <h1>Sign in to StarForge</h1>
      {expired ? <p class="note">Your session ended; sign in again to continue.</p> : null}
      {next.startsWith("/device") ? (
        <p class="note">Sign in to approve or deny the code your terminal showed.</p>
      ) : null}
      {error ? (
        <p class="error" role="alert" id="sign-in-error">
          {error}
        </p>
      ) : null}
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="next" value={next} />
        <label for="token">Personal access token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          placeholder="sfp_…"
          required
          aria-describedby={error ? "sign-in-error token-help" : "token-help"}
        />
        <p class="note" id="token-help">
          The token your admin gave you, or one made with <code>POST /v1/tokens</code>. It is checked and not
          kept. The session ends when you sign out, when the token is revoked, and after 8 hours unused or 7
          days in all (the defaults).
        </p>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
      <p class="note">
        On a terminal, <code>sf login</code> signs in without a token: approve its code at{" "}
        <a href="/device">/device</a> from a signed-in browser.
      </p>
    </section>
  </Layout>
);

function signInPage(c: ConsoleCtx, status: 200 | 400 | 401 | 403 | 429, o: Parameters<typeof SignInPage>[0]) {
  return c.html(<SignInPage {...o} />, status);
}

export const signInRoutes = new Hono<ConsoleEnv>()
  .get("/sign-in", async (c) => {
    const next = safeNext(c.req.query("next"));
    // Already signed in: nothing to do here.
    if (await readSession(c)) return c.redirect(next, 303);
    return signInPage(c, 200, { next, expired: c.req.query("expired") === "1" });
  })
  .post("/sign-in", async (c) => {
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody();
    } catch {
      return signInPage(c, 400, {
        next: "/console/jobs",
        error: "The form could not be read; submit it again.",
      });
    }
    const next = safeNext(typeof form.next === "string" ? form.next : undefined);
    const token = typeof form.token === "string" ? form.token.trim() : "";
    if (!token) return signInPage(c, 400, { next, error: "Enter a personal access token." });
    // The client's address travels along, so failed sign-ins are limited per address as on /v1.
    const headers = new Headers({ authorization: `Bearer ${token}` });
    for (const h of ["cf-connecting-ip", "x-forwarded-for"]) {
      const v = c.req.header(h);
      if (v) headers.set(h, v);
    }
    const res = await c.get("dispatch")(new Request(new URL("/v1/me", c.req.url), { headers }));
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      const status = res.status === 429 ? 429 : res.status === 403 ? 403 : 401;
      const retryAfter = res.headers.get("retry-after");
      if (status === 429 && retryAfter) c.header("retry-after", retryAfter);
      const message = body?.error?.message ?? "that token was not accepted";
      return signInPage(c, status, { next, error: `Not signed in: ${message}.` });
    }
    const row = await db(c.env.DB)
      .select({ id: schema.tokens.id })
      .from(schema.tokens)
      .where(eq(schema.tokens.hash, await hashSecret(token)))
      .get();
    if (!row)
      return signInPage(c, 401, { next, error: "Not signed in: that is not a personal access token." });
    await startSession(c, row.id);
    return c.redirect(next, 303);
  })
  .post("/sign-out", async (c) => {
    await endSession(c);
    return c.redirect("/console/sign-in", 303);
  });

export const SignedOutNotice = () => (
  <Notice kind="info" title="Signed out">
    <p>
      <a href="/console/sign-in">Sign in</a> again.
    </p>
  </Notice>
);
