/**
 * The fuzz suites' model, with nothing of workerd in it (no `cloudflare:test`), so the workerd fuzz and the
 * local-stack fuzz from Node (test/node/local-stack-fuzz.test.ts) share it: who sends a request, the
 * fixture every seed names, ids of every kind, and the rules every answer must pass.
 */
import { expect } from "vitest";
import { ERROR_CODES } from "../../contract/errors.js";
import type { JobSpecInput } from "../../contract/jobspec.schema.js";

/** Who sends a request: a role's token, an agent credential, a run's ingest token, nobody, or a bad form. */
export const IDENTITIES = ["admin", "operator", "viewer", "none", "agent", "ingest", "ingest-other"] as const;
export type Who = (typeof IDENTITIES)[number];
export type Identities = Record<Exclude<Who, "none">, string>;

/**
 * What the fuzz works on, built through the real API (test/worker/fuzz-fixture.ts in workerd, the
 * local-stack fuzz over HTTP): users of each role, a fleet with a node and two dispatched jobs (their runs'
 * ingest tokens), a second fleet for the admin routes to change, an agent credential, a webhook with a
 * delivery, a blob, the capsule, an enrollment token and a device code.
 */
export interface Fixture {
  ids: Identities;
  main: { id: string; name: string };
  side: { id: string; name: string };
  sideNode: string;
  spec: JobSpecInput;
  /** A python/charlm job: typed hyperparameters, no image. */
  charlm: JobSpecInput;
  /** A dispatched job of the operator on `main`, with its run: read back and ingested into. */
  job: { id: string; runId: string; epoch: number };
  /** A second dispatched job, whose token is the "other run's" ingest token; job actions target it. */
  victim: { id: string; runId: string };
  tokenId: string;
  webhookId: string;
  deliveryId: string;
  blob: { digest: string; content: string };
  capsule: Record<string, string>;
  enrollToken: string;
  device: { code: string; userCode: string };
}

/** A webhook endpoint on a closed loopback port: deliveries fail at once and nothing leaves the machine. */
export const CLOSED = "http://127.0.0.1:9/hook";

/** Ids of every kind, to put where a route expects another kind. */
export function idsOfEveryKind(f: Fixture): string[] {
  return [
    f.main.id,
    f.main.name,
    f.side.name,
    f.job.id,
    f.job.runId,
    f.victim.id,
    f.sideNode,
    f.tokenId,
    f.webhookId,
    f.deliveryId,
    encodeURIComponent(f.blob.digest),
    "fz-target",
    "fz-viewer",
    "custom",
  ];
}

/** One fixed seed per property name, so every run generates the same requests and a failure replays. */
export function seedOf(name: string): number {
  let h = 0x5f0f;
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

/** A stack frame (`at fn (file:1:2)`), a source location or a server path must never reach a client. */
export const LEAK = /\bat \S+ \(|\bat (?:file|async)\b|\.(?:ts|js|mjs):\d+|file:\/\/|\/work\/|node_modules/;

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/**
 * What every answer must be: never a 5xx; a refusal is `{error: {code, message}}` with a known code whose
 * status is the HTTP status, and names no file, stack frame or server path. HEAD answers have no body;
 * HTML pages (`html`) answer a person, not a client, so only the status rule applies to them.
 */
export function expectCodedAnswer(label: string, method: string, res: Answer, html = false): void {
  const shown = `${label} → ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, shown).toBeLessThan(500);
  if (res.status < 400 || method === "HEAD" || html) return;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    expect.fail(`${shown}: a refusal that is not JSON`);
  }
  expect(body, shown).toEqual({
    error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  });
  const code = (body as { error: { code: string } }).error.code;
  expect(Object.keys(ERROR_CODES), shown).toContain(code);
  expect(res.status, shown).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES]);
  expect(res.text, shown).not.toMatch(LEAK);
}
