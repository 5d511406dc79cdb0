/**
 * Job secrets through the real Worker, D1 and Durable Objects: set, list and remove (values never come
 * back), sealed at rest, visible only to their owner, checked at admission, opened into the LaunchRequest
 * of the run that names them and masked in that run's stored logs.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import {
  ADMIN,
  api,
  createFleet,
  createUser,
  customSpec,
  expectRejectedWithoutResidue,
  installHubStub,
} from "./helpers.js";
import { ingest, type LogLine, runToken } from "./ingest-helpers.js";
import { described } from "./openapi-conformance.js";
import { testEnv } from "./test-env.js";

const HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
let alice = "";
let bob = "";
let viewer = "";

beforeAll(async () => {
  alice = await createUser("sec-alice");
  bob = await createUser("sec-bob");
  viewer = await createUser("sec-viewer", "viewer");
  await publishTestCapsule();
});

/** An agent of `fleet`, connected and registered with one node of `gpus` GPUs. */
async function connectedAgent(fleet: string, box: string, gpus: number): Promise<ScriptedAgent> {
  const { credential } = await enroll(fleet);
  const agent = await ScriptedAgent.connect(credential);
  agent.hello(inventory(box, gpus));
  await agent.next("welcome");
  return agent;
}

/** Every stored row of the secrets table, as D1 holds it. */
async function storedRows() {
  return (await testEnv.DB.prepare("SELECT * FROM secrets").all<Record<string, string>>()).results;
}

describe("secrets API", () => {
  it("stores a value sealed, lists names only and never returns the value", async () => {
    const put = await api(alice, "PUT", "/v1/secrets/HF_TOKEN", { value: HF });
    expect(put.status).toBe(201);
    expect(put.body.secret).toMatchObject({
      name: "HF_TOKEN",
      scope: "user",
      fleet: null,
      set_by: "sec-alice",
    });
    const again = await api(alice, "PUT", "/v1/secrets/HF_TOKEN", { value: `${HF}x` });
    expect(again.status).toBe(200);

    const ls = await api(alice, "GET", "/v1/secrets");
    expect(ls.body.secrets.map((s: { name: string }) => s.name)).toEqual(["HF_TOKEN"]);
    expect(JSON.stringify(ls.body)).not.toContain(HF);
    expect(JSON.stringify(put.body) + JSON.stringify(again.body)).not.toContain(HF);

    // At rest: neither the value nor its base64 is in any column.
    const rows = await storedRows();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(HF);
    expect(dump).not.toContain(btoa(HF).slice(0, 20));
    expect(rows.find((r) => r.name === "HF_TOKEN")?.key_id).toMatch(/^[0-9a-f]{12}$/);
  });

  it("keeps one user's secrets from every other user", async () => {
    await api(alice, "PUT", "/v1/secrets/WANDB_API_KEY", { value: "alice-wandb-key-123" });
    const theirs = await api(bob, "GET", "/v1/secrets");
    expect(theirs.status).toBe(200);
    expect(theirs.body.secrets).toEqual([]);
    const rm = await api(bob, "DELETE", "/v1/secrets/WANDB_API_KEY");
    expect({ status: rm.status, code: rm.body.error.code }).toEqual({
      status: 404,
      code: "SECRET_NOT_FOUND",
    });
    const peek = await api(bob, "GET", "/v1/secrets?user=sec-alice");
    expect({ status: peek.status, code: peek.body.error.code }).toEqual({ status: 403, code: "FORBIDDEN" });
    // An admin sees the names (never the values) and can remove one, e.g. when offboarding.
    const admin = await api(ADMIN, "GET", "/v1/secrets?user=sec-alice");
    expect(admin.body.secrets.map((s: { name: string }) => s.name)).toEqual(["HF_TOKEN", "WANDB_API_KEY"]);
    expect((await api(ADMIN, "DELETE", "/v1/secrets/WANDB_API_KEY?user=sec-alice")).status).toBe(200);
    expect((await api(alice, "GET", "/v1/secrets")).body.secrets).toHaveLength(1);
  });

  it("refuses bad names and values with coded errors and stores nothing", async () => {
    const before = (await storedRows()).length;
    for (const [name, value] of [
      ["lower_case", "long-enough-value"],
      ["SF_TOKEN", "long-enough-value"],
      ["STARFORGE_TOKEN", "long-enough-value"],
      ["RANK", "long-enough-value"],
      ["9LIVES", "long-enough-value"],
      ["SHORT", "1234567"],
      ["NUL", "has\u0000nul-inside"],
    ] as const) {
      const r = await api(alice, "PUT", `/v1/secrets/${name}`, { value });
      expect({ name, status: r.status, code: r.body.error?.code }).toEqual({
        name,
        status: 400,
        code: "BAD_REQUEST",
      });
    }
    const big = await api(alice, "PUT", "/v1/secrets/BIG", { value: "x".repeat(32 * 1024 + 1) });
    expect(big.status).toBe(400);
    expect((await api(alice, "PUT", "/v1/secrets/NOBODY", {})).status).toBe(400);
    expect((await api(viewer, "PUT", "/v1/secrets/VIEWER_KEY", { value: "long-enough-value" })).status).toBe(
      403,
    );
    expect((await storedRows()).length).toBe(before);
  });

  it("lets admins alone set a fleet's secrets, and operators read their names", async () => {
    await createFleet("sec-fleet", { kind: "process" });
    const denied = await api(alice, "PUT", "/v1/fleets/sec-fleet/secrets/S3_KEY", {
      value: "fleet-s3-key-value",
    });
    expect(denied.status).toBe(403);
    const put = await api(ADMIN, "PUT", "/v1/fleets/sec-fleet/secrets/S3_KEY", {
      value: "fleet-s3-key-value",
    });
    expect(put.status).toBe(201);
    expect(put.body.secret).toMatchObject({ name: "S3_KEY", scope: "fleet", fleet: "sec-fleet" });
    const ls = await api(alice, "GET", "/v1/fleets/sec-fleet/secrets");
    expect(ls.body.secrets.map((s: { name: string }) => s.name)).toEqual(["S3_KEY"]);
    expect(JSON.stringify(ls.body)).not.toContain("fleet-s3-key-value");
    const none = await api(ADMIN, "DELETE", "/v1/fleets/sec-fleet/secrets/NOPE");
    expect(none.body.error.code).toBe("SECRET_NOT_FOUND");
  });
});

