/**
 * A TCP relay on loopback that counts the bytes clients send upstream (what an upload costs, measured on
 * the wire) and can corrupt one byte of that stream (a part damaged on the way).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  url: string;
  /** Bytes sent from clients to the upstream since the last reset. */
  upstreamBytes: () => number;
  reset: () => void;
  /** Flip one byte: the byte at `offset` of the first connection that sends that many bytes upstream. */
  corruptOnce: (offset: number) => void;
  /** Whether the armed corruption happened. */
  corrupted: () => boolean;
  close: () => Promise<void>;
}

export async function startTcpProxy(upstreamPort: number): Promise<TcpProxy> {
  let up = 0;
  let corruptAt: number | null = null;
  let didCorrupt = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    let seen = 0;
    client.on("data", (chunk: Buffer) => {
      up += chunk.length;
      if (corruptAt !== null && seen <= corruptAt && corruptAt < seen + chunk.length) {
        const copy = Buffer.from(chunk);
        copy[corruptAt - seen] = copy[corruptAt - seen]! ^ 0xff;
        corruptAt = null;
        didCorrupt = true;
        chunk = copy;
      }
      seen += chunk.length;
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on("drain", () => client.resume());
    upstream.on("data", (chunk: Buffer) => {
      if (!client.write(chunk)) upstream.pause();
    });
    client.on("drain", () => upstream.resume());
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    upstreamBytes: () => up,
    reset: () => {
      up = 0;
    },
    corruptOnce: (offset) => {
      corruptAt = offset;
      didCorrupt = false;
    },
    corrupted: () => didCorrupt,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}
