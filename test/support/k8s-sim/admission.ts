/**
 * Admission of what clients write: RayJobs decoded and validated against the CRD schema (strict
 * decoding, pruning, 422 Invalid) and Secrets' write-only stringData.
 */
import { validateRayJob } from "../crd-schema.js";
import { badRequest, failure } from "./errors.js";
import type { Json, KubeObject } from "./resources.js";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

const UNKNOWN_FIELD = ": unknown field";

/**
 * A RayJob as the API server decodes and validates it: unknown fields are a strict decoding error
 * (400) under fieldValidation=Strict, else pruned (with a Warning under Warn, the server's default);
 * schema problems are 422 Invalid. Returns the warnings.
 */
export function admitRayJob(obj: KubeObject, validation: FieldValidation): string[] {
  const problems = validateRayJob(obj);
  const unknown = problems
    .filter((p) => p.endsWith(UNKNOWN_FIELD))
    .map((p) => p.slice(0, -UNKNOWN_FIELD.length));
  const invalid = problems.filter((p) => !p.endsWith(UNKNOWN_FIELD));
  const named = unknown.map((f) => `unknown field "${f}"`);
  if (unknown.length && validation === "Strict") {
    throw badRequest(
      `RayJob in version "v1" cannot be handled as a RayJob: strict decoding error: ${named.join(", ")}`,
    );
  }
  if (invalid.length) {
    const list = invalid.length === 1 ? invalid[0] : `[${invalid.join(", ")}]`;
    const causes = invalid.map((p) => ({ reason: "FieldValueInvalid", message: p, field: p.split(": ")[0] }));
    const details = { name: obj.metadata.name, group: "ray.io", kind: "RayJob", causes };
    throw failure(422, "Invalid", `RayJob.ray.io "${obj.metadata.name}" is invalid: ${list}`, details);
  }
  for (const field of unknown) prune(obj, field);
  return validation === "Warn" ? named : [];
}

/** Deletes `spec.a[0].b` (a Kubernetes field path) from `obj`. */
function prune(obj: KubeObject, path: string): void {
  const parts = [...path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)].map((m) => m[1] ?? m[2] ?? "");
  let node: unknown = obj;
  for (const p of parts.slice(0, -1)) node = node && typeof node === "object" ? (node as Json)[p] : undefined;
  if (node && typeof node === "object") delete (node as Json)[parts.at(-1) ?? ""];
}

/** Secrets: `stringData` is write-only, merged into `data` (base64). */
export function admitSecret(obj: KubeObject): void {
  const stringData = (obj.stringData ?? {}) as Record<string, string>;
  const data = { ...((obj.data ?? {}) as Record<string, string>) };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v).toString("base64");
  delete obj.stringData;
  obj.data = data;
  obj.type ??= "Opaque";
}
