/**
 * The device login: two public JSON routes the CLI calls (`/v1/auth/device`, `/v1/auth/device/token`) and
 * the `/device` page (outside /v1) where a person signed in to the console approves a code. Mounted at
 * the root, so the /v1 middleware (bootstrap, authentication with PUBLIC_ROUTES) still applies to the JSON
 * routes; the page brings the console's own middleware (session, CSRF, headers) for its one path.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { Env } from "../auth/middleware.js";
import { devicePage } from "../console/pages/device.js";
import { config } from "../env.js";
import { parseJson } from "../http.js";
import { pollDeviceLogin, startDeviceLogin } from "../services/device.service.js";

const PollBody = z.object({ device_code: z.string().min(1).max(200) });

export const deviceRoutes = new Hono<Env>()
  .post("/v1/auth/device", async (c) => c.json(await startDeviceLogin(c.env, config(c.env).publicUrl)))
  .post("/v1/auth/device/token", async (c) => {
    const body = await parseJson(c, PollBody);
    return c.json(await pollDeviceLogin(c.env, body.device_code));
  })
  // The page where a person approves a code: a console page (worker/console/pages/device.tsx) that needs
  // a signed-in browser, mounted here so it keeps the short address the CLI prints.
  .route("/", devicePage);
