/**
 * Tier 3: `sf webhook add|ls|test|deliveries|redeliver|rotate-secret|rm` against the shared control plane,
 * as users of this file's own (a user sees only her own webhooks and their deliveries). It depends on no
 * retry delay (SF_WEBHOOK_RETRY_SECONDS): `sf webhook test` waits for the first attempt only, and a
 * redelivery is sent at once, so the failed test event ends delivered (500 first, 200 last) whether or not
 * an automatic retry comes before it; with the default delay (30 s) the redelivery is what delivers it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { documentedVerifier, type Receiver, startReceiver } from "../support/webhook-receiver.js";

let cp: ControlPlane;
let ada: SfEnv;
let bob: SfEnv;
let rx: Receiver;
/** What the receiver answers next; the test flips it. */
let answer = 200;

const as = (token: string): SfEnv => ({ home: newSfHome(), server: cp.url, env: { SF_TOKEN: token } });

beforeAll(async () => {
  cp = sharedControlPlane();
  ada = as((await newUser(cp, "ada")).token);
  bob = as((await newUser(cp, "bob")).token);
  rx = await startReceiver(() => answer);
});

afterAll(async () => {
  await rx?.close();
});

interface Delivery {
  id: string;
  state: string;
  attempts: number;
  attempt_log: Array<{ status_code: number | null }>;
}

describe("sf webhook", () => {
  it("adds a webhook printing only its secret on stdout, tests it (exit 0 on 200, 1 on 500), lists deliveries, redelivers and removes it", async () => {
    const added = await sf(["webhook", "add", rx.url, "--events", "job.succeeded,job.failed"], ada);
    expect(added.code, added.stderr).toBe(0);
    const secret = added.stdout.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(added.stderr).toContain("shown only once");

    const { webhooks } = await sfJson<{ webhooks: Array<{ id: string; events: string[] }> }>(
      ["webhook", "ls"],
      ada,
    );
    expect(webhooks).toHaveLength(1);
    const id = webhooks[0]!.id;
    expect(webhooks[0]!.events).toEqual(["job.succeeded", "job.failed"]);
    const table = await sf(["webhook", "list"], ada);
    expect(table.stdout).toMatch(/^ID\s+URL\s+EVENTS\s+FLEET\s+SECRET\s+AGE/m);
    expect(table.stdout).not.toContain(secret);

    const ok = await sf(["webhook", "test", id], ada);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/answered 200/);
    const [req] = await rx.waitFor(1);
    const verify = await documentedVerifier();
    expect(verify(secret, req!.headers, req!.body).type).toBe("webhook.test");

    answer = 500;
    const bad = await sf(["webhook", "test", id], ada);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/answered 500.*\[WEBHOOK_TEST_FAILED\]/);
    const failing = /(evt_[0-9a-z]+)/.exec(bad.stderr)![1]!;

    answer = 200;
    const redelivered = await sf(["webhook", "redeliver", id, failing], ada);
    expect(redelivered.code, redelivered.stderr).toBe(0);
    let d: Delivery = { id: "", state: "", attempts: 0, attempt_log: [] };
    for (let i = 0; i < 60 && d.state !== "delivered"; i++) {
      await new Promise((r) => setTimeout(r, 250));
      d = (await sfJson<{ delivery: Delivery }>(["webhook", "deliveries", id, failing], ada)).delivery;
    }
    expect(d.state).toBe("delivered");
    expect(d.attempt_log[0]!.status_code).toBe(500);
    expect(d.attempt_log.at(-1)!.status_code).toBe(200);

    const list = await sf(["webhook", "deliveries", id], ada);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^EVENT\s+TYPE\s+STATE\s+ATTEMPTS\s+LAST\s+CODES\s+AGE/m);
    expect(list.stdout).toMatch(
      new RegExp(`^${failing}\\s+webhook\\.test\\s+delivered\\s+\\d+\\s+200\\s+500 `, "m"),
    );

    const rotated = await sf(["webhook", "rotate-secret", id], ada);
    expect(rotated.stdout.trim()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.stdout.trim()).not.toBe(secret);

    const foreign = await sf(["webhook", "deliveries", id], bob);
    expect(foreign.code).toBe(4);
    expect(foreign.stderr).toContain("WEBHOOK_NOT_FOUND");

    expect((await sf(["webhook", "rm", id], ada)).code).toBe(0);
    expect((await sfJson<{ webhooks: unknown[] }>(["webhook", "ls"], ada)).webhooks).toEqual([]);
  });

  it("refuses a bad URL or event with exit 5 and a bad --state with exit 2", async () => {
    const url = await sf(["webhook", "add", "ftp://example.org/x"], ada);
    expect(url.code).toBe(5);
    expect(url.stderr).toContain("INVALID_WEBHOOK_URL");
    const ev = await sf(["webhook", "add", rx.url, "--events", "job.done"], ada);
    expect(ev.code).toBe(5);
    expect(ev.stderr).toContain("INVALID_WEBHOOK_EVENT");
    const state = await sf(["webhook", "deliveries", "wh_x", "--state", "lost"], ada);
    expect(state.code).toBe(2);
  });
});
