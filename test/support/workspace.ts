/** Packs files into content-addressed blobs plus a workspace manifest, through the real HTTP API. */
import { createHash } from "node:crypto";

export interface WorkspaceFile {
  path: string;
  content: string;
  mode?: number;
}

const digest = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

async function putBlob(server: string, token: string, bytes: Buffer): Promise<string> {
  const d = digest(bytes);
  const res = await fetch(`${server}/v1/blobs/${d}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-length": String(bytes.length) },
    body: new Uint8Array(bytes),
  });
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`PUT blob ${d}: ${res.status} ${await res.text()}`);
  return d;
}

/** Uploads every file and the manifest; returns the manifest's digest for JobSpec.source.workspace. */
export async function uploadWorkspace(
  server: string,
  token: string,
  files: WorkspaceFile[],
): Promise<string> {
  const entries = [];
  for (const f of files) {
    const bytes = Buffer.from(f.content);
    entries.push({
      path: f.path,
      digest: await putBlob(server, token, bytes),
      size: bytes.length,
      mode: f.mode ?? 0o644,
    });
  }
  return putBlob(server, token, Buffer.from(JSON.stringify({ manifest_version: 1, files: entries })));
}
