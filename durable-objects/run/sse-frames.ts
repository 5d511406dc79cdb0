/**
 * Server-sent event framing for the live log tail. Data is one JSON line, so a log line holding
 * newlines or a `data:` prefix can never break the framing.
 */

const enc = new TextEncoder();

export function sseEvent(e: { id?: number; event?: string; data: unknown }): string {
  let frame = "";
  if (e.event !== undefined) frame += `event: ${e.event}\n`;
  if (e.id !== undefined) frame += `id: ${e.id}\n`;
  return `${frame}data: ${JSON.stringify(e.data)}\n\n`;
}

/** A comment line: ignored by EventSource, but it keeps proxies from closing an idle stream. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

export function bytes(text: string): Uint8Array {
  return enc.encode(text);
}

export const SSE_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // Tells buffering reverse proxies (nginx) to pass events through as they come.
  "x-accel-buffering": "no",
};
