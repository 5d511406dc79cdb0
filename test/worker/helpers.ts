/** Shared helpers for workerd tests: a tiny API client and fixtures built through the real HTTP API. */
import { SELF } from "cloudflare:test";
import { expect, vi } from "vitest";
import type { Catalog } from "../../contract/catalog.schema.js";
import { digestOf } from "../../contract/digest.js";
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import { createHubStub, type HubRepo, type HubStub } from "../support/hf-hub-stub.js";
import { testEnv } from "./test-env.js";

export const ADMIN = testEnv.SF_BOOTSTRAP_ADMIN_TOKEN!;

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

// biome-ignore lint/suspicious/noExplicitAny: test responses are read loosely by design
export async function api<T = any>(
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const h: Record<string, string> = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  if (body !== undefined) h["content-type"] = "application/json";
  const res = await SELF.fetch(`http://sf.test${path}`, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
}

export async function createUser(
  name: string,
  role: "viewer" | "operator" | "admin" = "operator",
): Promise<string> {
  const r = await api(ADMIN, "POST", "/v1/users", { name, role });
  if (r.status !== 201) throw new Error(`createUser ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.token as string;
}

export async function createFleet(
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; name: string }> {
  const r = await api(ADMIN, "POST", "/v1/fleets", {
    name,
    kind: "docker",
    image_allowlist: ["ghcr.io/acme/*"],
    ...extra,
  });
  if (r.status !== 201) throw new Error(`createFleet ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.fleet;
}

export async function registerNode(fleet: string, name: string, gpus: number, series = "h200") {
  const r = await api(ADMIN, "POST", `/v1/fleets/${fleet}/nodes`, { name, series, gpus });
  if (r.status !== 201) throw new Error(`registerNode ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.node;
}

const recipeDigests = new Map<string, string>();

export async function recipeDigest(name: string, version = "1.0.0"): Promise<string> {
  const key = `${name}@${version}`;
  let d = recipeDigests.get(key);
  if (!d) {
    const r = await api<Catalog>(ADMIN, "GET", "/v1/catalog");
    const v = r.body.recipes.find((x) => x.name === name)?.versions.find((x) => x.version === version);
    if (!v) throw new Error(`recipe ${key} not in catalog`);
    d = v.digest as string;
    recipeDigests.set(key, d);
  }
  return d;
}

const CONFIG_SHA = `sha256:${"c".repeat(64)}`;

/** A valid custom job: `gpus` on one h200 node (or full nodes when a multiple of 8). */
export async function customSpec(
  opts: {
    fleet: string;
    gpus?: number;
    name?: string;
    image?: string;
    pools?: JobSpecInput["resources"]["pools"];
  } & Partial<Pick<JobSpecInput, "model" | "data" | "hyperparams" | "lifecycle">>,
): Promise<JobSpecInput> {
  const gpus = opts.gpus ?? 1;
  const pools = opts.pools ?? [
    gpus <= 8
      ? { name: "default", profile: "h200", series: "h200", nodes: 1, gpus_per_node: gpus }
      : { name: "default", profile: "h200", series: "h200", nodes: gpus / 8, gpus_per_node: 8 },
  ];
  return {
    api_version: "starforge.dev/v1",
    metadata: { name: opts.name ?? "exp", labels: {} },
    recipe: { name: "custom/custom", version: "1.0.0", digest: await recipeDigest("custom/custom") },
    framework: {
      kind: "custom",
      version: "1",
      runtime_id: "bash",
      image: opts.image ?? "ghcr.io/acme/train:1.0",
    },
    source: { workspace: null, experiment_dir: "." },
    model: opts.model ?? {},
    data: opts.data ?? {},
    resources: { fleet: opts.fleet, pools, roles: {} },
    hyperparams: opts.hyperparams ?? {},
    lifecycle: opts.lifecycle ?? { max_retries: 2, retry_on_user_failure: false },
    provenance: { git_commit: "abc1234", git_dirty: false, config_sha: CONFIG_SHA },
  };
}

/** Routes the Worker's requests to the configured hub endpoint into an in-isolate stub of the Hub API. */
export function installHubStub(repos: HubRepo[]): HubStub {
  const stub = createHubStub(repos);
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input, init);
    if (new URL(req.url).origin === new URL(testEnv.SF_HF_ENDPOINT).origin) return stub.fetch(req);
    return real(input, init);
  });
  return stub;
}

/**
 * The convergence point: every fleet has written what it holds to D1 (a submit's 201 comes before that;
 * docs/architecture.md "Submit"). Tests that read D1 directly wait for it first.
 */
export async function converged(): Promise<void> {
  const r = await api(ADMIN, "GET", "/v1/fleets");
  for (const f of r.body.fleets as Array<{ id: string }>) {
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(f.id)) as unknown as {
      projected(): Promise<boolean>;
    };
    if (!(await stub.projected())) throw new Error(`fleet ${f.id} could not write to D1`);
  }
}

/** Reads D1 directly (at the convergence point), to prove what a rejected request did not leave behind. */
export async function countRows(table: string): Promise<number> {
  await converged();
  return rowsIn(table);
}

async function rowsIn(table: string): Promise<number> {
  const r = await testEnv.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>();
  return r?.n ?? 0;
}

/** Tables a submit writes to in D1; a rejected submit must leave each count unchanged. */
export const LEDGER_TABLES = ["jobs", "job_events", "runs", "admissions", "blob_refs"] as const;

export interface SubmitFootprint {
  rows: Record<(typeof LEDGER_TABLES)[number], number>;
  queued: number;
  queue: unknown[];
}

/** Everything a submit can leave behind: ledger rows in D1 plus the fleet DO's queue. */
export async function submitFootprint(fleet: string): Promise<SubmitFootprint> {
  const rows = {} as SubmitFootprint["rows"];
  await converged();
  for (const t of LEDGER_TABLES) rows[t] = await rowsIn(t);
  const f = await api(ADMIN, "GET", `/v1/fleets/${fleet}`);
  if (f.status !== 200) throw new Error(`submitFootprint ${fleet}: ${f.status} ${JSON.stringify(f.body)}`);
  return { rows, queued: f.body.totals.queued as number, queue: f.body.queue as unknown[] };
}

/** Uploads `content` as a blob through the API and returns its digest. */
export async function putBlob(token: string, content: string): Promise<string> {
  const digest = await digestOf(content);
  const res = await SELF.fetch(`http://sf.test/v1/blobs/${digest}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}` },
    body: content,
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`putBlob ${digest}: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
  return digest;
}

/** A stack frame, a source location or a server path must never reach a client (defined in fuzz-model.ts). */
export { LEAK } from "./fuzz-model.js";

/** Mints a one-shot enrollment token for `fleet`, enrolls an agent with it and returns its credential. */
export async function enrollAgent(fleet: string): Promise<string> {
  const minted = await api(ADMIN, "POST", `/v1/fleets/${fleet}/enrollment-tokens`, { ttl_minutes: 5 });
  if (minted.status !== 201) throw new Error(`enrollment token ${fleet}: ${minted.status}`);
  const enrolled = await api(null, "POST", "/v1/agents/enroll", { token: minted.body.token });
  if (enrolled.status !== 201)
    throw new Error(`enroll ${fleet}: ${enrolled.status} ${JSON.stringify(enrolled.body)}`);
  return enrolled.body.credential as string;
}

/**
 * Runs a submit that must be rejected with `status`/`code` and proves it left nothing behind: no ledger
 * rows in D1 and no change to `fleet`'s queue in its Durable Object.
 */
export async function expectRejectedWithoutResidue<T extends { error?: { code: string } }>(
  fleet: string,
  submit: () => Promise<ApiResponse<T>>,
  status: number,
  code: string,
): Promise<ApiResponse<T>> {
  const before = await submitFootprint(fleet);
  const res = await submit();
  expect({ status: res.status, code: res.body.error?.code }, JSON.stringify(res.body)).toEqual({
    status,
    code,
  });
  expect(await submitFootprint(fleet)).toEqual(before);
  return res;
}
