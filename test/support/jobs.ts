/** JobSpecs and polling for tier-3/4 tests, built the way `sf submit` builds them. */
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import { type ControlPlane, call } from "./control-plane.js";

export async function recipeDigest(
  cp: ControlPlane,
  token: string,
  name: string,
  version = "1.0.0",
): Promise<string> {
  const r = await call(cp, token, "GET", "/v1/catalog");
  const recipes = r.body.recipes as Array<{
    name: string;
    versions: Array<{ version: string; digest: string }>;
  }>;
  const v = recipes.find((x) => x.name === name)?.versions.find((x) => x.version === version);
  if (!v) throw new Error(`${name}@${version} is not in the catalog`);
  return v.digest;
}

export function baseSpec(o: {
  name: string;
  fleet: string;
  recipe: { name: string; version: string; digest: string };
  framework: JobSpecInput["framework"];
  workspace?: string | null;
  experimentDir?: string;
  gpus?: number;
  hyperparams?: Record<string, string | number | boolean>;
}): JobSpecInput {
  return {
    api_version: "starforge.dev/v1",
    metadata: { name: o.name, labels: {} },
    recipe: o.recipe,
    framework: o.framework,
    source: { workspace: o.workspace ?? null, experiment_dir: o.experimentDir ?? "." },
    resources: {
      fleet: o.fleet,
      pools: [{ name: "default", profile: "h200", series: "h200", nodes: 1, gpus_per_node: o.gpus ?? 1 }],
      roles: {},
    },
    hyperparams: o.hyperparams ?? {},
    provenance: { git_commit: "0123abcd", git_dirty: false, config_sha: `sha256:${"e".repeat(64)}` },
  };
}

export interface JobState {
  job: { id: string; status: string; current_run_id: string | null };
  runs: Array<{
    id: string;
    status: string;
    exit_code: number | null;
    reason: string | null;
    attempt: number;
    /** It ran on GPUs borrowed beyond its team's guarantee. */
    borrowed?: boolean;
  }>;
  events: Array<{ from: string | null; to: string; edge: string; detail: Record<string, unknown> }>;
}

export async function jobState(cp: ControlPlane, token: string, id: string): Promise<JobState> {
  return (await call(cp, token, "GET", `/v1/jobs/${id}`)).body as unknown as JobState;
}

/** Polls until the job reaches one of `statuses` (or fails the test after `timeoutMs`). */
export async function waitForStatus(
  cp: ControlPlane,
  token: string,
  id: string,
  statuses: string[],
  timeoutMs = 120_000,
): Promise<JobState> {
  const deadline = Date.now() + timeoutMs;
  let last: JobState | null = null;
  while (Date.now() < deadline) {
    last = await jobState(cp, token, id);
    if (statuses.includes(last.job.status)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `job ${id} did not reach ${statuses.join("/")} in ${timeoutMs} ms; last: ${JSON.stringify(last)}`,
  );
}
