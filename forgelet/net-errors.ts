/** What a failed request says, for a person: the messages along fetch's cause chain and the socket's code. */

/** The system error code of a failure, looking through fetch's `cause` and Happy Eyeballs' AggregateError. */
export function codeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const o = e as { code?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof o.code === "string") return o.code;
    const first = Array.isArray(o.errors) ? (o.errors[0] as { code?: unknown } | undefined) : undefined;
    if (first && typeof first.code === "string") return first.code;
    e = o.cause;
  }
  return undefined;
}

/** The messages along the cause chain, outermost first: "fetch failed: other side closed". */
export function messageOf(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    if (e instanceof Error && e.message && !parts.includes(e.message)) parts.push(e.message);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(": ") || String(err);
}

/** "fetch failed" is not a reason: the causes' messages and the code ("fetch failed: other side closed (UND_ERR_SOCKET)"). */
export function describeFetchError(err: unknown): string {
  const code = codeOf(err);
  const msg = messageOf(err);
  return code && !msg.includes(code) ? `${msg} (${code})` : msg;
}

/** Codes of a connection that closed before any answer came (a kept-alive one the server had closed). */
const CLOSED_UNANSWERED = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

/**
 * The request's connection closed before any answer: a GET may simply be sent again. (A server closes an
 * idle kept-alive connection at its own timeout, racing the next request on it; the local workerd does so
 * to every such connection after a long busy spell: docs/operations.md.)
 */
export function closedUnanswered(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && CLOSED_UNANSWERED.has(code);
}
