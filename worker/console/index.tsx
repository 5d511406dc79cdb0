/** @jsxImportSource hono/jsx */
/**
 * The web console, served by the same Worker under /console (docs/console.md). Pages are rendered on the
 * server with Hono's JSX from what the /v1 API answers in-process (api.ts); one small script and one
 * stylesheet (with uPlot) are built into the Worker (assets.ts). Every page answers with a strict CSP (no
 * inline script or style), frame denial and no caching; every state-changing form needs the session's
 * CSRF token and a same-origin Origin.
 */

import { Hono, type MiddlewareHandler } from "hono";
import { ensureBootstrapped } from "../auth/bootstrap.js";
import { errorFields, log, requestIdOf } from "../services/log.js";
import { ApiFailure, apiFetch, type ConsoleCtx, type ConsoleEnv } from "./api.js";
import { assetRoutes } from "./assets.js";
import { Layout, Notice } from "./layout.js";
import { adminPages } from "./pages/admin.js";
import { apiReferencePages } from "./pages/api-reference.js";
import { fleetPages } from "./pages/fleets.js";
import { jobPages } from "./pages/job.js";
import { jobsPages } from "./pages/jobs.js";
import { signInRoutes } from "./pages/sign-in.js";
import { usagePages } from "./pages/usage.js";
import { clearSessionCookie, hasSessionCookie, readSession, sameSecret } from "./session.js";

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/**
 * Headers on every console answer (and the /device page's): pages, assets, redirects and errors alike.
 * Set after the handler ran, so an answer that failed or redirected gets them too.
 */
export const securityHeaders: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  await next();
  c.header("content-security-policy", CONSOLE_CSP);
  c.header("x-frame-options", "DENY");
  c.header("x-content-type-options", "nosniff");
  c.header("referrer-policy", "same-origin");
  c.header("cross-origin-opener-policy", "same-origin");
  if (!c.res.headers.has("cache-control")) c.header("cache-control", "no-store");
};

/** Paths that need no session: the assets and signing in. */
function isPublic(path: string): boolean {
  return path.startsWith("/console/assets/") || path === "/console/sign-in";
}

/**
 * A request without a valid session: a page is sent to sign in (and back after), a script's read gets a
 * 401 it can act on. Only the session cookie counts: an `Authorization: Bearer` header is ignored here
 * (the console is for browsers; /v1 is for bearer tokens). A cookie that names no valid session any more
 * is cleared, and the sign-in page says the session ended.
 */
export const requireSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (isPublic(c.req.path)) return next();
  const session = await readSession(c);
  if (!session) {
    const hadCookie = hasSessionCookie(c);
    if (hadCookie) clearSessionCookie(c);
    if (c.req.path.startsWith("/console/api/")) {
      return c.json({ error: { code: "UNAUTHENTICATED", message: "sign in to the console again" } }, 401);
    }
    // Back to the page asked for; a form sent without a session goes back to its page (the device page)
    // or to the jobs list, never replayed.
    const next =
      c.req.method === "GET" || c.req.method === "HEAD"
        ? c.req.path + new URL(c.req.url).search
        : c.req.path === "/device"
          ? "/device"
          : "/console/jobs";
    const to = `/console/sign-in?next=${encodeURIComponent(next)}${hadCookie ? "&expired=1" : ""}`;
    return c.redirect(to, 303);
  }
  c.set("session", session);
  c.set("principal", session.principal);
  return next();
};

/**
 * Every request that may change state (anything but GET/HEAD) must come from a console page: its Origin
 * (or, without one, Sec-Fetch-Site) says same origin, and, once signed in, it carries the session's
 * CSRF token as the `_csrf` form field or the X-CSRF-Token header. The token is derived from the session
 * cookie (session.ts csrfOf), so it is per session and unknowable without the cookie; no state is kept.
 * A refusal changes nothing: the session stays valid.
 */
