/**
 * Priority classes as admins set them (D1 `priority_classes`, read only by admin routes and when a fleet
 * is created) and their push to every Fleet DO, which decides with the whole list.
 */
import { effectiveClasses, PriorityClass } from "../../contract/priority-classes.js";
import { type Db, schema } from "../../d1/client.js";
import { fleetStub } from "../../durable-objects/fleet/stub.js";
import type { AppEnv } from "../env.js";
import { fleetIds, pushToFleets } from "./fleets.service.js";

/** Every class: the built-ins as changed, then the custom ones, highest value first. */
export async function readPriorityClasses(d: Db): Promise<PriorityClass[]> {
  const rows = await d.select().from(schema.priorityClasses).all();
  return effectiveClasses(rows.map((r) => PriorityClass.parse(JSON.parse(r.body))));
}

/**
 * Hands the list to every fleet (or to the one given): their next decision uses it. Idempotent, so an
 * admin whose change answered 503 here (a fleet did not take it) repeats it.
 */
export async function pushPriorityClasses(env: AppEnv, classes: PriorityClass[], fleetId?: string) {
  const ids = fleetId ? [fleetId] : await fleetIds(env);
  await pushToFleets(ids, "priority classes", (id) => fleetStub(env, id).setPriorityClasses(classes));
}
