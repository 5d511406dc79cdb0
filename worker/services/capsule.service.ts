/**
 * The job capsule current on this control plane: the digests of bootstrap.sh and runner.pyz, uploaded
 * as blobs and published by an admin (npm start does it from dist/capsule). Each admitted job records
 * the capsule current at admission, so its runs are reproducible and traceable.
 */
import { z } from "zod";
import { CAPSULE_FILES } from "../../contract/capsule.schema.js";
import { Digest } from "../../contract/digest.js";

export const CapsuleFiles = z
  .object(
    Object.fromEntries(CAPSULE_FILES.map((f) => [f, Digest])) as Record<
      (typeof CAPSULE_FILES)[number],
      typeof Digest
    >,
  )
  .strict();
export type CapsuleFiles = z.infer<typeof CapsuleFiles>;

export const PublishCapsuleBody = z.object({ files: CapsuleFiles });

export async function currentCapsule(d1: D1Database): Promise<CapsuleFiles | null> {
  const row = await d1.prepare("SELECT value FROM meta WHERE key = 'capsule'").first<{ value: string }>();
  if (!row) return null;
  const parsed = z.object({ files: CapsuleFiles }).safeParse(JSON.parse(row.value));
  return parsed.success ? parsed.data.files : null;
}

export async function publishCapsule(d1: D1Database, files: CapsuleFiles, by: string): Promise<void> {
  const value = JSON.stringify({ files, published_by: by, published_at: new Date().toISOString() });
  await d1
    .prepare(
      "INSERT INTO meta (key, value) VALUES ('capsule', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    )
    .bind(value)
    .run();
}
