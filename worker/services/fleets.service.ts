import { eq, or } from "drizzle-orm";
import { FleetNetwork, TimeWindow } from "../../contract/api.schema.js";
import { FleetDiagnosis } from "../../contract/diagnosis-policy.js";
import type { FleetConfig } from "../../contract/fleet.schema.js";
import { type Db, db, schema } from "../../d1/client.js";
import { fleetStub } from "../../durable-objects/fleet/stub.js";
import type { AppEnv } from "../env.js";
import { AppError } from "../errors.js";
import { errorFields, log } from "./log.js";

export type FleetRow = typeof schema.fleets.$inferSelect;

export { fleetStub };

/** The id of every fleet. */
export async function fleetIds(env: AppEnv): Promise<string[]> {
  const rows = await db(env.DB).select({ id: schema.fleets.id }).from(schema.fleets).all();
  return rows.map((r) => r.id);
}

/**
 * Hands a change to every fleet given (their next decision uses it), all at once. A fleet that does not
 * take it (its Durable Object failed or is being reset) fails the request with 503 UNAVAILABLE naming
 * it: what was saved stays saved, and every push is idempotent, so repeating the request brings the
 * fleets up to date. The others have it already.
 */
export async function pushToFleets(
  ids: readonly string[],
  what: string,
  push: (fleetId: string) => Promise<unknown>,
): Promise<void> {
  const settled = await Promise.allSettled(ids.map((id) => push(id)));
  const failed = ids.filter((_, i) => settled[i]!.status === "rejected");
  if (failed.length === 0) return;
  const why = (settled.find((r) => r.status === "rejected") as PromiseRejectedResult).reason;
  log("error", `pushing the ${what} to fleets failed`, { fleets: failed, ...errorFields(why) });
  throw new AppError(
    "UNAVAILABLE",
    `fleet${failed.length > 1 ? "s" : ""} ${failed.join(", ")} did not take the ${what}; the change is saved: repeat the request to hand it over`,
    { fleets: failed },
  );
}

/** Finds a fleet by name or id. */
export async function fleetByRef(d: Db, ref: string): Promise<FleetRow> {
  const f = await d
    .select()
    .from(schema.fleets)
    .where(or(eq(schema.fleets.name, ref), eq(schema.fleets.id, ref)))
    .get();
  if (!f) throw new AppError("FLEET_NOT_FOUND", `no fleet named ${ref}`);
  return f;
}

export function fleetConfig(f: FleetRow): FleetConfig {
  return {
    id: f.id,
    name: f.name,
    kind: f.kind,
    windows: TimeWindow.array().parse(JSON.parse(f.windows)),
    draining: f.draining,
    drainNote: f.drainNote,
    network: FleetNetwork.parse(JSON.parse(f.network)),
    imageAllowlist: JSON.parse(f.imageAllowlist) as string[],
    hfUnavailable: f.hfUnavailable,
    preemptionsPerMinute: f.preemptionsPerMinute,
    diagnosis: FleetDiagnosis.parse(JSON.parse(f.diagnosis)),
  };
}

export function fleetView(f: FleetRow) {
  return {
    id: f.id,
    name: f.name,
    kind: f.kind,
    description: f.description,
    image_allowlist: JSON.parse(f.imageAllowlist) as string[],
    windows: JSON.parse(f.windows) as unknown[],
    draining: f.draining,
    drain_note: f.drainNote,
    network: FleetNetwork.parse(JSON.parse(f.network)),
    hf_unavailable: f.hfUnavailable,
    preemptions_per_minute: f.preemptionsPerMinute,
    labels: JSON.parse(f.labels) as Record<string, string>,
    diagnosis: FleetDiagnosis.parse(JSON.parse(f.diagnosis)),
    created_at: f.createdAt,
  };
}
