/**
 * GET /v1/admin/metrics: the control plane in Prometheus's text format, for an admin token (a scraper's).
 * Each scrape reads D1 once (one batch) and asks every fleet's object for its figures.
 */
import { Hono } from "hono";
import { type Env, requireRole } from "../auth/middleware.js";
import { collectMetrics } from "../services/metrics-collect.js";
import { EXPOSITION_CONTENT_TYPE, exposition } from "../services/metrics-exposition.js";

export const metricsRoutes = new Hono<Env>().get("/admin/metrics", requireRole("admin"), async (c) => {
  const text = exposition(await collectMetrics(c.env, Date.now()));
  return c.body(text, 200, { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" });
});
