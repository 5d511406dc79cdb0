/**
 * The fleets as placement reads them (contract/placement.ts): each fleet's row with the capacity summary
 * its Fleet DO last published (`fleet_capacity`). The Worker places submits with it; a Fleet DO reads
 * its waiting jobs' other candidates with it when it looks for a fleet that starts them sooner.
 */
import { asc, eq, inArray } from "drizzle-orm";
import { type Db, schema } from "./client.js";

export type PlacementFleet = typeof schema.fleets.$inferSelect & { capacity: string | null };

/** Every fleet (or those named), by name, with its published capacity (null: none yet). */
export async function placementRows(d: Db, names?: readonly string[]): Promise<PlacementFleet[]> {
  const q = d
    .select({ fleet: schema.fleets, capacity: schema.fleetCapacity.capacity })
    .from(schema.fleets)
    .leftJoin(schema.fleetCapacity, eq(schema.fleetCapacity.fleetId, schema.fleets.id));
  const rows = await (names ? q.where(inArray(schema.fleets.name, [...names])) : q)
    .orderBy(asc(schema.fleets.name))
    .all();
  return rows.map((r) => ({ ...r.fleet, capacity: r.capacity }));
}
