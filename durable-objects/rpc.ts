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

/** The stub of the object named `name` in `ns`, typed as the class `T`. */
export function stubOf<T>(ns: Namespace, name: string): Rpc<T> {
  return ns.get(ns.idFromName(name)) as Rpc<T>;
}
