/**
 * The job capsule current on this control plane: the digests of bootstrap.sh and runner.pyz, uploaded
 * as blobs and published by an admin (npm start does it from dist/capsule). Each admitted job records
 * the capsule current at admission, so its runs are reproducible and traceable.
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import { CAPSULE_FILES } from "../../contract/capsule.schema.js";
import { Digest } from "../../contract/digest.js";
import { db, schema } from "../../d1/client.js";

export const CapsuleFiles = z
  .object(
    Object.fromEntries(CAPSULE_FILES.map((f) => [f, Digest])) as Record<
      (typeof CAPSULE_FILES)[number],
      typeof Digest
    >,
  )
  .strict();
export type CapsuleFiles = z.infer<typeof CapsuleFiles>;

export const PublishCapsuleBody = z.object({
  files: CapsuleFiles.describe(
    "Exactly `bootstrap.sh` and `runner.pyz`, each the digest of a blob already uploaded",
  ),
});

export async function currentCapsule(d1: D1Database): Promise<CapsuleFiles | null> {
  const [row] = await db(d1)
    .select({ value: schema.meta.value })
    .from(schema.meta)
    .where(eq(schema.meta.key, "capsule"));
  if (!row) return null;
  const parsed = z.object({ files: CapsuleFiles }).safeParse(JSON.parse(row.value));
  return parsed.success ? parsed.data.files : null;
}

export async function publishCapsule(d1: D1Database, files: CapsuleFiles, by: string): Promise<void> {
  const value = JSON.stringify({ files, published_by: by, published_at: new Date().toISOString() });
  await db(d1)
    .insert(schema.meta)
    .values({ key: "capsule", value })
    .onConflictDoUpdate({ target: schema.meta.key, set: { value } });
}
