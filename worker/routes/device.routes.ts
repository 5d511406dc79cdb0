/**
 * The device login: two public JSON routes the CLI calls (`/v1/auth/device`, `/v1/auth/device/token`) and
 * the `/device` page (outside /v1) where a person signed in to the console approves a code. Mounted at
 * the root, so the /v1 middleware (bootstrap, authentication with PUBLIC_ROUTES) still applies to the JSON
 * routes; the page brings the console's own middleware (session, CSRF, headers) for its one path.
 */
import { Hono } from "hono";
import { z } from "zod";
import { DeviceStarted, DeviceToken } from "../../contract/responses.schema.js";
import type { Env } from "../auth/middleware.js";
import { devicePage } from "../console/pages/device.js";
import { config } from "../env.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { pollDeviceLogin, startDeviceLogin } from "../services/device.service.js";

const PollBody = z.object({
  device_code: z
    .string()
    .min(1)
    .max(200)
    .describe(
      "The `device_code` (`sfd_…`) that POST /v1/auth/device answered; whoever holds it gets the token",
    ),
});
/** The approved poll's answer: the new token, whose it is and its name. */
const DeviceLoginToken = DeviceToken.extend({
  user: z.string().describe("The name of the user who approved the login: the token is theirs"),
  name: z.string().describe("The token's name, `sf device login <YYYY-MM-DD>`"),
});

export const deviceRoutes = new Hono<Env>()
  .post(
    "/v1/auth/device",
    describe({
      id: "startDeviceLogin",
      tag: "Identity",
      summary: "Start a device login (sf login without a token)",
      description:
        "Public; no body is needed (one is ignored). Show the person `user_code` and `verification_uri`, " +
        "then poll POST /v1/auth/device/token every `interval` seconds. `device_code` is a secret: whoever " +
        "holds it receives the token.",
      auth: "none",
      ok: { 200: DeviceStarted },
    }),
    async (c) => c.json(await startDeviceLogin(c.env, config(c.env).publicUrl)),
  )
  .post(
    "/v1/auth/device/token",
    describe({
      id: "pollDeviceLogin",
      tag: "Identity",
      summary: "Poll a device login for its token",
      description:
        "Public. 200 exactly once per approved code, with a new personal access token of the approver (no " +
        "expiry). Every other answer is a 400 with an RFC 8628 code: `AUTHORIZATION_PENDING` and `SLOW_DOWN` " +
        "(poll again after `details.interval` seconds), `ACCESS_DENIED`, `EXPIRED_TOKEN`, `INVALID_GRANT`.",
      auth: "none",
      body: PollBody,
      ok: { 200: DeviceLoginToken },
      errors: ["AUTHORIZATION_PENDING", "SLOW_DOWN", "ACCESS_DENIED", "EXPIRED_TOKEN", "INVALID_GRANT"],
    }),
    async (c) => {
      const body = await parseJson(c, PollBody);
      return c.json(await pollDeviceLogin(c.env, body.device_code));
    },
  )
  // The page where a person approves a code: a console page (worker/console/pages/device.tsx) that needs
  // a signed-in browser, mounted here so it keeps the short address the CLI prints.
  .route("/", devicePage);
