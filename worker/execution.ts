/**
 * A request's execution context, for work that outlives its answer. `app.request` in unit tests has none
 * (reading `c.executionCtx` there throws).
 */

/** The request's execution context, when it has one. */
export function executionCtxOf(c: { executionCtx: ExecutionContext }): ExecutionContext | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** `waitUntil` of the request; without an execution context the promise just runs. */
export function waitUntil(c: { executionCtx: ExecutionContext }, p: Promise<unknown>): void {
  const ctx = executionCtxOf(c);
  if (ctx) ctx.waitUntil(p);
}
