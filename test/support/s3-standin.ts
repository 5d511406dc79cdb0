/**
 * A real S3-compatible server on loopback (s3rver, from npm) standing in for R2's S3 API, which cannot run
 * here: it speaks the S3 wire protocol the Worker and sf use (presigned PUTs, multipart uploads, GET,
 * DELETE). It does not implement AbortMultipartUpload or check signatures strictly; docs/api.md says so.
 * `vars` configures a control plane (startControlPlane({ vars })) to use it, optionally through a proxy.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

export const S3_BUCKET = "starforge-blobs";

export interface S3StandIn {
  url: string;
  port: number;
  /** The R2_* variables that point a control plane at `endpoint` (default: this server). */
  vars: (endpoint?: string) => Record<string, string>;
  stop: () => Promise<void>;
}

export async function startS3StandIn(): Promise<S3StandIn> {
  const dir = mkdtempSync(join(tmpdir(), "sf-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: S3_BUCKET }],
  });
  const { port } = (await server.run()) as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    vars: (endpoint = url) => ({
      // s3rver's fixed credentials; any 32-hex account id (the endpoint overrides R2's host).
      R2_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
      R2_ACCESS_KEY_ID: "S3RVER",
      R2_SECRET_ACCESS_KEY: "S3RVER",
      R2_BUCKET: S3_BUCKET,
      R2_S3_ENDPOINT: endpoint,
    }),
    stop: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
