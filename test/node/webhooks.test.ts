/**
 * Tier 3, signed webhooks end to end: the real control plane (the node project's shared one, no agent) sends
 * job events to real node:http receivers on loopback. Jobs wait QUEUED in a fleet of this file's own with
 * no nodes and are stopped, which gives a `job.queued` and a terminal `job.stopped` event without GPUs. Deliveries are
 * checked with the verifiers exactly as docs/operations.md prints them.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { baseSpec, recipeDigest } from "../support/jobs.js";
import {
  newFleet,
  newUser,
  sharedControlPlane,
  sharedControlPlaneVars,
} from "../support/shared-control-plane.js";
import {
  documentedVerifier,
  type Receiver,
  startReceiver,
  type Verifier,
  verifyWithPython,
} from "../support/webhook-receiver.js";

/** The shared plane's SF_WEBHOOK_MAX_ATTEMPTS (test/support/global-control-plane.ts sets it for this file). */
const MAX_ATTEMPTS = Number(sharedControlPlaneVars().SF_WEBHOOK_MAX_ATTEMPTS);

let cp: ControlPlane;
let fleet = "";
let ada = "";
let bob = "";
let digest = "";
let verify: Verifier;
const receivers: Receiver[] = [];
const hooks: Array<{ token: string; id: string }> = [];

interface Delivery {
  id: string;
  type: string;
  state: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: Array<{ n: number; status_code: number | null; error: string | null; duration_ms: number }>;
}

beforeAll(async () => {
  cp = sharedControlPlane();
  // The retry timing the file's tests watch.
  expect(sharedControlPlaneVars()).toMatchObject({ SF_WEBHOOK_RETRY_SECONDS: "1" });
  expect(MAX_ATTEMPTS).toBeGreaterThan(1);
  fleet = await newFleet(cp, "hooks");
  ada = (await newUser(cp, "ada")).token;
  bob = (await newUser(cp, "bob")).token;
  digest = await recipeDigest(cp, ada, "python/charlm");
  verify = await documentedVerifier();
});

