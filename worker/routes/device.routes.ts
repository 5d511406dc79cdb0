/**
 * The device login: two public JSON routes the CLI calls (`/v1/auth/device`, `/v1/auth/device/token`) and
 * the `/device` page (outside /v1) where a person approves a code. Mounted at the root, so the /v1
 * middleware (bootstrap, authentication with PUBLIC_ROUTES) still applies to the JSON routes.
 */
import { Hono } from "hono";
import { z } from "zod";
import { ensureBootstrapped } from "../auth/bootstrap.js";
import { countFailedLogin, refuseIfLockedOut } from "../auth/login-limiter.js";
import type { Ctx, Env } from "../auth/middleware.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { recordAudit } from "../services/audit.service.js";
import {
  DeviceApprovalError,
  decideDeviceLogin,
  formatUserCode,
  normalizeUserCode,
  pollDeviceLogin,
  startDeviceLogin,
} from "../services/device.service.js";

const PollBody = z.object({ device_code: z.string().min(1).max(200) });

export const deviceRoutes = new Hono<Env>()
  .post("/v1/auth/device", async (c) => c.json(await startDeviceLogin(c.env, config(c.env).publicUrl)))
  .post("/v1/auth/device/token", async (c) => {
    const body = await parseJson(c, PollBody);
    return c.json(await pollDeviceLogin(c.env, body.device_code));
  })
  .get("/device", (c) => {
    const given = c.req.query("user_code") ?? "";
    const code = normalizeUserCode(given);
    return html(c, 200, form(code ? formatUserCode(code) : given));
  })
  .post("/device", async (c) => {
    // The form is this page's only client; the bootstrap admin must exist even if no /v1 call came first.
    await ensureBootstrapped(c.env);
    let f: Awaited<ReturnType<typeof c.req.parseBody>>;
    try {
      f = await c.req.parseBody();
    } catch {
      // A body that is no form (a multipart body without its boundary, broken bytes) is the sender's
      // mistake: formData() throws a TypeError, which must not become a 500 (found by fuzz-routes-rest).
      return html(c, 400, form("", "The form could not be read; submit it again."));
    }
    const field = (k: string) => (typeof f[k] === "string" ? (f[k] as string) : "");
    const action = field("action");
    if (action !== "approve" && action !== "deny") {
      return html(c, 400, form(field("user_code"), "Choose Approve or Deny."));
    }
    // The page takes a personal access token: guessing through it is limited like any other login.
    const presented = field("token") || null;
    try {
      await refuseIfLockedOut(c, presented);
    } catch (err) {
      if (err instanceof AppError) return html(c, 429, form(field("user_code"), err.message));
      throw err;
    }
    try {
      const r = await decideDeviceLogin(c.env, {
        userCode: field("user_code"),
        token: field("token"),
        approve: action === "approve",
      });
      if (action === "approve") {
        await recordAudit(c, {
          action: "token.create",
          target: `user:${r.user}`,
          details: { via: "device login" },
        });
      }
      return html(
        c,
        200,
        action === "approve"
          ? done(
              "Approved",
              `Code <b>${esc(r.userCode)}</b> is approved for <b>${esc(r.user)}</b>. Go back to your terminal: <code>sf</code> receives a new personal access token named “sf device login &lt;date&gt;”. You can revoke it any time (<code>DELETE /v1/tokens/:id</code>).`,
            )
          : done(
              "Denied",
              `Code <b>${esc(r.userCode)}</b> is denied; the waiting <code>sf login</code> stops.`,
            ),
      );
    } catch (err) {
      if (err instanceof DeviceApprovalError) {
        if (err.status === 401) await countFailedLogin(c, presented);
        return html(c, err.status, form(field("user_code"), err.message));
      }
      throw err;
    }
  });

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** No scripts, no external assets, no framing, nothing cached: the page handles a person's token. */
function html(c: Ctx, status: 200 | 400 | 401 | 403 | 404 | 409 | 429, content: string): Response {
  return c.html(page(content), status, {
    "content-security-policy":
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  });
}

function page(content: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>StarForge · device login</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;color:#1f2328;background:#f6f8fa;margin:0;padding:2rem 1rem}
main{max-width:30rem;margin:auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1.5rem 2rem}
h1{font-size:1.3rem;margin-top:0}label{display:block;font-weight:600;margin-top:1rem}
input{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border:1px solid #d0d7de;border-radius:6px}
#user_code{font-family:ui-monospace,monospace;font-size:1.4rem;letter-spacing:.15em;text-transform:uppercase}
.buttons{display:flex;gap:.75rem;margin-top:1.25rem}button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #d0d7de;background:#f6f8fa;cursor:pointer}
button[value=approve]{background:#1f883d;border-color:#1f883d;color:#fff}
.note{color:#59636e;font-size:.9rem}.error{background:#ffebe9;border:1px solid #ff818266;border-radius:6px;padding:.5rem .75rem}
code{font-family:ui-monospace,monospace;font-size:.9em}
</style></head><body><main>
${content}
</main></body></html>
`;
}

function form(userCode: string, error?: string): string {
  return `<h1>Log in to StarForge from a terminal</h1>
<p>Enter the code <code>sf login</code> printed, then prove who you are.</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ""}
<form method="post" action="/device">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" value="${esc(userCode)}" placeholder="BCDF-GHJK" autocomplete="off" required>
<label for="token">One of your personal access tokens</label>
<input id="token" name="token" type="password" autocomplete="off" placeholder="sfp_…" required>
<p class="note">There is no browser login yet, so a token you already have (from your admin, or <code>POST /v1/tokens</code>) is how you prove it is you. It is checked and not kept; approving gives the terminal a new token of its own.</p>
<div class="buttons"><button type="submit" name="action" value="approve">Approve</button><button type="submit" name="action" value="deny">Deny</button></div>
</form>`;
}

function done(title: string, message: string): string {
  return `<h1>${esc(title)}</h1><p>${message}</p><p class="note">You can close this page.</p>`;
}
