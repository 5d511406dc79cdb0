/**
 * The tier-3 harness's fetch (test/support/control-plane.ts devFetch): what the local dev server does
 * while it swaps its runtime (a 503 "restarted mid-request", a dropped connection) is sent again for a
 * read, never for a write, which fails the test as it should.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DEV_SERVER_RESTARTED, devFetch } from "../support/control-plane.js";

let server: Server | null = null;

/** A server that drops the connection of the first `drops` requests, then answers 200 "ok". */
async function flaky(drops: number): Promise<{ url: string; seen: () => number }> {
  let n = 0;
  server = createServer((req, res) => {
    n++;
    if (n <= drops) {
      req.socket.destroy();
      return;
    }
    res.end("ok");
  });
  await new Promise<void>((ok) => server!.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`, seen: () => n };
}

afterEach(async () => {
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  server = null;
});

describe("devFetch", () => {
  it("sends a read again when the dev server drops its connection", async () => {
    const s = await flaky(1);
    expect(await devFetch(s.url, { method: "GET" })).toEqual({ status: 200, text: "ok" });
    expect(s.seen()).toBe(2);
  });

  it("gives up after three dropped attempts", async () => {
    const s = await flaky(5);
    await expect(devFetch(s.url, { method: "GET" })).rejects.toThrow();
    expect(s.seen()).toBe(3);
  });

  it("never sends a write again: a dropped POST fails", async () => {
    const s = await flaky(1);
    await expect(devFetch(s.url, { method: "POST", body: "{}" })).rejects.toThrow();
    expect(s.seen()).toBe(1);
  });

  it("sends a request again on the dev server's 503 'restarted mid-request'", async () => {
    let n = 0;
    server = createServer((_req, res) => {
      n++;
      if (n === 1) {
        res.statusCode = 503;
        res.end(`${DEV_SERVER_RESTARTED}, please retry`);
        return;
      }
      res.end("ok");
    });
    await new Promise<void>((ok) => server!.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`;
    expect(await devFetch(url, { method: "POST", body: "{}" })).toEqual({ status: 200, text: "ok" });
    expect(n).toBe(2);
  });
});
