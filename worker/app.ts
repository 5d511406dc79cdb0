/**
 * The Hono app: request ids, logs and version headers around everything, the version handshake,
 * bootstrap, authentication, the routes, and the one error mapping.
 */
import { Hono } from "hono";
import type { ErrorBody } from "../contract/errors.js";
import { ensureBootstrapped } from "./auth/bootstrap.js";
import { authenticate, type Env } from "./auth/middleware.js";
import { consoleApp } from "./console/index.js";
import { AppError } from "./errors.js";
import { executionCtxOf } from "./execution.js";
import { limitBodies, refuseOldCli } from "./http.js";
import { agentsRoutes } from "./routes/agents.routes.js";
import { auditRoutes } from "./routes/audit.routes.js";
import { blobsRoutes } from "./routes/blobs.routes.js";
import { capsuleRoutes } from "./routes/capsule.routes.js";
import { catalogRoutes } from "./routes/catalog.routes.js";
import { deviceRoutes } from "./routes/device.routes.js";
import { fleetsRoutes } from "./routes/fleets.routes.js";
import { healthRoutes } from "./routes/health.routes.js";
import { ingestRoutes } from "./routes/ingest.routes.js";
import { jobsRoutes } from "./routes/jobs.routes.js";
import { metricsRoutes } from "./routes/metrics.routes.js";
import { nodesRoutes } from "./routes/nodes.routes.js";
import { openapiRoutes } from "./routes/openapi.routes.js";
import { priorityClassesRoutes } from "./routes/priority-classes.routes.js";
import { profilesRoutes } from "./routes/profiles.routes.js";
import { readbackRoutes } from "./routes/readback.routes.js";
import { secretsRoutes } from "./routes/secrets.routes.js";
import { teamsRoutes } from "./routes/teams.routes.js";
import { tokensRoutes } from "./routes/tokens.routes.js";
import { usageRoutes } from "./routes/usage.routes.js";
import { usersRoutes } from "./routes/users.routes.js";
import { webhooksRoutes } from "./routes/webhooks.routes.js";
import { noteConfigWrite } from "./services/config-cache.js";
import { errorFields, log, requestIdOf } from "./services/log.js";
import { observeRequests } from "./services/log-request.js";

export function createApp(): Hono<Env> {
  const app = new Hono<Env>();

  // Outermost, so 404s, refusals and errors of every later step get a request id, headers and a log line.
  app.use("*", observeRequests);
  app.use("*", refuseOldCli);
  app.use("/v1/*", async (c, next) => {
    await ensureBootstrapped(c.env);
    return next();
  });
  app.use("/v1/*", authenticate);
  app.use("*", limitBodies);
  // An admin's change to what admission caches is seen by this isolate's next submit at once.
  app.use("/v1/*", async (c, next) => {
    await next();
    noteConfigWrite(c.req.method, c.req.path, c.res.status);
  });

  app.route("/v1", healthRoutes);
  app.route("/v1", openapiRoutes);
  app.route("/v1", usersRoutes);
  app.route("/v1", tokensRoutes);
  app.route("/v1", catalogRoutes);
  app.route("/v1", profilesRoutes);
  app.route("/v1", priorityClassesRoutes);
  app.route("/v1", teamsRoutes);
  app.route("/v1", secretsRoutes);
  app.route("/v1", nodesRoutes);
  app.route("/v1", fleetsRoutes);
  app.route("/v1", agentsRoutes);
  app.route("/v1", jobsRoutes);
  app.route("/v1", blobsRoutes);
  app.route("/v1", usageRoutes);
  app.route("/v1", capsuleRoutes);
  app.route("/v1", readbackRoutes);
  app.route("/v1", webhooksRoutes);
  app.route("/v1", auditRoutes);
  app.route("/v1", metricsRoutes);
  app.route("/v1/ingest", ingestRoutes);
  // Full paths inside: /v1/auth/device… (under the /v1 middleware) and the /device page.
  app.route("/", deviceRoutes);
  // The web console (worker/console): pages that call the routes above in-process as the signed-in user.
  app.route(
    "/console",
    consoleApp(async (req, c) => app.fetch(req, c.env, executionCtxOf(c))),
  );
  app.get("/", (c) => c.redirect("/console/jobs", 302));

  app.notFound((c) => {
    const body: ErrorBody = {
      error: { code: "NOT_FOUND", message: `no route for ${c.req.method} ${c.req.path}` },
    };
    return c.json(body, 404);
  });

  app.onError((err, c) => {
    if (err instanceof AppError) {
      return c.json(err.toBody(), err.status as 400);
    }
    // Unknown errors are logged with their stack here and never sent to the client.
    log("error", "unhandled error", {
      request_id: requestIdOf(c),
      method: c.req.method,
      path: c.req.path,
      ...errorFields(err),
    });
    const body: ErrorBody = {
      error: { code: "INTERNAL", message: "internal error; the server logged the details" },
    };
    return c.json(body, 500);
  });

  return app;
}
