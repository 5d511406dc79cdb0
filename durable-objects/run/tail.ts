/**
 * One live log tail (SSE) inside the Run DO. It reads released lines by cursor straight from SQL, so it
 * never misses a line released while it was writing, never repeats one, and honours backpressure: a slow
 * reader only slows its own tail. New lines, keep-alives and the end of the run wake it up.
 */

import { bytes, sseComment, sseEvent } from "./sse-frames.js";
import type { LogLineView } from "./types.js";

export interface TailSource {
  /** Released lines with cursor ≥ `from`, in cursor order. */
  page(from: number, limit: number): LogLineView[];
  /** The run is over and every line it will hold back has been released. */
  ended(): boolean;
}

/** Lines per write: big enough to catch up fast, small enough to keep one write well under a MiB. */
const PAGE = 200;
/** EventSource clients wait this long before reconnecting (with Last-Event-ID) after a drop. */
const RETRY_MS = 2000;

export class LogTail {
  private next: number;
  private closed = false;
  private waiter: (() => void) | null = null;

  constructor(
    private readonly writer: WritableStreamDefaultWriter<Uint8Array>,
    from: number,
    private readonly source: TailSource,
    private readonly onClose: (tail: LogTail) => void,
  ) {
    this.next = from;
  }

  /** Streams until the run is over or the client goes away. */
  async run(): Promise<void> {
    try {
      await this.write(`retry: ${RETRY_MS}\n${sseComment(`tail from cursor ${this.next}`)}`);
      for (;;) {
        if (this.closed) return;
        const lines = this.source.page(this.next, PAGE);
        if (lines.length > 0) {
          await this.write(lines.map((l) => sseEvent({ id: l.cursor, data: l })).join(""));
          this.next = lines[lines.length - 1]!.cursor + 1;
          continue;
        }
        // Checked right after an empty page with no await in between: nothing can be released unseen.
        if (this.source.ended()) {
          await this.write(sseEvent({ event: "end", data: { next_offset: this.next } }));
          await this.writer.close();
          return;
        }
        await new Promise<void>((resolve) => {
          this.waiter = resolve;
        });
      }
    } catch {
      // The client went away (its read side was cancelled): nothing to report to anyone.
    } finally {
      this.close();
    }
  }

  /** Something changed (lines released, the run ended): look again. */
  notify(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  keepAlive(): void {
    if (this.closed) return;
    // A write to a stream whose reader is gone fails: that is how an idle, dropped tail is noticed.
    this.write(sseComment("keep-alive")).catch(() => this.close());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.writer.abort().catch(() => undefined);
    this.notify();
    this.onClose(this);
  }

  private write(text: string): Promise<void> {
    return this.writer.write(bytes(text));
  }
}
