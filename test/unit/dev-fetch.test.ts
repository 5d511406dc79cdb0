/**
 * The tier-3 harness's fetch (test/support/control-plane.ts devFetch) sends every request exactly once: a
 * dropped connection or a 503 from the local control plane fails the test that met it, read or write,
 * instead of being hidden by a second attempt (the local stack must never drop a request).
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
  it("answers a request the server answers, read whole", async () => {
    const s = await flaky(0);
    expect(await devFetch(s.url, { method: "GET" })).toEqual({ status: 200, text: "ok" });
    expect(s.seen()).toBe(1);
  });

  it("opens a connection of its own for every request, so no request meets a kept-alive one the server closed", async () => {
    const ports = new Set<number>();
    server = createServer((req, res) => {
      ports.add(req.socket.remotePort!);
      res.end(req.headers.connection ?? "");
    });
    await new Promise<void>((ok) => server!.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`;
    for (let i = 0; i < 3; i++)
      expect(await devFetch(url, { method: "GET" })).toEqual({ status: 200, text: "close" });
    expect(ports.size).toBe(3);
  });

  it("never sends a read again: a dropped GET fails the caller", async () => {
    const s = await flaky(1);
    await expect(devFetch(s.url, { method: "GET" })).rejects.toThrow();
    expect(s.seen()).toBe(1);
  });

  it("never sends a write again: a dropped POST fails the caller", async () => {
    const s = await flaky(1);
    await expect(devFetch(s.url, { method: "POST", body: "{}" })).rejects.toThrow();
    expect(s.seen()).toBe(1);
  });

  it("hands a 503 'restarted mid-request' to the caller as it came, without a second attempt", async () => {
    let n = 0;
    server = createServer((_req, res) => {
      n++;
      res.statusCode = 503;
      res.end(`${DEV_SERVER_RESTARTED}, please retry`);
    });
    await new Promise<void>((ok) => server!.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`;
    const answer = await devFetch(url, { method: "POST", body: "{}" });
    expect(answer.status).toBe(503);
    expect(answer.text.startsWith(DEV_SERVER_RESTARTED)).toBe(true);
    expect(n).toBe(1);
  });
});
