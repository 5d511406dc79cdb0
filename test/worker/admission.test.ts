/**
 * Admission rejections: each names its stable code, and none leaves anything behind (no ledger rows in
 * D1, nothing queued in the Fleet DO). Each rejection has a passing neighbour so the check is shown to
 * be about the one thing it names. Quotas and idempotency live in admission-quota.test.ts.
 */
import { SELF } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { digestOf } from "../../contract/digest.js";
import type { ErrorBody } from "../../contract/errors.js";
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import {
  ADMIN,
  type ApiResponse,
  api,
  countRows,
  createFleet,
  createUser,
  customSpec,
  expectRejectedWithoutResidue,
  installHubStub,
  putBlob,
  recipeDigest,
} from "./helpers.js";

const FLEET = "ad-fleet";

/** The job once its first run has ended (it may be retried after that). */
async function firstRunEnded(id: string) {
  for (let i = 0; ; i++) {
    const j = (await api(op, "GET", `/v1/jobs/${id}`)).body;
    if (j.runs[0]?.ended_at) return j.runs[0];
    if (i === 60) throw new Error(`job ${id}: no run ended: ${JSON.stringify(j)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
let op: string;

const submit = (spec: unknown) => () => api(op, "POST", "/v1/jobs", spec);

function rejected(spec: unknown, status: number, code: string) {
  return expectRejectedWithoutResidue(FLEET, submit(spec), status, code);
}

/** python/charlm: params learning_rate, max_steps, batch_size, context, checkpoint_every, seed. */
async function charlmSpec(
  hyperparams: Record<string, string | number | boolean> = {},
): Promise<JobSpecInput> {
  const spec = await customSpec({ fleet: FLEET, name: "charlm", hyperparams });
  spec.recipe = { name: "python/charlm", version: "1.0.0", digest: await recipeDigest("python/charlm") };
  spec.framework = { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null };
  return spec;
}

beforeAll(async () => {
  op = await createUser("ad-op", "operator");
  await createFleet(FLEET);
  // A job already waits, so "the queue is unchanged" compares a non-empty queue.
  expect((await api(op, "POST", "/v1/jobs", await customSpec({ fleet: FLEET, name: "first" }))).status).toBe(
    201,
  );
});

describe("the spec", () => {
  it("rejects a spec that fails the schema with INVALID_SPEC listing each issue", async () => {
    const spec = await customSpec({ fleet: FLEET, pools: [] });
    spec.metadata.name = "Not A Valid Name!";
    const res = await rejected(spec, 400, "INVALID_SPEC");
    const paths = (res.body.error.details.issues as Array<{ path: string }>).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["metadata.name", "resources.pools"]));
  });

  it("rejects a body that is not JSON with INVALID_SPEC", async () => {
    const send = async (): Promise<ApiResponse<ErrorBody>> => {
      const res = await SELF.fetch("http://sf.test/v1/jobs", {
        method: "POST",
        headers: { authorization: `Bearer ${op}`, "content-type": "application/json" },
        body: '{"api_version": "starforge.dev/v1", metadata:',
      });
      return { status: res.status, body: await res.json<ErrorBody>(), headers: res.headers };
    };
    await expectRejectedWithoutResidue(FLEET, send, 400, "INVALID_SPEC");
  });

  // Regression (fuzz-routes-jobs): hashing a keyed body walked it recursively and overflowed the stack: a 500.
  it("rejects a body nested 100 000 levels deep with INVALID_SPEC, keyed or not, leaving nothing behind", async () => {
    for (const key of [null, "deep-1"]) {
      const send = async (): Promise<ApiResponse<ErrorBody>> => {
        const res = await SELF.fetch("http://sf.test/v1/jobs", {
          method: "POST",
          headers: {
            authorization: `Bearer ${op}`,
            "content-type": "application/json",
            ...(key ? { "idempotency-key": key } : {}),
          },
          body: `{"metadata":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
        });
        return { status: res.status, body: await res.json<ErrorBody>(), headers: res.headers };
      };
      const res = await expectRejectedWithoutResidue(FLEET, send, 400, "INVALID_SPEC");
      expect(res.body.error.message).toContain("nests deeper than 100 levels");
    }
  });
});

