/** `sf admin profile ls|set|rm`. */
import type { Command } from "commander";
import { DeletedProfile, OneProfile, ProfileList } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { c, emit, info, table } from "../../output.js";

export async function listProfiles(cmd: Command): Promise<void> {
  const { profiles } = await authedApi(cmd).get(route("/v1/profiles"), ProfileList);
  emit({ profiles }, () =>
    table(
      profiles.map((p) => ({
        name: p.name,
        series: p.series,
        "gpus/node": p.gpus_per_node,
        default: p.default_gpus,
        description: p.description || null,
      })),
      ["name", "series", "gpus/node", "default", "description"],
    ),
  );
}

export async function setProfile(
  cmd: Command,
  name: string,
  o: { series: string; gpusPerNode: number; defaultGpus?: number; description?: string },
): Promise<void> {
  const api = authedApi(cmd);
  // Omitted optional fields keep what an existing profile has, so `set` can change one thing at a time.
  const existing = (await api.get(route("/v1/profiles"), ProfileList)).profiles.find((p) => p.name === name);
  const { profile } = await api.put(route("/v1/profiles/{name}", { name }), OneProfile, {
    series: o.series,
    gpus_per_node: o.gpusPerNode,
    default_gpus: o.defaultGpus ?? existing?.default_gpus ?? 1,
    description: o.description ?? existing?.description ?? "",
  });
  emit({ profile }, () =>
    info(
      `${c.green("✓")} ${existing ? "updated" : "created"} profile ${c.bold(profile.name)}: ${profile.series}, ` +
        `${profile.gpus_per_node} GPUs per node, ${profile.default_gpus} by default`,
    ),
  );
}

export async function removeProfile(cmd: Command, name: string): Promise<void> {
  const r = await authedApi(cmd).delete(route("/v1/profiles/{name}", { name }), DeletedProfile);
  emit(r, () => info(`${c.green("✓")} deleted profile ${name}`));
}
