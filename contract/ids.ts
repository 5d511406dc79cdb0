import { ulid } from "ulid";

export type IdPrefix =
  | "usr"
  | "tok"
  | "job"
  | "run"
  | "flt"
  | "nod"
  | "cmd"
  | "frm"
  | "wh"
  | "evt"
  | "upl"
  | "mov";

/**
 * The ids' randomness, from the platform's CSPRNG 256 bytes at a time (ulid's default asks it for one byte
 * per character, and looks the generator up again for every id). Filled on first use: workerd allows no
 * random values at a module's top level.
 */
const pool = new Uint8Array(256);
let used = pool.length;
function pooledRandom(): number {
  if (used >= pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  return (pool[used++] as number) / 256;
}

/** Time-sortable ids with a type prefix: `job_01j…`. Sorting by id sorts by creation time. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid(undefined, pooledRandom).toLowerCase()}`;
}

let lastMs = Number.NaN;
let lastIso = "";

/** `ms` as an ISO 8601 UTC string (the last one is remembered: a request's clock stands still in workerd). */
export function nowIso(ms: number = Date.now()): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
