/**
 * Job secrets on the wire (docs/security.md "Secrets"): what `sf secret set` sends and what `sf secret
 * ls` shows. A value goes in and never comes out of any read route.
 */
import { z } from "zod";
import { SecretName } from "./jobspec.schema.js";

/** Shorter values could not be masked in a job's logs without masking ordinary text too. */
export const SECRET_MIN_CHARS = 8;
export const SECRET_MAX_BYTES = 32 * 1024;

export const SetSecretBody = z.object({
  value: z
    .string()
    .min(
      SECRET_MIN_CHARS,
      `a secret value has at least ${SECRET_MIN_CHARS} characters (shorter ones cannot be masked in logs)`,
    )
    .refine(
      (v) => new TextEncoder().encode(v).length <= SECRET_MAX_BYTES,
      `a secret value is at most ${SECRET_MAX_BYTES} bytes`,
    )
    .refine(
      (v) => !v.includes("\0"),
      "a secret value cannot contain a NUL character (it becomes an environment variable)",
    )
    .describe("The value: 8 characters to 32 KiB, no NUL; stored sealed, and no route ever returns it"),
});
export type SetSecretBody = z.infer<typeof SetSecretBody>;

export const SecretView = z.object({
  name: SecretName.describe("The secret's name, the environment variable a job that names it gets"),
  /** `user`: the caller's own; `fleet`: set by an admin for every job of that fleet that names it. */
  scope: z
    .enum(["user", "fleet"])
    .describe(
      "`user`: a user's own; `fleet`: a fleet's, for its jobs that name it and have none of their own",
    ),
  fleet: z.string().nullable().describe("The fleet's name for a `fleet` secret; null for a `user` one"),
  set_by: z.string().describe("The name of the user who last set its value"),
  created_at: z.string().describe("When it was first set, ISO 8601 UTC"),
  updated_at: z.string().describe("When its value was last set, ISO 8601 UTC"),
});
export type SecretView = z.infer<typeof SecretView>;
