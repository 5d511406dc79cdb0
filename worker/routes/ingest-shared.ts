/** What the job-side ingest routes share (ingest.routes.ts, ingest-files.routes.ts). */
import type { z } from "zod";
import { type IngestCtx, requireSameRun } from "../auth/ingest-auth.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { parsePythonJson } from "../services/python-json.js";

/**
 * A JSON body (Python's NaN/Infinity read as null) through its schema, then the check that its run_id
 * is the token's run. Only these two whole-body failures answer 4xx; items are checked one by one.
 */
export async function runBody<S extends z.ZodType<{ run_id: string }>>(
  c: IngestCtx,
  schema: S,
): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = parsePythonJson(await c.req.text());
  } catch {
    throw new AppError("BAD_REQUEST", "request body must be JSON");
  }
  const body = parseValue(schema, raw);
  requireSameRun(c, body.run_id);
  return body;
}

export const BINARY = { type: "string", format: "binary" };

/** The original client's way to send the run's token (the other is `Authorization: Bearer`). */
export const TOKEN_HEADER = {
  "X-StarForge-Token": {
    description: "The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent)",
  },
};

/**
 * What every ingest route may answer besides its own: the run ended longer ago than its token's grace
 * (TOKEN_REVOKED), and, for a body or URL naming a run, another run than the token's (FORBIDDEN).
 */
export const RUN_BODY_ERRORS = ["TOKEN_REVOKED", "FORBIDDEN"] as const;
