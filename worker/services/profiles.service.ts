/** The hardware registry (profiles) as admission and the routes read it. */
import { asc } from "drizzle-orm";
import type { ProfileEntry } from "../../contract/profile-grammar.js";
import { type Db, schema } from "../../d1/client.js";

export async function readProfiles(d: Db): Promise<ProfileEntry[]> {
  const rows = await d.select().from(schema.profiles).orderBy(asc(schema.profiles.name)).all();
  return rows.map((r) => ({
    name: r.name,
    series: r.series,
    gpus_per_node: r.gpusPerNode,
    default_gpus: r.defaultGpus,
    description: r.description,
  }));
}