describe("secrets in a job", () => {
  it("refuses a job naming a secret nobody set, leaving nothing behind", async () => {
    await createFleet("sec-missing", { kind: "process" });
    const spec = { ...(await customSpec({ fleet: "sec-missing", gpus: 1 })), secrets: ["NOT_SET_ANYWHERE"] };
    const res = await expectRejectedWithoutResidue(
      "sec-missing",
      () => api(alice, "POST", "/v1/jobs", spec),
      422,
      "SECRET_MISSING",
    );
    expect(res.body.error.message).toContain("sf secret set NOT_SET_ANYWHERE");
    const bad = { ...(await customSpec({ fleet: "sec-missing", gpus: 1 })), secrets: ["SF_RUN_ID"] };
    expect((await api(alice, "POST", "/v1/jobs", bad)).body.error.code).toBe("INVALID_SPEC");
  });

  it("gives the run its own secret over the fleet's, only in the LaunchRequest, and masks it in stored logs", async () => {
    const fleet = await createFleet("sec-run", { kind: "process" });
    await api(ADMIN, "PUT", "/v1/fleets/sec-run/secrets/S3_KEY", { value: "fleet-s3-key-value" });
    await api(ADMIN, "PUT", "/v1/fleets/sec-run/secrets/HF_TOKEN", { value: "fleet-hf-token-value" });
    const agent = await connectedAgent("sec-run", "sec-box", 2);

    const spec = { ...(await customSpec({ fleet: "sec-run", gpus: 1 })), secrets: ["HF_TOKEN", "S3_KEY"] };
    const sub = await api(alice, "POST", "/v1/jobs", spec);
    expect(sub.status).toBe(201);
    const launch = await agent.next("launch");
    // alice's HF_TOKEN (set above to HF + "x") wins over the fleet's; S3_KEY comes from the fleet.
    expect(launch.request.secrets).toEqual({ HF_TOKEN: `${HF}x`, S3_KEY: "fleet-s3-key-value" });
    expect(launch.request.env).not.toHaveProperty("HF_TOKEN");

    const req = launch.request;
    const token = await runToken({
      runId: req.run_id,
      jobId: req.job_id,
      fleetId: fleet.id,
      epoch: req.epoch,
    });
    const lines = [`token is ${HF}x here`, "s3=fleet-s3-key-value;", "nothing secret"];
    const put = await ingest(token, "/logs", { run_id: req.run_id, seq: 0, chunks: lines, eof: true });
    expect(put.status).toBe(200);
    const read = await api(alice, "GET", `/v1/jobs/${req.job_id}/logs?run=${req.run_id}`);
    expect(read.body.lines.map((l: LogLine) => l.line)).toEqual([
      "token is *** here",
      "s3=***;",
      "nothing secret",
    ]);

    // No read route returns a value: the job, its runs and events, the fleet.
    for (const path of [`/v1/jobs/${req.job_id}`, "/v1/jobs", "/v1/fleets/sec-run"]) {
      const r = await api(ADMIN, "GET", path);
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain("fleet-s3-key-value");
      expect(JSON.stringify(r.body)).not.toContain(HF);
    }
    agent.close();
  });
});

