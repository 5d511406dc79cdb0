/**
 * How code outside an object calls it: a stub typed by the class's own async methods. Workers' RPC
 * typing maps every return type to its serialisable form and cannot follow the recursive JSON values or
 * loose views some methods return ("excessively deep", or `never`); every value they return is plain
 * JSON, which RPC carries unchanged, so the methods' own types are the truth.
 */
export type Rpc<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => Promise<unknown> ? K : never]: T[K];
};

/** The part of a namespace binding a stub needs (any object's namespace, typed or not, has it). */
export interface Namespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): unknown;
}

/** Object ids by name, per namespace: an id is a pure function of the name (a keyed hash worth keeping). */
const ids = new WeakMap<Namespace, Map<string, DurableObjectId>>();
const MAX_IDS = 10_000;

/** The stub of the object named `name` in `ns`, typed as the class `T`. */
export function stubOf<T>(ns: Namespace, name: string): Rpc<T> {
  let known = ids.get(ns);
  if (!known) {
    known = new Map();
    ids.set(ns, known);
  }
  let id = known.get(name);
  if (!id) {
    if (known.size >= MAX_IDS) known.clear();
    id = ns.idFromName(name);
    known.set(name, id);
  }
  return ns.get(id) as Rpc<T>;
}
