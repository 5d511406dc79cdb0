import { Hono } from "hono";
import type { Env } from "../auth/middleware.js";
import { AppError } from "../errors.js";

export const API_VERSION = "v1";

export const healthRoutes = new Hono<Env>().get("/health", async (c) => {
  try {
    await c.env.DB.prepare("SELECT 1").first();
  } catch (err) {
    console.error("health: D1 unreachable", err);
    throw new AppError("UNAVAILABLE", "the ledger database is unreachable");
  }
  return c.json({ ok: true, api: API_VERSION, time: new Date().toISOString() });
});
