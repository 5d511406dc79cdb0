/** @jsxImportSource hono/jsx */
/**
 * The `/device` page, where a person approves the code `sf login` printed. It sits outside /console (the
 * CLI prints `<server>/device`) but is a console page: it needs a signed-in browser (the console's
 * session and CSRF middleware, index.tsx), renders with the console's Layout and headers, and approves
 * for the session's user. No token is typed here any more: signing in at /console/sign-in is where a
 * token is checked (and failed attempts are limited), and a code approved here gives the terminal a new
 * token of the signed-in user's own.
 */
import { Hono } from "hono";
import { ensureBootstrapped } from "../../auth/bootstrap.js";
import type { Ctx } from "../../auth/middleware.js";
import { recordAudit } from "../../services/audit.service.js";
import {
  DeviceApprovalError,
  decideDeviceLogin,
  formatUserCode,
  normalizeUserCode,
} from "../../services/device.service.js";
import type { ConsoleCtx, ConsoleEnv } from "../api.js";
import { requireCsrf, requireSession, securityHeaders } from "../index.js";
import { CsrfField, Layout } from "../layout.js";
import type { Session } from "../session.js";

const DeviceForm = ({ session, code, error }: { session: Session; code: string; error?: string }) => (
  <Layout title="Approve a terminal login" session={session} section="device">
    <section class="narrow card">
      <h1>Log in to StarForge from a terminal</h1>
      <p>
        Signed in as <strong>{session.principal.name}</strong>. Enter the code <code>sf login</code> printed,
        then approve it only if you started that login yourself.
      </p>
      {error ? (
        <p class="error" role="alert" id="device-error">
          {error}
        </p>
      ) : null}
      <form method="post" action="/device">
        <CsrfField session={session} />
        <label for="user_code">Code</label>
        <input
          id="user_code"
          name="user_code"
          type="text"
          class="mono"
          value={code}
          placeholder="BCDF-GHJK"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck={false}
          required
          aria-describedby={error ? "device-error device-help" : "device-help"}
        />
        <p class="note" id="device-help">
          Approving gives that terminal a new personal access token of{" "}
          <strong>{session.principal.name}</strong>, named “sf device login &lt;date&gt;”. You can revoke it
          any time.
        </p>
        <p>
          <button type="submit" name="action" value="approve" class="primary">
            Approve
          </button>{" "}
          <button type="submit" name="action" value="deny">
            Deny
          </button>
        </p>
      </form>
    </section>
  </Layout>
);

const Decided = ({
  session,
  approved,
  user,
  code,
}: {
  session: Session;
  approved: boolean;
  user: string;
  code: string;
}) => (
  <Layout title={approved ? "Approved" : "Denied"} session={session} section="device">
    <section class="narrow card">
      <h1>{approved ? "Approved" : "Denied"}</h1>
      {approved ? (
        <p>
          Code <strong>{code}</strong> is approved for <strong>{user}</strong>. Go back to your terminal:{" "}
          <code>sf</code> receives a new personal access token named “sf device login &lt;date&gt;”. You can
          revoke it any time (<code>DELETE /v1/tokens/:id</code>).
        </p>
      ) : (
        <p>
          Code <strong>{code}</strong> is denied; the waiting <code>sf login</code> stops.
        </p>
      )}
      <p class="note">
        You can close this page, or go on to <a href="/console/jobs">your jobs</a>.
      </p>
    </section>
  </Layout>
);

function formPage(c: ConsoleCtx, status: 200 | 400 | 404 | 409, code: string, error?: string) {
  return c.html(<DeviceForm session={c.get("session")} code={code} {...(error ? { error } : {})} />, status);
}

/** The code as typed, in its `ABCD-EFGH` form when it is one. */
function shownCode(given: string): string {
  const code = normalizeUserCode(given);
  return code ? formatUserCode(code) : given.slice(0, 40);
}

export const devicePage = new Hono<ConsoleEnv>()
  // Only on /device: this app is mounted at the root, where a "*" middleware would reach every route.
  .use("/device", securityHeaders, async (c, next) => {
    await ensureBootstrapped(c.env);
    return next();
  })
  .use("/device", requireSession, requireCsrf)
  .get("/device", (c) => formPage(c, 200, shownCode(c.req.query("user_code") ?? "")))
  .post("/device", async (c) => {
    let f: Record<string, unknown>;
    try {
      f = await c.req.parseBody();
    } catch {
      // A body that is no form (a multipart body without its boundary, broken bytes) is the sender's
      // mistake: formData() throws a TypeError, which must not become a 500 (found by fuzz-routes-rest).
      return formPage(c, 400, "", "The form could not be read; submit it again.");
    }
    const field = (k: string) => (typeof f[k] === "string" ? (f[k] as string) : "");
    const action = field("action");
    const userCode = field("user_code");
    if (action !== "approve" && action !== "deny") {
      return formPage(c, 400, shownCode(userCode), "Choose Approve or Deny.");
    }
    const session = c.get("session");
    try {
      const r = await decideDeviceLogin(c.env, {
        userCode,
        approver: { userId: session.principal.userId, name: session.principal.name },
        approve: action === "approve",
      });
      if (action === "approve") {
        // The same entry as before the console: actor is the session's user (requireSession set it).
        await recordAudit(c as unknown as Ctx, {
          action: "token.create",
          target: `user:${r.user}`,
          details: { via: "device login" },
        });
      }
      return c.html(
        <Decided session={session} approved={action === "approve"} user={r.user} code={r.userCode} />,
        200,
      );
    } catch (err) {
      if (err instanceof DeviceApprovalError)
        return formPage(c, err.status, shownCode(userCode), err.message);
      throw err;
    }
  });
