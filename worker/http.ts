/** Request parsing helpers: every body and query goes through zod and fails with a coded 400. */
import type { z } from "zod";
import type { Ctx } from "./auth/middleware.js";
import { AppError } from "./errors.js";

export function issuesOf(err: z.ZodError): Array<{ path: string; message: string }> {
  return err.issues.map((i) => ({ path: i.path.join(".") || "(root)", message: i.message }));
}

export function describeIssues(err: z.ZodError): string {
  return issuesOf(err)
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
}

export async function parseJson<S extends z.ZodType>(
  c: Pick<Ctx, "req">,
  schema: S,
  code: "BAD_REQUEST" | "INVALID_SPEC" = "BAD_REQUEST",
): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new AppError("BAD_REQUEST", "request body must be JSON");
  }
  return parseValue(schema, raw, code);
}

export function parseValue<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  code: "BAD_REQUEST" | "INVALID_SPEC" = "BAD_REQUEST",
): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new AppError(code, `invalid request: ${describeIssues(r.error)}`, { issues: issuesOf(r.error) });
  return r.data;
}
