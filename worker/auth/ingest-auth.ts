/**
 * Authentication of job-side ingest: the per-run token from the LaunchRequest, sent as
 * `X-StarForge-Token` (the original client) or `Authorization: Bearer`. It names one run; a request
 * about any other run is refused, and no user route accepts it (user auth bypasses only /v1/ingest/).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { IngestClaims } from "../../contract/ingest.schema.js";
import { verifyIngestToken } from "../../contract/ingest-token.js";
import { type AppEnv, config } from "../env.js";
import { AppError } from "../errors.js";

export type IngestEnv = {
  Bindings: AppEnv;
  /** `token` is kept for the Worker upload target, which hands it back as the upload's auth header. */
  Variables: { claims: IngestClaims; token: string };
};
export type IngestCtx = Context<IngestEnv>;

function tokenOf(c: IngestCtx): string | null {
  const own = c.req.header("x-starforge-token");
  if (own) return own.trim();
  const h = c.req.header("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (!m) throw new AppError("UNAUTHENTICATED", "Authorization header must be `Bearer <token>`");
  return m[1]!;
}

export const authenticateRun: MiddlewareHandler<IngestEnv> = async (c, next) => {
  const token = tokenOf(c);
  if (!token) {
    throw new AppError(
      "UNAUTHENTICATED",
      "ingest needs the run's token in X-StarForge-Token (or Authorization: Bearer)",
    );
  }
  const claims = await verifyIngestToken(config(c.env).jwtSecret, token);
  if (!claims) throw new AppError("UNAUTHENTICATED", "invalid or expired ingest token");
  c.set("claims", claims);
  c.set("token", token);
  return next();
};

/** The run a request is about must be the token's run. */
export function requireSameRun(c: IngestCtx, runId: string): IngestClaims {
  const claims = c.get("claims");
  if (runId !== claims.sub) {
    throw new AppError("FORBIDDEN", `this token is for run ${claims.sub}, not ${runId}`);
  }
  return claims;
}
