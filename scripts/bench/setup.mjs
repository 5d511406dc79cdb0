// What every control-plane benchmark starts with: a user "bench" with a token and a quota, and the JobSpec
// `sf submit` would send for python/charlm on one GPU of a fleet.
import { jsonClient } from "./latency.mjs";
import { closedLoop } from "./load.mjs";

/** Creates user "bench" (operator, with a token) with `quota`; returns { token, user }. */
export async function benchUser(api, adminToken, quota, name = "bench") {
  const user = await api(adminToken, "POST", "/v1/users", {
    name,
    role: "operator",
    with_token: true,
  });
  await api(adminToken, "PUT", `/v1/users/${name}/quota`, quota);
  const catalog = await api(user.token, "GET", "/v1/catalog");
  user.charlmDigest = catalog.recipes.find((r) => r.name === "python/charlm").versions[0].digest;
  return user;
}

/** A python/charlm JobSpec for one GPU of `fleet`. */
export function charlmSpec(digest, fleet, hyperparams = {}) {
  return {
    api_version: "starforge.dev/v1",
    metadata: { name: "bench", labels: {} },
    recipe: { name: "python/charlm", version: "1.0.0", digest },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib" },
    source: { workspace: null, experiment_dir: "." },
    resources: {
      fleet,
      pools: [{ name: "default", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 1 }],
      roles: {},
    },
    hyperparams,
    provenance: { git_commit: "0123abcd", git_dirty: false, config_sha: `sha256:${"e".repeat(64)}` },
  };
}

/** The request `sf submit` makes: POST /v1/jobs with `body`, as `token`, with an Idempotency-Key if given. */
export function submitRequest(token, body, key = null) {
  return {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...(key ? { "idempotency-key": key } : {}),
    },
    body,
  };
}

/** A process fleet `name` with two admin-registered 8-GPU H200 nodes (`<name>-n1`, `<name>-n2`). */
export async function benchFleet(api, adminToken, name) {
  await api(adminToken, "POST", "/v1/fleets", { name, kind: "process" });
  for (const n of ["n1", "n2"])
    await api(adminToken, "POST", `/v1/fleets/${name}/nodes`, {
      name: `${name}-${n}`,
      series: "h200",
      gpus: 8,
    });
}

/**
 * The user "bench" and a process fleet `name` with two admin-registered 8-GPU nodes on workerd `w`; returns
 * `submits(total)`: `total` keyed submits from `clients` closed-loop clients (the diagnostics' common start).
 */
export async function benchSubmitter(w, name, clients) {
  const api = jsonClient(w.url);
  const user = await benchUser(api, w.adminToken, { max_gpus: 16, max_jobs: 100_000, daily_gpu_hours: 1e6 });
  await benchFleet(api, w.adminToken, name);
  const body = JSON.stringify(charlmSpec(user.charlmDigest, name));
  let keys = 0;
  return (total) =>
    closedLoop({
      url: `${w.url}/v1/jobs`,
      concurrency: clients,
      total,
      expect: 201,
      make: () => submitRequest(user.token, body, `${name}-${++keys}`),
    });
}