describe("the catalog handshake", () => {
  it("rejects a method the server does not publish with RECIPE_NOT_FOUND", async () => {
    const spec = await customSpec({ fleet: FLEET });
    spec.recipe.name = "custom/no-such-method";
    await rejected(spec, 422, "RECIPE_NOT_FOUND");
  });

  it("rejects an unpublished version with RECIPE_VERSION_NOT_FOUND", async () => {
    const spec = await customSpec({ fleet: FLEET });
    spec.recipe.version = "9.9.9";
    const res = await rejected(spec, 422, "RECIPE_VERSION_NOT_FOUND");
    expect(res.body.error.message).toContain("custom/custom@9.9.9");
  });

  it("rejects a stale lock digest with RECIPE_LOCK_STALE and tells the user to run sf recipe upgrade", async () => {
    const spec = await customSpec({ fleet: FLEET });
    const published = spec.recipe.digest;
    spec.recipe.digest = `sha256:${"d".repeat(64)}`;
    const res = await rejected(spec, 409, "RECIPE_LOCK_STALE");
    expect(res.body.error.message).toContain("sf recipe upgrade");
    expect(res.body.error.details).toMatchObject({
      lock_digest: spec.recipe.digest,
      catalog_digest: published,
    });
  });

  it("rejects a framework version or runtime the recipe is not published for", async () => {
    const version = await charlmSpec();
    version.framework.version = "2";
    const res = await rejected(version, 422, "FRAMEWORK_VERSION_UNSUPPORTED");
    expect(res.body.error.message).toContain("python 3 (python3-stdlib)");
    const runtime = await charlmSpec();
    runtime.framework.runtime_id = "torch-cpu";
    await rejected(runtime, 422, "FRAMEWORK_VERSION_UNSUPPORTED");
    expect((await api(op, "POST", "/v1/jobs", await charlmSpec())).status).toBe(201);
  });
});

describe("hyperparameters", () => {
  it("rejects an unknown hyperparameter with INVALID_HYPERPARAMS listing the known keys", async () => {
    const res = await rejected(await charlmSpec({ lr: 0.01 }), 400, "INVALID_HYPERPARAMS");
    expect(res.body.error.message).toContain(
      "known: batch_size, checkpoint_every, context, learning_rate, max_steps, seed",
    );
    expect(res.body.error.details.issues).toEqual([expect.objectContaining({ key: "lr" })]);
  });

  it("rejects out-of-range and mistyped values with INVALID_HYPERPARAMS naming each", async () => {
    const res = await rejected(
      await charlmSpec({ context: 9, learning_rate: 0, max_steps: 1.5 }),
      400,
      "INVALID_HYPERPARAMS",
    );
    const keys = (res.body.error.details.issues as Array<{ key: string }>).map((i) => i.key).sort();
    expect(keys).toEqual(["context", "learning_rate", "max_steps"]);
    expect(res.body.error.message).toContain('"context" must be <= 8, got 9');
  });

  it("admits in-range values and fills the defaults", async () => {
    const res = await api(op, "POST", "/v1/jobs", await charlmSpec({ context: 8, learning_rate: 0.5 }));
    expect(res.status).toBe(201);
    const job = await api(op, "GET", `/v1/jobs/${res.body.job.id}`);
    expect(job.body.job.spec.hyperparams).toEqual({
      learning_rate: 0.5,
      max_steps: 300,
      batch_size: 32,
      context: 8,
      checkpoint_every: 100,
      seed: 0,
    });
  });
});

describe("profiles", () => {
  it("rejects an unknown profile with PROFILE_NOT_FOUND", async () => {
    const pools = [{ name: "default", profile: "tpu9", series: "tpu9", nodes: 1, gpus_per_node: 1 }];
    const res = await rejected(await customSpec({ fleet: FLEET, pools }), 404, "PROFILE_NOT_FOUND");
    expect(res.body.error.message).toContain("h200");
  });

  it.each([
    ["12 GPUs on one 8-GPU node", 1, 12, "h200"],
    ["8 GPUs split over two nodes", 2, 4, "h200"],
    ["a series the profile is not", 1, 1, "h100"],
  ])("rejects an illegal shape (%s) with INVALID_PROFILE", async (_, nodes, gpusPerNode, series) => {
    const pools = [{ name: "default", profile: "h200", series, nodes, gpus_per_node: gpusPerNode }];
    await rejected(await customSpec({ fleet: FLEET, pools }), 400, "INVALID_PROFILE");
  });
});

describe("images", () => {
  it("rejects an image outside the fleet's allowlist with IMAGE_NOT_ALLOWED", async () => {
    const spec = await customSpec({ fleet: FLEET, image: "docker.io/evil/miner:latest" });
    const res = await rejected(spec, 403, "IMAGE_NOT_ALLOWED");
    expect(res.body.error.details).toEqual({
      image: "docker.io/evil/miner:latest",
      allowlist: ["ghcr.io/acme/*"],
    });
  });

  it("admits only the pinned digest when the allowlist entry is digest-pinned", async () => {
    const pinned = `ghcr.io/acme/train@sha256:${"a".repeat(64)}`;
    await createFleet("ad-pinned", { image_allowlist: [pinned] });
    const other = `ghcr.io/acme/train@sha256:${"b".repeat(64)}`;
    for (const image of [other, "ghcr.io/acme/train:1.0", `ghcr.io/acme/other@sha256:${"a".repeat(64)}`]) {
      const spec = await customSpec({ fleet: "ad-pinned", image });
      await expectRejectedWithoutResidue("ad-pinned", submit(spec), 403, "IMAGE_NOT_ALLOWED");
    }
    const ok = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ad-pinned", image: pinned }));
    expect(ok.status).toBe(201);
  });

  it("requires an image for a custom recipe on a docker fleet (IMAGE_REQUIRED) but not on a process fleet", async () => {
    const spec = await customSpec({ fleet: FLEET });
    spec.framework.image = null;
    const res = await rejected(spec, 422, "IMAGE_REQUIRED");
    expect(res.body.error.message).toContain("--image");

    await createFleet("ad-process", { kind: "process", image_allowlist: [] });
    const onProcess = await customSpec({ fleet: "ad-process" });
    onProcess.framework.image = null;
    expect((await api(op, "POST", "/v1/jobs", onProcess)).status).toBe(201);
  });
});

