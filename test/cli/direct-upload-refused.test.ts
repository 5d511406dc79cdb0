// A control plane of its own (startControlPlane), not the shared one: it points object storage at a stub
// that refuses every part, through the R2_* variables, which are deployment-wide; on the shared plane every
// other file's large uploads would be refused too.
/**
 * Tier 3: when object storage refuses a part outright (here 403 AccessDenied, as R2 answers a key without
 * write access), `sf submit` gives the upload up instead of leaving it to be resumed into the same refusal:
 * it asks the control plane to abort it, which aborts the multipart upload in object storage. The S3 side
 * is a stub speaking S3's wire format for the four calls involved, because s3rver accepts every part.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControlPlane } from "../support/control-plane.js";
import { makeProject, type Server as SfServer, serverUser } from "./submit-fixture.js";

let stub: Server;
let stubUrl = "";
const seen: string[] = [];
let s: SfServer;

beforeAll(async () => {
  stub = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    const op =
      req.method === "POST" && url.searchParams.has("uploads")
        ? "CreateMultipartUpload"
        : req.method === "PUT" && url.searchParams.has("partNumber")
          ? "UploadPart"
          : req.method === "DELETE" && url.searchParams.has("uploadId")
            ? "AbortMultipartUpload"
            : `${req.method} ${url.pathname}`;
    seen.push(op);
    req.resume();
    req.on("end", () => {
      if (op === "CreateMultipartUpload") {
        res.writeHead(200, { "content-type": "application/xml" });
        res.end(
          "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>stub-upload-1</UploadId></InitiateMultipartUploadResult>",
        );
      } else if (op === "UploadPart") {
        res.writeHead(403, { "content-type": "application/xml" });
        res.end("<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
      } else if (op === "AbortMultipartUpload") {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(400, { "content-type": "application/xml" });
        res.end("<Error><Code>NotImplemented</Code></Error>");
      }
    });
  });
  await new Promise<void>((ok) => stub.listen(0, "127.0.0.1", ok));
  const addr = stub.address();
  stubUrl = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  const cp = await startControlPlane({
    agent: false,
    vars: {
      R2_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
      R2_ACCESS_KEY_ID: "stub",
      R2_SECRET_ACCESS_KEY: "stub",
      R2_BUCKET: "starforge-blobs",
      R2_S3_ENDPOINT: stubUrl,
    },
  });
  s = await serverUser(cp, "ada", "nowhere");
});

afterAll(async () => {
  await s?.cp.stop();
  await new Promise((ok) => stub?.close(ok));
});

describe("a part refused by object storage", () => {
  it("ends sf submit with UPLOAD_REFUSED and aborts the upload, so a new submit starts a new one", async () => {
    const p = await makeProject(s, { fleet: "nowhere" });
    p.write("experiments/exp1/data.bin", Buffer.alloc(3 * 1024 * 1024, 1));
    const env = { SF_DIRECT_UPLOAD_THRESHOLD_BYTES: String(1024 * 1024) };
    const r = await p.sf(["submit", "exp1", "--profile", "h200:1", "--allow-dirty"], env);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toContain("UPLOAD_REFUSED");
    expect(r.stderr).toContain("AccessDenied");
    expect(seen).toEqual(["CreateMultipartUpload", "UploadPart", "AbortMultipartUpload"]);

    // Nothing of it was kept: the next attempt opens a new multipart upload.
    seen.length = 0;
    const again = await p.sf(["submit", "exp1", "--profile", "h200:1", "--allow-dirty"], env);
    expect(again.code).toBe(6);
    expect(seen[0]).toBe("CreateMultipartUpload");
  });
});
