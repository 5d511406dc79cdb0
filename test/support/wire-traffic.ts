/**
 * Requests of the local-stack fuzz (test/node/local-stack-fuzz.test.ts) as they go on the wire: over a few
 * real kept-alive undici connections, several in flight at once, each outcome timed and never sent again;
 * and a raw HTTP/1.1 exchange on a plain socket, for a body written after its headers.
 */
import type { Socket } from "node:net";
import { type Agent, request } from "undici";
import type { Answer } from "../worker/fuzz-model.js";

/** One request of the mix, as it goes on the wire. */
export interface Item {
  kind: "fuzz" | "valid" | "early";
  /** `METHOD /route` for fuzzed requests (coverage), a name for the others. */
  route: string;
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  html?: boolean;
  /** The statuses a valid or early-refused request must get. */
  expect?: number[];
  /** Answered with an event stream. */
  stream?: boolean;
}

export interface Outcome {
  item: Item;
  answer?: Answer;
  ms: number;
  error?: string;
  /** The answer said `Connection: close`. */
  close?: boolean;
  /** An event stream, cut off after its headers (which closes its connection). */
  cut?: boolean;
}

/**
 * What undici cannot put on the wire, as fetch and any HTTP client refuse it: an `Upgrade` header (a
 * WebSocket route is sent as a plain request, and must be refused, coded, rather than hang) and bytes a
 * header value may not carry (DEL), replaced. Every request without a client address of its own gets one,
 * as Cloudflare's CF-Connecting-IP gives every request on the edge: the failed-login limit (wrangler.toml,
 * 20 a minute per address) would otherwise refuse all the rest of the fuzz 429 (the workerd fuzz raises
 * the limits instead; these are the real ones).
 */
export function wireHeaders(headers: Headers, address: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of headers) if (k !== "upgrade") out[k] = v.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?");
  if (!("cf-connecting-ip" in out)) out["cf-connecting-ip"] = address;
  return out;
}

async function sendItem(base: string, dispatcher: Agent, item: Item): Promise<Outcome> {
  const started = performance.now();
  try {
    const res = await request(new URL(item.target, base), {
      dispatcher,
      method: item.method as "GET",
      headers: item.headers,
      body: item.body,
      // Reused after a GET or DELETE with a body, which undici otherwise closes (a HEAD answer without a
      // length still ends its connection, this side's choice: counted below).
      reset: false,
    });
    const contentType = String(res.headers["content-type"] ?? "");
    let text = "";
    // A live tail never ends by itself: cut off after its headers (the connection goes with it).
    const cut = contentType.includes("text/event-stream");
    if (cut) res.body.destroy();
    else text = await res.body.text();
    const close = /\bclose\b/i.test(String(res.headers.connection ?? ""));
    const answer = { status: res.statusCode, contentType, text };
    return { item, answer, ms: performance.now() - started, close, cut };
  } catch (err) {
    const e = err as { code?: string; message?: string; cause?: { code?: string } };
    return {
      item,
      ms: performance.now() - started,
      error: `${e.code ?? e.cause?.code ?? "?"}: ${e.message}`,
    };
  }
}

/** Sends `items` in order, `inFlight` at a time, over `dispatcher`'s pool. */
export async function sendAll(
  base: string,
  dispatcher: Agent,
  items: Item[],
  inFlight: number,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) {
        const i = next++;
        outcomes[i] = await sendItem(base, dispatcher, items[i]!);
      }
    }),
  );
  return outcomes;
}

/** A small seeded shuffle (mulberry32), so the mix's order replays with its seed. */
export function shuffled<T>(xs: T[], seed: number): T[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function tally(xs: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of xs) out.set(x, (out.get(x) ?? 0) + 1);
  return out;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export const json = { "content-type": "application/json" };

// ---------------------------------------------------------------------------------------------------------
// A raw HTTP/1.1 exchange, for the body written after its headers.

/** Reads one HTTP/1.1 response off `socket` (Content-Length or chunked), or says why none came. */
export function readResponse(socket: Socket, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((ok, ko) => {
    let buf = Buffer.alloc(0);
    const done = (err: Error | null, value?: { status: number; body: string }) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.off("error", onError);
      if (err) ko(err);
      else ok(value!);
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buf.subarray(0, end).toString("latin1");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      const rest = buf.subarray(end + 4);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (length) {
        if (rest.length >= Number(length[1]))
          done(null, { status, body: rest.toString("utf8", 0, Number(length[1])) });
        return;
      }
      if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
        let at = 0;
        let body = "";
        for (;;) {
          const eol = rest.indexOf("\r\n", at);
          if (eol < 0) return;
          const size = Number.parseInt(rest.subarray(at, eol).toString("latin1"), 16);
          if (rest.length < eol + 2 + size + 2) return;
          if (size === 0) return done(null, { status, body });
          body += rest.subarray(eol + 2, eol + 2 + size).toString("utf8");
          at = eol + 2 + size + 2;
        }
      }
      done(null, { status, body: "" });
    };
    const onClose = () => done(new Error(`the server closed the connection without an answer`));
    const onError = (err: Error) => done(new Error(`socket error: ${err.message}`));
    const timer = setTimeout(() => done(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
    socket.on("data", onData);
    socket.on("close", onClose);
    socket.on("error", onError);
  });
}

/** Writes a POST's headers, then its JSON body `delayMs` later. */
export async function postSlowly(
  base: string,
  socket: Socket,
  path: string,
  body: string,
  delayMs: number,
): Promise<void> {
  const host = new URL(base).host;
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  await new Promise((r) => setTimeout(r, delayMs));
  socket.write(body);
}
