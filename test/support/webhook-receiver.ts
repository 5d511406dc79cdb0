/**
 * A real webhook receiver on loopback (node:http), and the verifiers exactly as docs/operations.md shows
 * them: the snippets are cut out of the page and run, so the documented code is the tested code.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const OPERATIONS_MD = resolve(import.meta.dirname, "../../docs/operations.md");

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** What the receiver answers a request with: a status, or `hang` to hold it without answering. */
export type Answer = number | "hang";

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Resolves once `n` requests arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (req: ReceivedRequest, index: number) => Answer,
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      const index = requests.push(r) - 1;
      const a = answer(r, index);
      if (a !== "hang") res.writeHead(a).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    async waitFor(n, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline)
          throw new Error(`receiver got ${requests.length} of ${n} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return requests.slice(0, n);
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** The fenced code block of docs/operations.md in `lang` that contains `marker`. */
export function documentedSnippet(lang: "js" | "python", marker: string): string {
  const doc = readFileSync(OPERATIONS_MD, "utf8");
  const blocks = [...doc.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map(
    (m) => m[1]!,
  );
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1)
    throw new Error(`docs/operations.md has ${found.length} ${lang} blocks with ${marker}`);
  return found[0]!;
}

export type Verifier = (
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: Buffer | string,
  now?: number,
) => { id: string; type: string; data: Record<string, unknown> };

/** `verifyStarForgeWebhook` exactly as documented, loaded as the module a reader would save. */
export async function documentedVerifier(): Promise<Verifier> {
  const dir = mkdtempSync(join(tmpdir(), "sf-verify-"));
  const file = join(dir, "verify-starforge-webhook.mjs");
  writeFileSync(file, documentedSnippet("js", "export function verifyStarForgeWebhook"));
  try {
    const mod = (await import(pathToFileURL(file).href)) as { verifyStarForgeWebhook: Verifier };
    return mod.verifyStarForgeWebhook;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the documented Python `verify_starforge_webhook` on a received request with python3; returns the
 * event's id, or the error it raised.
 */
export function verifyWithPython(secret: string, req: ReceivedRequest): { id?: string; error?: string } {
  const harness = `${documentedSnippet("python", "def verify_starforge_webhook")}
import base64, sys
class Headers(dict):
    def get(self, k, d=None):
        return next((v for kk, v in self.items() if kk.lower() == k.lower()), d)
inp = json.loads(sys.stdin.read())
try:
    ev = verify_starforge_webhook(inp["secret"], Headers(inp["headers"]), base64.b64decode(inp["body"]))
    print(json.dumps({"id": ev["id"]}))
except ValueError as e:
    print(json.dumps({"error": str(e)}))
`;
  const r = spawnSync("python3", ["-c", harness], {
    input: JSON.stringify({ secret, headers: req.headers, body: req.body.toString("base64") }),
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { id?: string; error?: string };
}