describe("runtime shapes", () => {
  it("admits several pools on a Slurm fleet (one heterogeneous Slurm job), as on any fleet", async () => {
    await createFleet("ad-slurm", { kind: "slurm", image_allowlist: [] });
    const pools = [
      { name: "trainer", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 4 },
      { name: "rollout", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 1 },
    ];
    const spec = await customSpec({ fleet: "ad-slurm", pools });
    spec.framework.image = null;
    const res = await api(op, "POST", "/v1/jobs", spec);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.job).toMatchObject({ status: "QUEUED" });
  });
});

describe("fleets and blobs", () => {
  it("rejects an unknown fleet with FLEET_NOT_FOUND", async () => {
    await rejected(await customSpec({ fleet: "ad-no-such-fleet" }), 404, "FLEET_NOT_FOUND");
  });

  it("rejects a workspace whose manifest was never uploaded with BLOB_MISSING", async () => {
    const spec = await customSpec({ fleet: FLEET });
    spec.source.workspace = `sha256:${"f".repeat(64)}`;
    const res = await rejected(spec, 422, "BLOB_MISSING");
    expect(res.body.error.details).toEqual({ missing: [spec.source.workspace] });
  });

  it("rejects a workspace with a file that was never uploaded, and admits it once the file is there", async () => {
    const file = "echo train\n";
    const fileDigest = await digestOf(file);
    const manifest = await putBlob(
      op,
      JSON.stringify({ manifest_version: 1, files: [{ path: "train.sh", digest: fileDigest, size: 11 }] }),
    );
    const spec = await customSpec({ fleet: FLEET, name: "with-files" });
    spec.source.workspace = manifest;
    const res = await rejected(spec, 422, "BLOB_MISSING");
    expect(res.body.error.details).toEqual({ missing: [fileDigest] });

    expect(await putBlob(op, file)).toBe(fileDigest);
    const refs = await countRows("blob_refs");
    expect((await api(op, "POST", "/v1/jobs", spec)).status).toBe(201);
    expect(await countRows("blob_refs")).toBe(refs + 2);
  });
});

describe("HuggingFace preflight", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const hub = () =>
    installHubStub([
      { kind: "model", id: "acme/public-7b", revisions: ["main", "v1"] },
      { kind: "model", id: "acme/gated-70b", gated: true },
      { kind: "model", id: "acme/private-1b", private: true },
      { kind: "dataset", id: "acme/corpus" },
    ]);

  it("rejects a model or dataset that does not exist with HF_NOT_FOUND, a revision it lacks with HF_REVISION_NOT_FOUND", async () => {
    const stub = hub();
    await rejected(
      await customSpec({ fleet: FLEET, model: { hf_repo: "acme/missing" } }),
      422,
      "HF_NOT_FOUND",
    );
    expect(stub.requests).toContain("/api/models/acme/missing/revision/main");
    const badRev = { hf_repo: "acme/public-7b", revision: "v9" };
    const res = await rejected(
      await customSpec({ fleet: FLEET, model: badRev }),
      422,
      "HF_REVISION_NOT_FOUND",
    );
    expect(res.body.error.message).toContain('"v9"');
    const data = { hf_dataset: "acme/no-corpus" };
    await rejected(await customSpec({ fleet: FLEET, data }), 422, "HF_NOT_FOUND");
  });

  it("rejects a gated model submitted without a HuggingFace token with HF_TOKEN_REQUIRED", async () => {
    const stub = hub();
    const res = await rejected(
      await customSpec({ fleet: FLEET, model: { hf_repo: "acme/gated-70b" } }),
      422,
      "HF_TOKEN_REQUIRED",
    );
    expect(res.body.error.message).toContain("acme/gated-70b");
    expect(res.body.error.message).toContain("`sf secret set HF_TOKEN`");
    // The hub answers a gated repo's metadata; only its files are refused.
    expect(stub.requests).toEqual(["/api/models/acme/gated-70b/revision/main"]);
  });

  it("rejects a private model the submitter's token cannot see with HF_NOT_FOUND, as the hub hides it", async () => {
    hub();
    const res = await rejected(
      await customSpec({ fleet: FLEET, model: { hf_repo: "acme/private-1b" } }),
      422,
      "HF_NOT_FOUND",
    );
    expect(res.body.error.message).toContain("acme/private-1b");
  });

  it("rejects with HF_UNAVAILABLE (503) while the hub is down", async () => {
    const stub = hub();
    stub.down = true;
    const spec = await customSpec({ fleet: FLEET, model: { hf_repo: "acme/public-7b" } });
    await rejected(spec, 503, "HF_UNAVAILABLE");
    stub.down = false;
    expect((await api(op, "POST", "/v1/jobs", spec)).status).toBe(201);
  });

  it("admits a public model and dataset after checking both at their revisions", async () => {
    const stub = hub();
    const spec = await customSpec({
      fleet: FLEET,
      name: "hf-ok",
      model: { hf_repo: "acme/public-7b", revision: "v1" },
      data: { hf_dataset: "acme/corpus" },
    });
    const res = await api(op, "POST", "/v1/jobs", spec);
    expect(res.status).toBe(201);
    expect(res.body.job.status).toBe("QUEUED");
    expect(stub.requests).toEqual([
      "/api/models/acme/public-7b/revision/v1",
      "/api/datasets/acme/corpus/revision/main",
    ]);
  });
});

