import { Hono } from "hono";
import type { Env } from "../auth/middleware.js";

export const API_VERSION = "v1";

export const healthRoutes = new Hono<Env>().get("/health", async (c) => {
  await c.env.DB.prepare("SELECT 1").first();
  return c.json({ ok: true, api: API_VERSION, time: new Date().toISOString() });
});
