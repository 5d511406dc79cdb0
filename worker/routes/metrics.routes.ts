/**
 * GET /v1/admin/metrics: the control plane in Prometheus's text format, for an admin token (a scraper's).
 * Each scrape reads D1 once (one batch) and asks every fleet's object for its figures.
 */
import { Hono } from "hono";
import { type Env, requireRole } from "../auth/middleware.js";
import { describe } from "../openapi/describe.js";
import { collectMetrics } from "../services/metrics-collect.js";
import { EXPOSITION_CONTENT_TYPE, exposition } from "../services/metrics-exposition.js";

export const metricsRoutes = new Hono<Env>().get(
  "/admin/metrics",
  describe({
    id: "getControlPlaneMetrics",
    tag: "Metrics",
    summary: "The control plane's metrics, for Prometheus",
    description:
      "Prometheus's text exposition format 0.0.4, `Cache-Control: no-store`; every series is in " +
      'docs/operations.md "Metrics". A fleet whose object does not answer is `starforge_fleet_up 0` and ' +
      "the scrape still succeeds.",
    role: "admin",
    ok: {
      200: {
        description: "The metrics in Prometheus's text format",
        media: { type: "text/plain", schema: { type: "string" } },
      },
    },
    errors: ["UNAVAILABLE"],
  }),
  requireRole("admin"),
  async (c) => {
    const text = exposition(await collectMetrics(c.env, Date.now()));
    return c.body(text, 200, { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" });
  },
);