// Each test's endpoints go with it, so no later job event reaches a closed receiver.
afterEach(async () => {
  for (const h of hooks.splice(0)) await call(cp, h.token, "DELETE", `/v1/webhooks/${h.id}`);
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(answer: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function addWebhook(token: string, url: string, events: string[]) {
  const r = await call(cp, token, "POST", "/v1/webhooks", { url, events });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const id = (r.body.webhook as { id: string }).id;
  hooks.push({ token, id });
  return { id, secret: String(r.body.secret) };
}

/** A job that waits QUEUED (no node in this file's fleet) and is then stopped: events 1 (queued) and 2 (stopped). */
async function submitAndStop(token: string, name: string): Promise<{ job: string; ms: number[] }> {
  const spec = baseSpec({
    name,
    fleet,
    recipe: { name: "python/charlm", version: "1.0.0", digest },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
  });
  let t = Date.now();
  const sub = await call(cp, token, "POST", "/v1/jobs", spec);
  const submitMs = Date.now() - t;
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  const job = (sub.body.job as { id: string }).id;
  t = Date.now();
  const stop = await call(cp, token, "POST", `/v1/jobs/${job}/stop`, { reason: "webhook test" });
  const stopMs = Date.now() - t;
  expect((stop.body.job as { status: string }).status).toBe("STOPPED");
  return { job, ms: [submitMs, stopMs] };
}

async function deliveries(token: string, hook: string): Promise<Delivery[]> {
  const r = await call(cp, token, "GET", `/v1/webhooks/${hook}/deliveries`);
  expect(r.status).toBe(200);
  return r.body.deliveries as Delivery[];
}

async function waitForDelivery(
  token: string,
  hook: string,
  id: string,
  done: (d: Delivery) => boolean,
  timeoutMs = 30_000,
): Promise<Delivery> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(cp, token, "GET", `/v1/webhooks/${hook}/deliveries/${id}`);
    const d = r.body.delivery as Delivery | undefined;
    if (d && done(d)) return d;
    if (Date.now() > deadline)
      throw new Error(`delivery ${id} not done in ${timeoutMs} ms: ${JSON.stringify(d)}`);
    await new Promise((ok) => setTimeout(ok, 200));
  }
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const header = (r: { headers: Record<string, unknown> }, name: string) => String(r.headers[name]);

describe("signed webhooks to a loopback receiver", () => {
  it("signs job.queued and the terminal job.stopped so both documented verifiers accept them, and rejects tampering, a wrong secret and a 6-minute-old timestamp", async () => {
    const rx = await receiver(() => 204);
    const hook = await addWebhook(ada, rx.url, ["*"]);
    const { job } = await submitAndStop(ada, "signed");
    const got = await rx.waitFor(2);

    const events = got.map((r) => verify(hook.secret, r.headers, r.body));
    expect(events.map((e) => [e.id, e.type]).sort()).toEqual([
      [`evt_${job}_1`, "job.queued"],
      [`evt_${job}_2`, "job.stopped"],
    ]);
    const stopped = got.find((r) => header(r, "starforge-webhook-id") === `evt_${job}_2`)!;
    expect(verify(hook.secret, stopped.headers, stopped.body).data).toMatchObject({
      job: { id: job, name: "signed", status: "STOPPED" },
      transition: { seq: 2, from: "QUEUED", to: "STOPPED", edge: "stop_queued" },
      reason: "webhook test",
    });
    expect(header(stopped, "starforge-webhook-signature")).toMatch(/^v1=[0-9a-f]{64}$/);
    for (const r of got)
      expect(verifyWithPython(hook.secret, r)).toEqual({ id: header(r, "starforge-webhook-id") });

    const tampered = Buffer.from(stopped.body.toString().replace('"STOPPED"', '"SUCCEEDED"'));
    const sixMinutesLater = Number(header(stopped, "starforge-webhook-timestamp")) * 1000 + 6 * 60_000;
    expect(() => verify(hook.secret, stopped.headers, tampered)).toThrow(/Signature/);
    expect(() => verify(`${hook.secret}x`, stopped.headers, stopped.body)).toThrow(/Signature/);
    expect(() => verify(hook.secret, stopped.headers, stopped.body, sixMinutesLater)).toThrow(/Timestamp/);
    expect(verifyWithPython(hook.secret, { ...stopped, body: tampered }).error).toMatch(/Signature/);

    const listed = await deliveries(ada, hook.id);
    expect(listed.map((d) => [d.id, d.state, d.attempts, d.last_status_code]).sort()).toEqual([
      [`evt_${job}_1`, "delivered", 1, 204],
      [`evt_${job}_2`, "delivered", 1, 204],
    ]);
  });

  it("retries a receiver answering 500, 500, 200: exactly 3 attempts ≥1 s and ≥2 s apart, none in the 6 s after, listed as 500, 500, 200", async () => {
    const rx = await receiver((_r, i) => (i < 2 ? 500 : 200));
    const hook = await addWebhook(ada, rx.url, ["job.stopped"]);
    const { job } = await submitAndStop(ada, "flaky");
    const got = await rx.waitFor(3);
    await sleep(6_000);

    expect(rx.requests).toHaveLength(3);
    expect(got.map((r) => header(r, "starforge-webhook-id"))).toEqual(Array(3).fill(`evt_${job}_2`));
    expect(new Set(got.map((r) => r.body.toString())).size).toBe(1);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(900);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(1_900);
    for (const r of got) verify(hook.secret, r.headers, r.body);

    const [d] = await deliveries(ada, hook.id);
    expect(d).toMatchObject({ id: `evt_${job}_2`, state: "delivered", attempts: 3, last_status_code: 200 });
    expect(d!.attempt_log.map((a) => [a.n, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
  });

  it(`gives up after SF_WEBHOOK_MAX_ATTEMPTS=${MAX_ATTEMPTS} attempts of 500, then a redelivery starts a fresh budget and delivers on attempt ${MAX_ATTEMPTS + 1}`, async () => {
    let healthy = false;
    const rx = await receiver(() => (healthy ? 200 : 500));
    const hook = await addWebhook(ada, rx.url, ["job.stopped"]);
    const { job } = await submitAndStop(ada, "broken");
    await rx.waitFor(MAX_ATTEMPTS, 30_000);
    const failed = await waitForDelivery(ada, hook.id, `evt_${job}_2`, (d) => d.state === "failed");
    await sleep(5_000);
    expect(rx.requests).toHaveLength(MAX_ATTEMPTS);
    expect(failed).toMatchObject({ attempts: MAX_ATTEMPTS, last_status_code: 500 });

    healthy = true;
    const again = await call(cp, ada, "POST", `/v1/webhooks/${hook.id}/deliveries/evt_${job}_2/redeliver`);
    expect(again.status).toBe(202);
    const delivered = await waitForDelivery(ada, hook.id, `evt_${job}_2`, (d) => d.state === "delivered");
    expect(delivered.attempt_log.map((a) => a.status_code)).toEqual([...Array(MAX_ATTEMPTS).fill(500), 200]);
    expect(rx.requests).toHaveLength(MAX_ATTEMPTS + 1);
  });

  it("lets a receiver that dedupes by StarForge-Webhook-Id process a redelivered event once (2 requests, 1 processed)", async () => {
    const processed: string[] = [];
    const seen = new Set<string>();
    let hookSecret = "";
    const rx = await receiver((r) => {
      const event = verify(hookSecret, r.headers, r.body);
      if (!seen.has(event.id)) {
        seen.add(event.id);
        processed.push(`${event.id} ${event.type}`);
      }
      return 200;
    });
    const hook = await addWebhook(ada, rx.url, ["job.stopped"]);
    hookSecret = hook.secret;
    const { job } = await submitAndStop(ada, "dedupe");
    await rx.waitFor(1);
    await waitForDelivery(ada, hook.id, `evt_${job}_2`, (d) => d.state === "delivered");

    const again = await call(cp, ada, "POST", `/v1/webhooks/${hook.id}/deliveries/evt_${job}_2/redeliver`);
    expect(again.status).toBe(202);
    const got = await rx.waitFor(2);
    const d = await waitForDelivery(ada, hook.id, `evt_${job}_2`, (x) => x.attempts === 2);

    expect(got.map((r) => header(r, "starforge-webhook-id"))).toEqual([`evt_${job}_2`, `evt_${job}_2`]);
    expect(got[1]!.body.equals(got[0]!.body)).toBe(true);
    expect(processed).toEqual([`evt_${job}_2 job.stopped`]);
    expect(d).toMatchObject({ state: "delivered", attempts: 2 });
  });

  it("sends a signed webhook.test from the test endpoint", async () => {
    const rx = await receiver(() => 200);
    const hook = await addWebhook(ada, rx.url, ["job.succeeded"]);
    const sent = await call(cp, ada, "POST", `/v1/webhooks/${hook.id}/test`);
    expect(sent.status).toBe(202);
    const [r] = await rx.waitFor(1);
    const event = verify(hook.secret, r!.headers, r!.body);
    expect(event).toMatchObject({ type: "webhook.test", data: { webhook_id: hook.id } });
    expect(event.id).toBe((sent.body.delivery as { id: string }).id);
    await waitForDelivery(
      ada,
      hook.id,
      event.id,
      (d) => d.state === "delivered" && d.last_status_code === 200,
    );
  });

  it("keeps users apart: bob's webhook is 404 to ada and gets none of her 2 events", async () => {
    const mine = await receiver(() => 200);
    const his = await receiver(() => 200);
    const adaHook = await addWebhook(ada, mine.url, ["*"]);
    const bobHook = await addWebhook(bob, his.url, ["*"]);

    const peek = await call(cp, ada, "GET", `/v1/webhooks/${bobHook.id}`);
    expect({ status: peek.status, code: (peek.body.error as { code: string }).code }).toEqual({
      status: 404,
      code: "WEBHOOK_NOT_FOUND",
    });
    const listed = (await call(cp, ada, "GET", "/v1/webhooks")).body.webhooks as Array<{ id: string }>;
    expect(listed.map((w) => w.id)).not.toContain(bobHook.id);

    await submitAndStop(ada, "private");
    await mine.waitFor(2);
    await sleep(2_000);
    expect(mine.requests.map((r) => header(r, "starforge-webhook-id"))).toHaveLength(2);
    expect(his.requests).toHaveLength(0);
    expect(adaHook.id).not.toBe(bobHook.id);
  });

  it("never holds up scheduling: with a receiver that never answers, submit and stop take < 2 s each, the attempt fails after 10 s and bob's delivery goes through meanwhile", async () => {
    const silent = await receiver(() => "hang");
    const hook = await addWebhook(ada, silent.url, ["*"]);
    const { job, ms } = await submitAndStop(ada, "silent");
    expect(Math.max(...ms)).toBeLessThan(2_000);
    await silent.waitFor(1);

    const bobs = await receiver(() => 200);
    const bobHook = await addWebhook(bob, bobs.url, ["*"]);
    await call(cp, bob, "POST", `/v1/webhooks/${bobHook.id}/test`);
    const [b] = await bobs.waitFor(1, 5_000);
    expect(Date.now() - b!.at).toBeLessThan(5_000);

    const first = await waitForDelivery(ada, hook.id, `evt_${job}_1`, (d) => d.attempts >= 1, 20_000);
    expect(first.attempt_log[0]).toMatchObject({ status_code: null, error: "no response within 10 s" });
    expect(first.attempt_log[0]!.duration_ms).toBeGreaterThanOrEqual(9_900);
  });
});
