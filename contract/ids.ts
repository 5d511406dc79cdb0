import { ulid } from "ulid";

export type IdPrefix = "usr" | "tok" | "job" | "run" | "flt" | "nod" | "cmd" | "frm" | "wh" | "evt" | "upl";

/** Time-sortable ids with a type prefix: `job_01j…`. Sorting by id sorts by creation time. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

export function nowIso(ms: number = Date.now()): string {
  return new Date(ms).toISOString();
}