describe("HuggingFace preflight with the submitter's HF_TOKEN", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const GRANTED = "hf_GrantedGrantedGrantedGranted0001";
  const hub = () =>
    installHubStub([
      { kind: "model", id: "acme/gated-70b", gated: "manual", grantedTokens: [GRANTED] },
      { kind: "model", id: "acme/public-7b" },
    ]);

  it("a gated model: refused without a token, refused with one not granted, admitted with a granted one that the job then gets", async () => {
    const stub = hub();
    const carol = await createUser("sec-carol");
    await createFleet("sec-hf", { kind: "process" });
    const spec = await customSpec({ fleet: "sec-hf", gpus: 1, model: { hf_repo: "acme/gated-70b" } });

    const none = await api(carol, "POST", "/v1/jobs", spec);
    expect(none.body.error.code).toBe("HF_TOKEN_REQUIRED");
    expect(none.body.error.message).toContain("sf secret set HF_TOKEN");

    await api(carol, "PUT", "/v1/secrets/HF_TOKEN", { value: "hf_NotGrantedNotGrantedNotGranted01" });
    const denied = await api(carol, "POST", "/v1/jobs", spec);
    expect(denied.body.error.code).toBe("HF_ACCESS_DENIED");
    expect(denied.body.error.message).toContain("http://hf-hub.test/acme/gated-70b");

    await api(carol, "PUT", "/v1/secrets/HF_TOKEN", { value: GRANTED });
    const agent = await connectedAgent("sec-hf", "sec-hf-box", 1);
    const ok = await api(carol, "POST", "/v1/jobs", spec);
    expect(ok.status).toBe(201);
    // The job did not name HF_TOKEN; it names a HuggingFace model, so it gets the token the preflight used.
    const launch = await agent.next("launch");
    expect(launch.request.secrets).toEqual({ HF_TOKEN: GRANTED });
    expect(launch.request.spec.secrets).toEqual(["HF_TOKEN"]);
    expect(stub.requests.filter((r) => r.endsWith("/auth-check"))).toHaveLength(2);
    agent.close();
  });

  it("a job that names no HuggingFace repo does not get the submitter's HF_TOKEN", async () => {
    hub();
    const dave = await createUser("sec-dave");
    await api(dave, "PUT", "/v1/secrets/HF_TOKEN", { value: GRANTED });
    await createFleet("sec-nohf", { kind: "process" });
    const agent = await connectedAgent("sec-nohf", "sec-nohf-box", 1);
    expect(
      (await api(dave, "POST", "/v1/jobs", await customSpec({ fleet: "sec-nohf", gpus: 1 }))).status,
    ).toBe(201);
    expect((await agent.next("launch")).request.secrets).toEqual({});
    agent.close();
  });

  it("while the hub is down: refused by default, admitted unchecked on a fleet set to admit", async () => {
    const stub = hub();
    stub.unreachable = true;
    await createFleet("sec-hf-closed", { kind: "process" });
    const f = await createFleet("sec-hf-open", { kind: "process", hf_unavailable: "admit" });
    expect(f).toMatchObject({ name: "sec-hf-open" });
    const model = { hf_repo: "acme/public-7b" };
    const submitTo = async (fleet: string) =>
      api(alice, "POST", "/v1/jobs", await customSpec({ fleet, gpus: 1, model }));
    const closed = await submitTo("sec-hf-closed");
    expect({ status: closed.status, code: closed.body.error.code }).toEqual({
      status: 503,
      code: "HF_UNAVAILABLE",
    });
    expect((await submitTo("sec-hf-open")).status).toBe(201);
    expect((await api(ADMIN, "GET", "/v1/fleets/sec-hf-open")).body.fleet.hf_unavailable).toBe("admit");
    const patched = await api(ADMIN, "PATCH", "/v1/fleets/sec-hf-open", { hf_unavailable: "refuse" });
    expect(patched.body.fleet.hf_unavailable).toBe("refuse");
    expect((await submitTo("sec-hf-open")).status).toBe(503);
  });
});

