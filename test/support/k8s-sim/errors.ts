/**
 * Status errors: the Failure Status the API server answers a refused request with, and the
 * constructors for the reasons it uses (NotFound, AlreadyExists, Conflict, BadRequest).
 */
import { type Json, qualified, type ResourceDef } from "./resources.js";

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Json;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: Json;
  code?: number;
}

/** A request the API server refuses: carries the Status it answers with. */
export class KubeError extends Error {
  constructor(readonly status: Status & { code: number }) {
    super(status.message);
  }
}

export function failure(code: number, reason: string, message: string, details?: Json): KubeError {
  const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure" } as const;
  return new KubeError({ ...status, message, reason, ...(details ? { details } : {}), code });
}

export function detailsOf(d: ResourceDef, name?: string): Json {
  return { ...(name ? { name } : {}), ...(d.group ? { group: d.group } : {}), kind: d.name };
}

export const notFound = (d: ResourceDef, name: string) =>
  failure(404, "NotFound", `${qualified(d)} "${name}" not found`, detailsOf(d, name));
export const alreadyExists = (d: ResourceDef, name: string) =>
  failure(409, "AlreadyExists", `${qualified(d)} "${name}" already exists`, detailsOf(d, name));
export const conflict = (d: ResourceDef, name: string, why: string) =>
  failure(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(d)} "${name}": ${why}`,
    detailsOf(d, name),
  );
export const badRequest = (message: string) => failure(400, "BadRequest", message);
export const noSuchResource = () =>
  failure(404, "NotFound", "the server could not find the requested resource", {});