export const requireCsrf: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  const origin = c.req.header("origin");
  const site = c.req.header("sec-fetch-site");
  const sameOrigin = origin
    ? origin === new URL(c.req.url).origin
    : site === undefined || site === "same-origin";
  if (!sameOrigin) return forbidden(c, "This form was sent from another site; it was refused.");
  const session = c.get("session");
  if (session) {
    let sent = c.req.header("x-csrf-token") ?? "";
    if (!sent) {
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      sent = typeof form._csrf === "string" ? form._csrf : "";
    }
    if (!sameSecret(sent, session.csrf)) {
      return forbidden(
        c,
        "This form has expired or did not come from this console; reload the page and try again.",
      );
    }
  }
  return next();
};

/** The 403 page of a refused form (CSRF_REJECTED): what happened and what to do, nothing changed. */
export function forbidden(c: ConsoleCtx, message: string): Response | Promise<Response> {
  return c.html(
    <Layout title="Refused" session={c.get("session")}>
      <Notice kind="error" title="Refused (CSRF_REJECTED)">
        <p>{message}</p>
      </Notice>
    </Layout>,
    403,
  );
}

/** The one "not found" page: the same for a job that does not exist and one the viewer may not see. */
export function notFoundPage(c: ConsoleCtx, what = "page"): Response | Promise<Response> {
  return c.html(
    <Layout title="Not found" session={c.get("session")}>
      <Notice kind="error" title="Not found">
        <p>{`There is no such ${what}, or it is not yours to see.`}</p>
        <p>
          <a href="/console/jobs">Back to jobs</a>
        </p>
      </Notice>
    </Layout>,
    404,
  );
}

/** Reads from the console's scripts: GET and HEAD only, passed to /v1 as the signed-in user. */
const apiProxy = new Hono<ConsoleEnv>().get("/*", async (c) => {
  const url = new URL(c.req.url);
  const path = `/v1/${url.pathname.slice("/console/api/".length)}${url.search}`;
  const headers = new Headers();
  for (const h of ["accept", "last-event-id", "if-none-match"]) {
    const v = c.req.header(h);
    if (v) headers.set(h, v);
  }
  return apiFetch(c, path, { method: c.req.method, headers });
});

export function consoleApp(dispatch: (req: Request, c: ConsoleCtx) => Promise<Response>): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.use("*", securityHeaders);
  app.use("*", async (c, next) => {
    await ensureBootstrapped(c.env);
    c.set("dispatch", (req) => dispatch(req, c));
    return next();
  });
  app.use("*", requireSession);
  app.use("*", requireCsrf);
  app.route("/", assetRoutes);
  app.route("/", signInRoutes);
  app.get("/", (c) => c.redirect("/console/jobs", 303));
  // The API reference page is /console/api itself; the proxy serves what is under it.
  app.route("/", apiReferencePages);
  app.route("/api", apiProxy);
  app.route("/", jobsPages);
  app.route("/", jobPages);
  app.route("/", fleetPages);
  app.route("/", usagePages);
  app.route("/", adminPages);
  // A mounted sub-app's notFound is not used by its parent: a catch-all, registered last, instead.
  app.all("/*", (c) => notFoundPage(c));
  app.onError((err, c) => {
    if (err instanceof ApiFailure && (err.status === 404 || err.status === 403)) return notFoundPage(c);
    if (err instanceof ApiFailure) {
      return c.html(
        <Layout title="Error" session={c.get("session")}>
          <Notice kind="error" title={`The request failed (${err.code})`}>
            <p>{err.message}</p>
          </Notice>
        </Layout>,
        err.status as 400,
      );
    }
    log("error", "console page failed", {
      request_id: requestIdOf(c),
      path: c.req.path,
      ...errorFields(err),
    });
    return c.html(
      <Layout title="Error" session={c.get("session")}>
        <Notice kind="error" title="Something went wrong (INTERNAL)">
          <p>The server logged the details. Reload the page to try again.</p>
        </Notice>
      </Layout>,
      500,
    );
  });
  return app;
}
