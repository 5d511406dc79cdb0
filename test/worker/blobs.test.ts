/** Content-addressed blobs: verified on write, write-once, size-limited, streamed, readable by job readers only. */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { ADMIN, api, createFleet, createUser, customSpec, enrollAgent } from "./helpers.js";
import { testEnv } from "./test-env.js";

async function put(token: string, digest: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`http://sf.test/v1/blobs/${digest}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}

async function get(token: string, digest: string, method = "GET") {
  return SELF.fetch(`http://sf.test/v1/blobs/${digest}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
  });
}

const enc = new TextEncoder();

/** Uploads a one-file workspace (train.sh and its manifest) as `owner`; both uploads must be created. */
async function uploadWorkspace(owner: string, script: string) {
  const file = enc.encode(script);
  const fileDigest = await digestOf(file);
  const manifest = enc.encode(
    JSON.stringify({
      manifest_version: 1,
      files: [{ path: "train.sh", digest: fileDigest, size: file.length, mode: 0o755 }],
    }),
  );
  const manifestDigest = await digestOf(manifest);
  expect((await put(owner, fileDigest, file)).status).toBe(201);
  expect((await put(owner, manifestDigest, manifest)).status).toBe(201);
  return { file, fileDigest, manifestDigest };
}

describe("blobs", () => {
  it("stores bytes under their digest and reads them back unchanged", async () => {
    const op = await createUser("blob-a");
    const bytes = enc.encode("print('hello')\n");
    const digest = await digestOf(bytes);
    expect((await get(op, digest, "HEAD")).status).toBe(404);
    const r = await put(op, digest, bytes);
    expect(r).toEqual({ status: 201, body: { digest, size: bytes.length, created: true } });
    const head = await get(op, digest, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(bytes.length));
    const back = await get(op, digest);
    expect(back.status).toBe(200);
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(bytes);
  });

  it("refuses bytes that do not hash to the digest and stores nothing", async () => {
    const op = await createUser("blob-b");
    const digest = await digestOf("the real content");
    const r = await put(op, digest, "forged content!!");
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("BLOB_DIGEST_MISMATCH");
    expect(await testEnv.BLOBS.head(`blobs/sha256/${digest.slice(7)}`)).toBeNull();
    expect((await get(op, digest, "HEAD")).status).toBe(404);
    const rows = await testEnv.DB.prepare("SELECT COUNT(*) AS n FROM blobs WHERE digest = ?")
      .bind(digest)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });

  it("is write-once: a second upload of an existing digest changes nothing", async () => {
    const op = await createUser("blob-c");
    const bytes = enc.encode("weights v1");
    const digest = await digestOf(bytes);
    await put(op, digest, bytes);
    const obj1 = await testEnv.BLOBS.head(`blobs/sha256/${digest.slice(7)}`);
    const again = await put(op, digest, bytes);
    expect(again).toEqual({ status: 200, body: { digest, size: bytes.length, created: false } });
    const obj2 = await testEnv.BLOBS.head(`blobs/sha256/${digest.slice(7)}`);
    expect(obj2?.uploaded.getTime()).toBe(obj1?.uploaded.getTime());
  });

  it("rejects bodies over the size limit before reading them", async () => {
    const op = await createUser("blob-d");
    const limit = Number(testEnv.SF_MAX_BLOB_BYTES);
    const big = new Uint8Array(limit + 1);
    const r = await put(op, await digestOf(big), big);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: "BLOB_TOO_LARGE", details: { limit } });
  });

  it("needs a Content-Length, since bodies are streamed and never buffered whole", async () => {
    const op = await createUser("blob-e");
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(enc.encode("chunked"));
        c.close();
      },
    });
    const r = await put(op, await digestOf("chunked"), stream);
    expect(r.status).toBe(411);
    expect(r.body.error.code).toBe("LENGTH_REQUIRED");
  });

  it("streams a body of many chunks through to R2", async () => {
    const op = await createUser("blob-f");
    const size = 900 * 1024;
    const bytes = new Uint8Array(size).map((_, i) => (i * 7) % 251);
    const digest = await digestOf(bytes);
    let sent = 0;
    const stream = new ReadableStream({
      pull(c) {
        if (sent >= size) return c.close();
        c.enqueue(bytes.slice(sent, sent + 64 * 1024));
        sent += 64 * 1024;
      },
    });
    const r = await put(op, digest, stream, { "content-length": String(size) });
    expect(r.status).toBe(201);
    const back = new Uint8Array(await (await get(op, digest)).arrayBuffer());
    expect(await digestOf(back)).toBe(digest);
  });

  it("rejects a malformed digest with INVALID_DIGEST", async () => {
    const op = await createUser("blob-g");
    const r = await put(op, "sha256:XYZ", "x");
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_DIGEST");
  });

  it("lets only the uploader, admins, readers of a referencing job and that job's fleet agents read a blob", async () => {
    const owner = await createUser("blob-owner");
    const other = await createUser("blob-other");
    await createFleet("blob-fleet");
    await createFleet("blob-elsewhere");
    const { file, fileDigest, manifestDigest } = await uploadWorkspace(owner, "#!/bin/bash\necho hi\n");

    expect((await get(other, fileDigest)).status).toBe(403);
    expect((await get(owner, fileDigest)).status).toBe(200);
    expect((await get(ADMIN, fileDigest)).status).toBe(200);

    const spec = await customSpec({ fleet: "blob-fleet" });
    spec.source = { workspace: manifestDigest, experiment_dir: "." };
    const sub = await api(owner, "POST", "/v1/jobs", spec);
    expect(sub.status).toBe(201);

    const agentOf = async (fleet: string) => {
      const t = await api(ADMIN, "POST", `/v1/fleets/${fleet}/enrollment-tokens`);
      return (await api(null, "POST", "/v1/agents/enroll", { token: t.body.token })).body
        .credential as string;
    };
    const agentHere = await agentOf("blob-fleet");
    const agentThere = await agentOf("blob-elsewhere");
    const viaAgent = await get(agentHere, fileDigest);
    expect(viaAgent.status).toBe(200);
    expect(new Uint8Array(await viaAgent.arrayBuffer())).toEqual(file);
    expect((await get(agentThere, fileDigest)).status).toBe(403);
    expect((await get(other, manifestDigest)).status).toBe(403);
  });

  it("serves a just-dispatched job's blob to its fleet's agent before D1 holds the job, and 503 (not 403) while D1 refuses writes", async () => {
    const owner = await createUser("blob-race");
    await createFleet("blob-race-fleet");
    const { file, fileDigest, manifestDigest } = await uploadWorkspace(owner, "#!/bin/bash\necho race\n");
    const agent = await enrollAgent("blob-race-fleet");
    const spec = await customSpec({ fleet: "blob-race-fleet", name: "race" });
    spec.source = { workspace: manifestDigest, experiment_dir: "." };

    // D1 refuses the fleet's writes: the job is in its Fleet DO only. The agent's read is not refused as
    // if the job did not exist; it is told to come back.
    await testEnv.DB.exec("ALTER TABLE job_events RENAME TO job_events_offline");
    try {
      expect((await api(owner, "POST", "/v1/jobs", spec)).status).toBe(201);
      const behind = await get(agent, fileDigest);
      expect(behind.status).toBe(503);
      expect(behind.headers.get("retry-after")).toBe("2");
      expect(((await behind.json()) as { error: { code: string } }).error.code).toBe("UNAVAILABLE");
    } finally {
      await testEnv.DB.exec("ALTER TABLE job_events_offline RENAME TO job_events");
    }
    // D1 is back: a miss (the fleet's retry may not have come yet) makes the fleet write first.
    const back = await get(agent, fileDigest);
    expect(back.status).toBe(200);
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(file);
  });
});
