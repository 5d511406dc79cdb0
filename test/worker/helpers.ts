/** Shared helpers for workerd tests: a tiny API client and fixtures built through the real HTTP API. */
import { SELF } from "cloudflare:test";
import { vi } from "vitest";
import type { Catalog } from "../../contract/catalog.schema.js";
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

/** Reads D1 directly, to prove what a rejected request did not leave behind. */
export async function countRows(table: string): Promise<number> {
  const r = await testEnv.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>();
  return r?.n ?? 0;
}
