/**
 * A server-sent events parser (the WHATWG "event stream" grammar, minus what EventSource does with it):
 * fed decoded text in arbitrary chunks, it yields complete events. Comments (keep-alives) are reported
 * as activity only.
 */

export interface SseEvent {
  /** "message" unless the stream named it (`event: end`). */
  event: string;
  data: string;
  /** The event's `id:` field, or null when it had none. */
  id: string | null;
}

export class SseParser {
  private buf = "";
  private data: string[] = [];
  private event = "";
  private id: string | null = null;
  /** The last `retry:` the server asked for, in ms. */
  retryMs: number | null = null;

  /** Feeds a chunk of text; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    this.buf += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      // A lone trailing \r may be the first half of \r\n: wait for the next chunk to decide.
      if (!m || (m[0] === "\r" && m.index === this.buf.length - 1)) return out;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
  }

  private line(line: string): SseEvent | null {
    if (line === "") {
      // A blank line dispatches; an event with no data is dropped (as EventSource does).
      const ev =
        this.data.length > 0
          ? { event: this.event || "message", data: this.data.join("\n"), id: this.id }
          : null;
      this.data = [];
      this.event = "";
      this.id = null;
      return ev;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }
}
