/**
 * Tier 3, Standard Webhooks end to end: the real control plane (scripts/start.mjs → workerd, no agent) sends job
 * events to real node:http receivers on loopback, and every delivery is checked by code that is not
 * StarForge's: the `standardwebhooks` npm package through the snippet docs/api.md prints, and the Python
 * verifier written from the specification. Jobs wait QUEUED in the agent-less `local` fleet and are
 * stopped, which gives a `job.queued` and a `job.stopped` event without GPUs.
 *
 * Its own control plane, not the project's shared one: it restarts the plane on the same state directory (a
 * delivery survives the restart).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mintWebhookSecret } from "../../contract/webhook-signature.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { baseSpec, recipeDigest } from "../support/jobs.js";
import {
  documentedVerifier,
  type ReceivedRequest,
  type Receiver,
  startReceiver,
} from "../support/webhook-receiver.js";
import {
  apiDocSnippet,
  documentedLibraryVerifier,
  headerMap,
  type LibraryVerifier,
  specVerifierFunction,
  verifyWithSpecPython,
} from "../support/webhook-verifiers.js";

const ROOT = resolve(import.meta.dirname, "../..");
/** Kept across a restart of the control plane (the legacy-secret test upgrades it in place). */
const stateDir = mkdtempSync(join(tmpdir(), "sf-cp-std-"));
const options = { stateDir, agent: false, vars: { SF_WEBHOOK_RETRY_SECONDS: 1 } };

let cp: ControlPlane;
let ada = "";
let digest = "";
let verify: LibraryVerifier;
const receivers: Receiver[] = [];
const hooks: string[] = [];

beforeAll(async () => {
  cp = await startControlPlane(options);
  const r = await call(cp, cp.adminToken, "POST", "/v1/users", { name: "ada", role: "operator" });
  ada = String(r.body.token);
  digest = await recipeDigest(cp, ada, "python/charlm");
  verify = await documentedLibraryVerifier();
});

afterEach(async () => {
  vi.useRealTimers();
  for (const id of hooks.splice(0)) await call(cp, ada, "DELETE", `/v1/webhooks/${id}`);
  for (const r of receivers.splice(0)) await r.close();
});

