/**
 * The Run DO's open live log tails (SSE, tail.ts): opened by its fetch, woken when lines are released or
 * the run ends, kept alive by its alarm. In memory: a tail lives only as long as its request.
 */
import { LogTail, type TailSource } from "./tail.js";

/** Live tails get a comment this often, and an idle tail re-checks whether its run is over. */
export const KEEPALIVE_MS = 15_000;

export class LiveTails {
  private readonly tails = new Set<LogTail>();
  /** When live tails next get a keep-alive (null while none is open). */
  private keepAliveDue: number | null = null;

  constructor(private readonly source: TailSource) {}

  get size(): number {
    return this.tails.size;
  }

  /** Opens a tail that starts at cursor `from`: the stream it writes its events to. */
  open(from: number, now: number): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const tail = new LogTail(writable.getWriter(), from, this.source, (t) => {
      this.tails.delete(t);
      if (this.tails.size === 0) this.keepAliveDue = null;
    });
    this.tails.add(tail);
    this.keepAliveDue ??= now + KEEPALIVE_MS;
    void tail.run();
    return readable;
  }

  /** Lines were released or the run ended: every tail looks again. */
  notify(): void {
    for (const t of this.tails) t.notify();
  }

  /** Sends every tail a keep-alive; the next is due KEEPALIVE_MS from now. */
  keepAlive(): void {
    for (const t of this.tails) t.keepAlive();
    this.keepAliveDue = Date.now() + KEEPALIVE_MS;
  }

  /** When the next keep-alive is due; null while no tail is open. */
  due(): number | null {
    return this.tails.size > 0 ? this.keepAliveDue : null;
  }
}
