/** Builds the JobSpec from what the earlier steps established, and checks it against the contract locally. */

import type { ParamValue } from "../../../contract/hyperparams.js";
import { JOB_API_VERSION, JobSpec, type JobSpecInput } from "../../../contract/jobspec.schema.js";
import { parseSelectorText } from "../../../contract/placement.js";
import type { Pool } from "../../../contract/profile-grammar.js";
import type { RecipeLock } from "../../../contract/recipe-lock.schema.js";
import { CliError, EXIT } from "../../errors.js";
import type { Experiment } from "../../project.js";

/** A job name the server accepts (`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`): lowercase, `_`→`-`, ≤ `max` chars. */
export function jobName(raw: string, max = 63): string {
  const cut = (s: string) => s.slice(0, max).replace(/-+$/, "").replace(/^-+/, "");
  const name = cut(
    raw
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/-{2,}/g, "-")
      .replace(/^-+/, ""),
  );
  return name || "job";
}

export interface SpecParts {
  exp: Experiment;
  project: string;
  lock: RecipeLock;
  name: string;
  image: string | undefined;
  /** One fleet, or several separated by commas (placed on the one that starts it soonest). */
  fleet: string | undefined;
  /** --fleet-selector: `KEY=VALUE,…` of fleet labels, or `any` (every fleet whose hardware fits). */
  fleetSelector?: string;
  pools: Pool[];
  roles: Record<string, string>;
  hyperparams: Record<string, ParamValue>;
  /** Secret names from --secret. */
  secrets?: string[];
  /** --priority-class: over config.yaml's lifecycle.priority_class. */
  priorityClass?: string;
  /** --team: the team it runs for (`resources.team`); absent: the submitter's primary team. */
  team?: string;
  workspace: string;
  provenance: { git_commit: string | null; git_dirty: boolean; config_sha: string };
  sweep?: { id: string; index: number; params: Record<string, ParamValue> };
}

/**
 * Where the job may run: `--fleet a` names one fleet, `--fleet a,b` several (the control plane places it
 * on the one that starts it soonest), `--fleet-selector site=eu` the fleets with those labels, `any` every
 * fleet. A selector and a fleet together are refused.
 */
export function placementOf(
  fleet: string | undefined,
  selector: string | undefined,
): Pick<JobSpecInput["resources"], "fleet" | "fleets" | "fleet_selector"> {
  if (selector !== undefined) {
    if (fleet) throw new CliError("give --fleet or --fleet-selector, not both", { exit: EXIT.USAGE });
    let labels: Record<string, string>;
    try {
      labels = selector.trim() === "any" ? {} : parseSelectorText(selector);
    } catch (err) {
      throw new CliError(`--fleet-selector: ${(err as Error).message} (e.g. site=eu,region=fra, or any)`, {
        exit: EXIT.USAGE,
      });
    }
    return { fleet_selector: { labels } };
  }
  if (!fleet) return {};
  const names = fleet
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  return names.length > 1 ? { fleets: names } : { fleet: names[0] ?? fleet };
}

export function buildSpec(p: SpecParts): JobSpec {
  const { exp, lock } = p;
  const lc =
    p.priorityClass === undefined
      ? exp.config.lifecycle
      : { ...exp.config.lifecycle, priority_class: p.priorityClass };
  const input: JobSpecInput = {
    api_version: JOB_API_VERSION,
    metadata: {
      name: p.name,
      experiment: exp.name,
      project: p.project,
      labels: {},
      ...(p.sweep ? { sweep: p.sweep } : {}),
    },
    recipe: { name: lock.recipe.name, version: lock.recipe.version, digest: lock.recipe.digest },
    framework: { ...lock.framework, image: p.image ?? exp.config.image ?? null },
    source: { workspace: p.workspace, experiment_dir: exp.relDir },
    model: { ...exp.config.model },
    data: { ...exp.config.data },
    resources: {
      ...placementOf(p.fleet, p.fleetSelector),
      ...(p.team ? { team: p.team } : {}),
      pools: p.pools,
      roles: p.roles,
    },
    hyperparams: p.hyperparams,
    secrets: [...new Set(p.secrets ?? [])],
    ...(lc ? { lifecycle: lc } : {}),
    provenance: p.provenance,
  };
  const r = JobSpec.safeParse(input);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new CliError(`the job spec is invalid: ${issues}`, {
      code: "INVALID_SPEC",
      exit: EXIT.REJECTED,
      hint: `check ${exp.relDir}/config.yaml`,
    });
  }
  return r.data;
}
