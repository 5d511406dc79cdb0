/** `sf admin profile ls|set|rm`. */
import type { Command } from "commander";
import { authedApi } from "../../context.js";
import { c, emit, info, table } from "../../output.js";

interface Profile {
  name: string;
  series: string;
  gpus_per_node: number;
  default_gpus: number;
  description: string;
}

const enc = encodeURIComponent;

export async function listProfiles(cmd: Command): Promise<void> {
  const { profiles } = await authedApi(cmd).get<{ profiles: Profile[] }>("/v1/profiles");
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
  const existing = (await api.get<{ profiles: Profile[] }>("/v1/profiles")).profiles.find(
    (p) => p.name === name,
  );
  const { profile } = await api.put<{ profile: Profile }>(`/v1/profiles/${enc(name)}`, {
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
  const r = await authedApi(cmd).delete<{ deleted: string }>(`/v1/profiles/${enc(name)}`);
  emit(r, () => info(`${c.green("✓")} deleted profile ${name}`));
}
