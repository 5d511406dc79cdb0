/**
 * Artifacts: ask for an upload target, PUT the bytes there (through the Worker, as locally and whenever
 * R2 S3 credentials are absent), register, list, download the same bytes. Wrong bytes are refused and
 * nothing is stored; a registration never claims bytes that are not there.
 */
import { runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { api } from "./helpers.js";
import { ingest, type RunFixture, startRun } from "./ingest-helpers.js";
import { testEnv } from "./test-env.js";

const enc = new TextEncoder();

async function uploadTarget(f: RunFixture, path: string, bytes: Uint8Array, digest?: string) {
  return ingest(f.token, "/artifact/upload", {
    run_id: f.runId,
    path,
    size_bytes: bytes.length,
    digest: digest ?? (await digestOf(bytes)),
  });
}

async function put(url: string, headers: Record<string, string>, bytes: Uint8Array) {
  const res = await SELF.fetch(url, { method: "PUT", headers, body: bytes });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}

function download(f: RunFixture, path: string) {
  return SELF.fetch(
    `http://sf.test/v1/jobs/${f.jobId}/artifacts/download?run=${f.runId}&path=${encodeURIComponent(path)}`,
    { headers: { authorization: `Bearer ${f.op}` } },
  );
}

describe("artifacts", () => {
  it("uploads through the Worker target, registers, lists and downloads the same bytes", async () => {
    const f = await startRun("art-a");
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) % 251);
    const digest = await digestOf(bytes);
    const path = "checkpoints/step 100/model.safetensors";

    const target = await uploadTarget(f, path, bytes);
    expect(target.status).toBe(200);
    expect(target.body).toMatchObject({ method: "PUT", headers: { "X-StarForge-Token": f.token } });
    expect(new URL(target.body.url).pathname).toBe(
      `/v1/ingest/artifact/blob/${f.runId}/checkpoints/step%20100/model.safetensors`,
    );

    const stored = await put(target.body.url, target.body.headers, bytes);
    expect(stored).toEqual({ status: 201, body: { path, digest, size: bytes.length, created: true } });
    // A retried PUT of the same bytes writes nothing new.
    expect((await put(target.body.url, target.body.headers, bytes)).body.created).toBe(false);

    const reg = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path,
      step: 100,
      size_bytes: bytes.length,
      metrics: { loss: 0.5 },
      digest,
    });
    expect(reg.status).toBe(200);
    expect(reg.body.artifact).toMatchObject({ path, digest, verified: true, stored: true, step: 100 });
    // Its fleet learnt it: the newest stored checkpoint orders victims of preemption (docs/scheduling.md).
    const known = await runInDurableObject(
      testEnv.FLEET.get(testEnv.FLEET.idFromName(f.fleetId)),
      (_i, state) =>
        state.storage.sql
          .exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", `checkpoint:${f.jobId}`)
          .toArray()[0]?.value,
    );
    expect(JSON.parse(known ?? "null")).toMatchObject({ run: f.runId, step: 100 });

    const list = await api(f.op, "GET", `/v1/jobs/${f.jobId}/artifacts`);
    expect(list.status).toBe(200);
    expect(list.body.run_id).toBe(f.runId);
    expect(list.body.artifacts).toEqual([
      {
        path,
        kind: "checkpoint",
        step: 100,
        size_bytes: bytes.length,
        digest,
        verified: true,
        stored: true,
        metrics: { loss: 0.5 },
        registered_at: expect.any(String),
      },
    ]);

    const res = await download(f, path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    expect(res.headers.get("etag")).toBe(`"${digest}"`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it("refuses bytes that do not match the digest and stores nothing", async () => {
    const f = await startRun("art-b");
    const real = enc.encode("the real checkpoint");
    const target = await uploadTarget(f, "ckpt/a.pt", real);
    const forged = enc.encode("a forged checkpoint");
    const r = await put(target.body.url, target.body.headers, forged);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("BLOB_DIGEST_MISMATCH");
    expect(await testEnv.BLOBS.head(`artifacts/${f.runId}/ckpt/a.pt`)).toBeNull();

    // Registering the upload that never happened is refused too.
    const reg = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path: "ckpt/a.pt",
      digest: await digestOf(real),
    });
    expect(reg.status).toBe(422);
    expect(reg.body.error.code).toBe("BLOB_MISSING");
    expect((await api(f.op, "GET", `/v1/jobs/${f.jobId}/artifacts`)).body.artifacts).toEqual([]);
  });

  it("refuses a registration whose digest is not that of the stored bytes", async () => {
    const f = await startRun("art-c");
    const bytes = enc.encode("weights v1");
    const target = await uploadTarget(f, "w.bin", bytes);
    expect((await put(target.body.url, target.body.headers, bytes)).status).toBe(201);
    const reg = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path: "w.bin",
      digest: await digestOf("weights v2"),
    });
    expect(reg.status).toBe(400);
    expect(reg.body.error.code).toBe("BLOB_DIGEST_MISMATCH");
  });

  it("registers an artifact by path only (the original client), listed but not downloadable", async () => {
    const f = await startRun("art-d");
    const reg = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "hf_export",
      path: "exports/hf",
      size_bytes: 12,
    });
    expect(reg.status).toBe(200);
    expect(reg.body.artifact).toMatchObject({ stored: false, verified: false, digest: null });
    const res = await download(f, "exports/hf");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  it("refuses a PUT without Content-Length, with a bad digest, or with an escaping path", async () => {
    const f = await startRun("art-e");
    const base = `http://sf.test/v1/ingest/artifact/blob/${f.runId}`;
    const digest = await digestOf("x");
    const headers = { "x-starforge-token": f.token };
    const noLength = await SELF.fetch(`${base}/a.bin?digest=${digest}`, {
      method: "PUT",
      headers,
      body: new ReadableStream({
        start(c) {
          c.enqueue(enc.encode("x"));
          c.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(noLength.status).toBe(411);
    await noLength.body?.cancel();
    const badDigest = await put(`${base}/a.bin?digest=sha256:nope`, headers, enc.encode("x"));
    expect(badDigest.body.error.code).toBe("INVALID_DIGEST");
    // URLs resolve "/../" themselves; an encoded slash could still smuggle one into a segment.
    for (const path of ["a%2F..%2Fb.bin", "a%5Cb.bin", "a%00b.bin"]) {
      const escaping = await put(`${base}/${path}?digest=${digest}`, headers, enc.encode("x"));
      expect(escaping.status, path).toBe(400);
      expect(escaping.body.error.code, path).toBe("BAD_REQUEST");
    }
  });

  // Regression (fuzz-ingest): R2 refuses keys over 1024 bytes, and that refusal answered 500.
  it("refuses a path too long for a storage key with BAD_REQUEST, on the PUT and on registration", async () => {
    const f = await startRun("art-long");
    const digest = await digestOf("x");
    const long = "a".repeat(3_000);
    const headers = { "x-starforge-token": f.token };
    const stored = await put(
      `http://sf.test/v1/ingest/artifact/blob/${f.runId}/${long}?digest=${digest}`,
      headers,
      enc.encode("x"),
    );
    expect([stored.status, stored.body.error.code]).toEqual([400, "BAD_REQUEST"]);
    const reg = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path: long,
      digest,
    });
    expect([reg.status, reg.body.error.code]).toEqual([400, "BAD_REQUEST"]);
  });
});
