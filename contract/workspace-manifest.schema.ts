/** A packed workspace: one manifest blob naming every file by digest, so unchanged files upload once. */
import { z } from "zod";
import { Digest } from "./digest.js";

export const MAX_MANIFEST_FILES = 20_000;

export const WorkspaceManifest = z.object({
  manifest_version: z.literal(1),
  files: z
    .array(
      z.object({
        path: z
          .string()
          .min(1)
          .max(1024)
          .refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "relative path without .."),
        digest: Digest,
        size: z.number().int().min(0),
        mode: z.number().int().min(0).max(0o777).default(0o644),
      }),
    )
    .max(MAX_MANIFEST_FILES),
});
export type WorkspaceManifest = z.infer<typeof WorkspaceManifest>;
