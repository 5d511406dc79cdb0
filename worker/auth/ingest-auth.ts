/**
 * Authentication of job-side ingest: the per-run token from the LaunchRequest, sent as
 * `X-StarForge-Token` (the original client) or `Authorization: Bearer`. It names one run; a request
 * about any other run is refused, and no user route accepts it (user auth bypasses only /v1/ingest/).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { IngestClaims } from "../../contract/ingest.schema.js";
import { verifyIngestToken } from "../../contract/ingest-token.js";
import { runStub } from "../../durable-objects/run/stub.js";
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
  await requireLiveRun(c, claims.sub);
  c.set("claims", claims);
  c.set("token", token);
  return next();
};

/**
 * A run's token is good while the run may still report and for a grace after it ended (the Run DO
 * decides). This isolate remembers a good answer for a little while, so a busy run's ingest does not pay
 * the check on every batch, and a refusal for good.
 */
const LIVE_FOR_MS = 30_000;
const checked = new Map<string, { ok: true; until: number } | { ok: false; message: string }>();

async function requireLiveRun(c: IngestCtx, runId: string): Promise<void> {
  const now = Date.now();
  let known = checked.get(runId);
  if (!known || (known.ok && known.until < now)) {
    const r = await runStub(c.env, runId).tokenAdmitted(runId);
    known = r.ok
      ? { ok: true, until: now + LIVE_FOR_MS }
      : {
          ok: false,
          message: `run ${runId} ended at ${new Date(r.endedAt).toISOString()}; its token was accepted for ${r.graceSeconds} s after that`,
        };
    if (checked.size > 10_000) checked.clear();
    checked.set(runId, known);
  }
  if (!known.ok) throw new AppError("TOKEN_REVOKED", known.message, { reason: "run_ended" });
}

/** The run a request is about must be the token's run. */
export function requireSameRun(c: IngestCtx, runId: string): IngestClaims {
  const claims = c.get("claims");
  if (runId !== claims.sub) {
    throw new AppError("FORBIDDEN", `this token is for run ${claims.sub}, not ${runId}`);
  }
  return claims;
}
