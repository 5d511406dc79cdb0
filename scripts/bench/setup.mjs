// What every control-plane benchmark starts with: a user "bench" with a token and a quota, and the JobSpec
// `sf submit` would send for python/charlm on one GPU of a fleet.

/** Creates user "bench" (operator, with a token) with `quota`; returns { token, user }. */
export async function benchUser(api, adminToken, quota) {
  const user = await api(adminToken, "POST", "/v1/users", {
    name: "bench",
    role: "operator",
    with_token: true,
  });
  await api(adminToken, "PUT", "/v1/users/bench/quota", quota);
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