describe("rotating SF_SECRETS_KEY", () => {
  it("rewraps every value under the new key while the old one is listed, then opens them without it", async () => {
    const { createExecutionContext, env, waitOnExecutionContext } = await import("cloudflare:test");
    const { default: worker } = await import("../../worker/index.js");
    const { openSecret, secretKeyring } = await import("../../d1/secret-box.js");
    const OLD = testEnv.SF_SECRETS_KEY as string;
    const NEW = "bmV3LXNlY3JldHMta2V5LTMyLWJ5dGVzLWxvbmchISE";
    await api(alice, "PUT", "/v1/secrets/ROTATE_ME", { value: "value-before-rotation" });
    const rewrap = async (current: string, old: string) => {
      const ctx = createExecutionContext();
      const res = await described(
        "POST",
        "http://sf.test/v1/secrets/rewrap",
        await worker.fetch(
          new Request("http://sf.test/v1/secrets/rewrap", {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN}` },
          }) as Request<unknown, IncomingRequestCfProperties>,
          { ...(env as object), SF_SECRETS_KEY: current, SF_SECRETS_OLD_KEYS: old } as never,
          ctx,
        ),
      );
      await waitOnExecutionContext(ctx);
      return { status: res.status, body: (await res.json()) as { key_id: string; rewrapped: number } };
    };
    const newRing = await secretKeyring(NEW, undefined)!;
    const forward = await rewrap(NEW, OLD);
    expect(forward.status).toBe(200);
    expect(forward.body.key_id).toBe(newRing.current.id);
    expect(forward.body.rewrapped).toBeGreaterThan(0);
    const rows = await storedRows();
    expect(rows.every((r) => r.key_id === newRing.current.id)).toBe(true);
    const row = rows.find((r) => r.name === "ROTATE_ME")!;
    const at = { scope: "user" as const, ownerId: row.owner_id!, name: "ROTATE_ME" };
    expect(await openSecret(newRing, at, { keyId: row.key_id!, sealed: row.sealed! })).toBe(
      "value-before-rotation",
    );
    // Again: nothing left to do. Then back to the suite's key, so the other tests open their values.
    expect((await rewrap(NEW, OLD)).body.rewrapped).toBe(0);
    expect((await rewrap(OLD, NEW)).body.rewrapped).toBe(rows.length);
    const viewer = await createUser("sec-rot-viewer", "viewer");
    expect((await api(viewer, "POST", "/v1/secrets/rewrap")).status).toBe(403);
  });
});