describe("configuration cached by the Worker", () => {
  it("applies an admin's change to the next submit: an allowlist narrowed after an admitted job refuses the same spec", async () => {
    await createFleet("ad-cache", { image_allowlist: ["ghcr.io/acme/*"] });
    const spec = await customSpec({ fleet: "ad-cache", image: "ghcr.io/acme/train:2.0" });
    expect((await api(op, "POST", "/v1/jobs", spec)).status).toBe(201);
    const patch = await api(ADMIN, "PATCH", "/v1/fleets/ad-cache", {
      image_allowlist: ["ghcr.io/other/*"],
    });
    expect(patch.status).toBe(200);
    await expectRejectedWithoutResidue("ad-cache", submit(spec), 403, "IMAGE_NOT_ALLOWED");
  });

  it("re-checks a refusal that rests on cached configuration: a fleet drained, then reopened, admits at once", async () => {
    await createFleet("ad-reopen");
    const spec = await customSpec({ fleet: "ad-reopen" });
    expect((await api(op, "POST", "/v1/jobs", spec)).status).toBe(201);
    expect(
      (await api(ADMIN, "POST", "/v1/fleets/ad-reopen/maintenance/drain", { note: "upgrade" })).status,
    ).toBe(200);
    await expectRejectedWithoutResidue("ad-reopen", submit(spec), 409, "FLEET_DRAINING");
    expect((await api(ADMIN, "POST", "/v1/fleets/ad-reopen/maintenance/resume")).status).toBe(200);
    expect((await api(op, "POST", "/v1/jobs", spec)).status).toBe(201);
  });

  it("remembers that no capsule is published only until one is: the next submit carries it", async () => {
    await createFleet("ad-capsule", { kind: "process" });
    const { credential } = await enroll("ad-capsule");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-c", 2));
    await agent.next("welcome");
    const spec = await customSpec({ fleet: "ad-capsule" });
    // Twice without one: the second answer comes from the cache, and must say the same.
    for (const _ of [1, 2]) {
      const before = (await api(op, "POST", "/v1/jobs", spec)).body.job.id as string;
      const run = await firstRunEnded(before);
      expect([run.status, run.reason]).toEqual([
        "FAILED",
        expect.stringMatching(/no job capsule was published/),
      ]);
    }
    const files = await publishTestCapsule();
    const after = (await api(op, "POST", "/v1/jobs", spec)).body.job.id as string;
    const launch = await agent.next("launch", (f) => f.request.job_id === after);
    expect(launch.request.capsule.files).toEqual(files);
    agent.close();
  });

  it("admits every one of many concurrent submits that arrive just after a configuration change", async () => {
    const burst = await createUser("ad-burst-op", "operator");
    const quota = { max_gpus: 16, max_jobs: 100, daily_gpu_hours: 100 };
    expect((await api(ADMIN, "PUT", "/v1/users/ad-burst-op/quota", quota)).status).toBe(200);
    await createFleet("ad-burst", { image_allowlist: ["ghcr.io/acme/*"] });
    const spec = await customSpec({ fleet: "ad-burst" });
    const answers = await Promise.all(Array.from({ length: 12 }, () => api(burst, "POST", "/v1/jobs", spec)));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    expect(new Set(answers.map((a) => a.body.job.id)).size).toBe(12);
  });
});