afterAll(async () => {
  await cp?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

async function receiver(answer: Parameters<typeof startReceiver>[0] = () => 204): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function addWebhook(url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const r = await call(cp, ada, "POST", "/v1/webhooks", { url, events });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const id = (r.body.webhook as { id: string }).id;
  hooks.push(id);
  return { id, secret: String(r.body.secret) };
}

async function rotate(id: string): Promise<string> {
  const r = await call(cp, ada, "POST", `/v1/webhooks/${id}/rotate-secret`);
  expect(r.status).toBe(200);
  return String(r.body.secret);
}

async function sendTest(id: string): Promise<string> {
  const r = await call(cp, ada, "POST", `/v1/webhooks/${id}/test`);
  expect(r.status).toBe(202);
  return (r.body.delivery as { id: string }).id;
}

async function submitAndStop(name: string): Promise<string> {
  const spec = baseSpec({
    name,
    fleet: "local",
    recipe: { name: "python/charlm", version: "1.0.0", digest },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
  });
  const sub = await call(cp, ada, "POST", "/v1/jobs", spec);
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  const job = (sub.body.job as { id: string }).id;
  const stop = await call(cp, ada, "POST", `/v1/jobs/${job}/stop`, { reason: "standard webhooks" });
  expect((stop.body.job as { status: string }).status).toBe("STOPPED");
  return job;
}

const h = (r: ReceivedRequest, name: string) => headerMap(r.headers)[name];
const eventId = (r: ReceivedRequest) => (JSON.parse(r.body.toString()) as { id: string }).id;

describe("Standard Webhooks deliveries", () => {
  it("signs job.queued and job.stopped so the standardwebhooks library (docs/api.md's snippet) and the spec's Python verifier accept them; webhook-id is the event id", async () => {
    const rx = await receiver();
    const hook = await addWebhook(rx.url, ["*"]);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const job = await submitAndStop("standard");
    const got = await rx.waitFor(2);

    const events = got.map((r) => verify(hook.secret, r.body, r.headers) as { id: string; type: string });
    expect(events.map((e) => [e.id, e.type]).sort()).toEqual([
      [`evt_${job}_1`, "job.queued"],
      [`evt_${job}_2`, "job.stopped"],
    ]);
    for (const r of got) {
      expect(h(r, "webhook-id")).toBe(eventId(r));
      expect(h(r, "webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Math.abs(Number(h(r, "webhook-timestamp")) - Date.now() / 1000)).toBeLessThan(60);
      expect(verifyWithSpecPython(hook.secret, r)).toEqual({ id: eventId(r) });
    }
  });

  it("is refused by both verifiers when the body is tampered with, the secret is another or the timestamp is 6 minutes old", async () => {
    const rx = await receiver();
    const hook = await addWebhook(rx.url, ["job.stopped"]);
    await submitAndStop("tampered");
    const [r] = await rx.waitFor(1);
    const tampered = { ...r!, body: Buffer.from(r!.body.toString().replace('"STOPPED"', '"SUCCEEDED"')) };
    expect(tampered.body.equals(r!.body)).toBe(false);

    expect(() => verify(hook.secret, tampered.body, r!.headers)).toThrow(/No matching signature/);
    expect(() => verify(mintWebhookSecret(), r!.body, r!.headers)).toThrow(/No matching signature/);
    expect(verifyWithSpecPython(hook.secret, tampered).error).toMatch(/no webhook-signature entry matches/);
    expect(verifyWithSpecPython(mintWebhookSecret(), r!).error).toMatch(/no webhook-signature entry matches/);

    const sixMinutesLater = Number(h(r!, "webhook-timestamp")) * 1000 + 6 * 60_000;
    expect(verifyWithSpecPython(hook.secret, r!, { now: sixMinutesLater / 1000 }).error).toMatch(
      /more than 5 minutes away/,
    );
    // The library reads the clock itself: move this process's Date (only Date) 6 minutes on.
    vi.useFakeTimers({ toFake: ["Date"], now: sixMinutesLater });
    expect(() => verify(hook.secret, r!.body, r!.headers)).toThrow(/timestamp too old/);
    vi.useRealTimers();
    expect(verify(hook.secret, r!.body, r!.headers)).toMatchObject({ type: "job.stopped" });
  });

  it("keeps webhook-id across retries: a receiver answering 500 then 200 gets the same id and body twice, each attempt verifiable", async () => {
    const rx = await receiver((_r, i) => (i === 0 ? 500 : 200));
    const hook = await addWebhook(rx.url, ["job.stopped"]);
    const job = await submitAndStop("retried");
    const got = await rx.waitFor(2);
    expect(got.map((r) => h(r, "webhook-id"))).toEqual([`evt_${job}_2`, `evt_${job}_2`]);
    expect(got[1]!.body.equals(got[0]!.body)).toBe(true);
    for (const r of got) {
      expect(verify(hook.secret, r.body, r.headers)).toMatchObject({ id: `evt_${job}_2` });
      expect(verifyWithSpecPython(hook.secret, r)).toEqual({ id: `evt_${job}_2` });
    }
  });

  it("during a rotation signs with both secrets: two space-separated v1 entries, either secret verifies with the library and with Python, a third does not", async () => {
    const rx = await receiver();
    const hook = await addWebhook(rx.url, ["job.succeeded"]);
    const fresh = await rotate(hook.id);
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = await sendTest(hook.id);
    const [r] = await rx.waitFor(1);

    expect(h(r!, "webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    for (const secret of [fresh, hook.secret]) {
      expect(verify(secret, r!.body, r!.headers)).toMatchObject({ id, type: "webhook.test" });
      expect(verifyWithSpecPython(secret, r!)).toEqual({ id });
    }
    expect(() => verify(mintWebhookSecret(), r!.body, r!.headers)).toThrow(/No matching signature/);
    expect(verifyWithSpecPython(mintWebhookSecret(), r!).error).toMatch(/no webhook-signature entry matches/);
  });

  it("keeps sending the deprecated StarForge-Webhook-* headers unchanged: operations.md's verifier accepts them, both secrets during a rotation", async () => {
    const legacyVerify = await documentedVerifier();
    const rx = await receiver();
    const hook = await addWebhook(rx.url, ["job.succeeded"]);
    const fresh = await rotate(hook.id);
    await sendTest(hook.id);
    const [r] = await rx.waitFor(1);
    expect(h(r!, "starforge-webhook-id")).toBe(h(r!, "webhook-id"));
    expect(h(r!, "starforge-webhook-timestamp")).toBe(h(r!, "webhook-timestamp"));
    expect(h(r!, "starforge-webhook-signature")).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const secret of [fresh, hook.secret])
      expect(legacyVerify(secret, r!.headers, r!.body).type).toBe("webhook.test");
  });

  it("prints in docs/api.md exactly the Python verifier these tests run", () => {
    expect(apiDocSnippet("python", "def verify_standard_webhook")).toBe(specVerifierFunction());
  });

  // Last: it restarts the control plane.
  it("keeps an endpoint whose secret predates Standard Webhooks verifying after an upgrade (old verifier, library with the raw key) until a rotation gives it a whsec_ secret", async () => {
    const rx = await receiver();
    const hook = await addWebhook(rx.url, ["job.succeeded"]);
    // As a webhook created before this release stored it: whsec_ + 43 base64url characters.
    const legacy = `whsec_${randomBytes(32).toString("base64url")}`;
    await cp.stop();
    setStoredSecret(hook.id, legacy);
    cp = await startControlPlane(options);

    const legacyVerify = await documentedVerifier();
    const rawKey = new Webhook(Buffer.from(legacy), { format: "raw" });
    const first = await sendTest(hook.id);
    const [r1] = await rx.waitFor(1);
    expect(legacyVerify(legacy, r1!.headers, r1!.body).id).toBe(first);
    expect(rawKey.verify(r1!.body, headerMap(r1!.headers))).toMatchObject({ id: first });
    expect(verifyWithSpecPython(legacy, r1!, { raw: true })).toEqual({ id: first });

    const fresh = await rotate(hook.id);
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const second = await sendTest(hook.id);
    const [, r2] = await rx.waitFor(2);
    expect(verify(fresh, r2!.body, r2!.headers)).toMatchObject({ id: second });
    expect(rawKey.verify(r2!.body, headerMap(r2!.headers))).toMatchObject({ id: second });
    expect(verifyWithSpecPython(fresh, r2!)).toEqual({ id: second });
    for (const secret of [fresh, legacy]) expect(legacyVerify(secret, r2!.headers, r2!.body).id).toBe(second);
  });
});

/** Writes an endpoint's stored secret into the stopped control plane's local D1, as wrangler does. */
function setStoredSecret(id: string, secret: string): void {
  const sql = `UPDATE webhooks SET secret = '${secret}' WHERE id = '${id}' RETURNING id`;
  const wrangler = join(ROOT, "node_modules", ".bin", "wrangler");
  const persist = join(stateDir, "state");
  const r = spawnSync(
    wrangler,
    ["d1", "execute", "DB", "--local", "--persist-to", persist, "--json", "--command", sql],
    {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    },
  );
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  const [result] = JSON.parse(r.stdout) as Array<{ results: unknown[] }>;
  expect(result!.results).toEqual([{ id }]);
}
