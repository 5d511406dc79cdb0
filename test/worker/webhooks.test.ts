/**
 * Webhooks inside workerd: the routes (validation, coded errors, the secret shown once, ownership) and
 * the fan-out of job events into deliveries by the Fleet DO's outbox. Endpoints point at a closed loopback
 * port, so the dispatcher's real attempts fail fast and nothing leaves the machine; the receiver's side
 * (signatures, retries, redelivery) is tier 3 (test/node/webhooks.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { toStatements } from "../../durable-objects/fleet/outbox.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { testEnv } from "./test-env.js";

/** Nothing listens on the discard port of loopback: every attempt is refused at once. */
const CLOSED = "http://127.0.0.1:9";

// Without endpoints the dispatchers stop retrying (each refused attempt makes workerd log the refusal).
afterEach(async () => {
  await testEnv.DB.batch([
    testEnv.DB.prepare("DELETE FROM webhook_deliveries"),
    testEnv.DB.prepare("DELETE FROM webhooks"),
  ]);
});

async function addHook(token: string, body: Record<string, unknown>) {
  const r = await api(token, "POST", "/v1/webhooks", { url: `${CLOSED}/hook`, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.webhook as { id: string; user_id: string };
}

async function deliveries(token: string, hook: string): Promise<Array<Record<string, unknown>>> {
  const r = await api(token, "GET", `/v1/webhooks/${hook}/deliveries`);
  expect(r.status).toBe(200);
  return r.body.deliveries;
}

describe("webhook routes", () => {
  it("shows the secret once: 201 carries whsec_…, every later read only its 12-character prefix", async () => {
    const op = await createUser("wh-once");
    const created = await api(op, "POST", "/v1/webhooks", { url: "https://hooks.example.org/sf" });
    expect(created.status).toBe(201);
    // Standard Webhooks: whsec_ + padded base64 of 32 bytes.
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const hook = created.body.webhook;
    expect(hook).toMatchObject({
      url: "https://hooks.example.org/sf",
      events: ["job.succeeded", "job.failed", "job.stopped"],
      fleet_id: null,
      secret_prefix: created.body.secret.slice(0, 12),
    });
    expect(hook.id).toMatch(/^wh_[0-9a-z]{26}$/);

    const one = await api(op, "GET", `/v1/webhooks/${hook.id}`);
    const all = await api(op, "GET", "/v1/webhooks");
    for (const text of [JSON.stringify(one.body), JSON.stringify(all.body)]) {
      expect(text).not.toContain(created.body.secret);
    }
    expect(all.body.webhooks.map((w: { id: string }) => w.id)).toEqual([hook.id]);

    const rotated = await api(op, "POST", `/v1/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(Date.parse(rotated.body.webhook.previous_secret_expires_at) - Date.now()).toBeGreaterThan(
      23 * 3_600_000,
    );
    expect(JSON.stringify((await api(op, "GET", `/v1/webhooks/${hook.id}`)).body)).not.toContain(
      rotated.body.secret,
    );
  });

  it("refuses bad input with coded 400s and a fleet it does not know with FLEET_NOT_FOUND", async () => {
    const op = await createUser("wh-bad");
    const cases: Array<[unknown, number, string]> = [
      [{ url: "ftp://example.org/x" }, 400, "INVALID_WEBHOOK_URL"],
      [{ url: "not a url" }, 400, "INVALID_WEBHOOK_URL"],
      [{ url: "https://user:pw@example.org/x" }, 400, "INVALID_WEBHOOK_URL"],
      [{ url: "https://example.org/x", events: ["job.finished"] }, 400, "INVALID_WEBHOOK_EVENT"],
      [{ url: "https://example.org/x", events: [] }, 400, "BAD_REQUEST"],
      [{ events: ["*"] }, 400, "BAD_REQUEST"],
      [{ url: "https://example.org/x", fleet: "nowhere" }, 404, "FLEET_NOT_FOUND"],
    ];
    for (const [body, status, code] of cases) {
      const r = await api(op, "POST", "/v1/webhooks", body);
      expect({ body, status: r.status, code: r.body.error?.code }).toEqual({ body, status, code });
    }
    const unknown = await api(op, "POST", "/v1/webhooks", {
      url: "https://example.org/x",
      events: ["job.stopped", "job.finished"],
    });
    expect(unknown.body.error.details).toMatchObject({ unknown: ["job.finished"] });
    expect(unknown.body.error.details.allowed).toContain("job.succeeded");
    expect((await api(op, "GET", "/v1/webhooks")).body.webhooks).toEqual([]);

    const notJson = await api(op, "POST", "/v1/webhooks", undefined, { "content-type": "application/json" });
    expect(notJson.body.error.code).toBe("BAD_REQUEST");
    const badQuery = await api(op, "GET", `/v1/webhooks/${(await addHook(op, {})).id}/deliveries?limit=0`);
    expect(badQuery.body.error.code).toBe("BAD_REQUEST");
  });

  it("needs a token, the operator role to change anything, and hides another user's webhook (404 on all 8 routes)", async () => {
    const ada = await createUser("wh-ada");
    const bob = await createUser("wh-bob");
    const viewer = await createUser("wh-viewer", "viewer");
    const hook = await addHook(ada, { events: ["*"] });
    const test = await api(ada, "POST", `/v1/webhooks/${hook.id}/test`);
    const evt = test.body.delivery.id as string;

    expect((await api(null, "GET", "/v1/webhooks")).status).toBe(401);
    const viewerAdd = await api(viewer, "POST", "/v1/webhooks", { url: "https://example.org/x" });
    expect({ status: viewerAdd.status, code: viewerAdd.body.error.code }).toEqual({
      status: 403,
      code: "FORBIDDEN",
    });
    expect((await api(viewer, "GET", "/v1/webhooks")).body.webhooks).toEqual([]);
    expect((await api(bob, "GET", "/v1/webhooks?user=wh-ada")).status).toBe(403);

    const foreign: Array<[string, string]> = [
      ["GET", `/v1/webhooks/${hook.id}`],
      ["DELETE", `/v1/webhooks/${hook.id}`],
      ["POST", `/v1/webhooks/${hook.id}/rotate-secret`],
      ["POST", `/v1/webhooks/${hook.id}/test`],
      ["GET", `/v1/webhooks/${hook.id}/deliveries`],
      ["GET", `/v1/webhooks/${hook.id}/deliveries/${evt}`],
      ["POST", `/v1/webhooks/${hook.id}/deliveries/${evt}/redeliver`],
      ["GET", "/v1/webhooks/wh_00000000000000000000000000"],
    ];
    for (const [method, path] of foreign) {
      const r = await api(bob, method, path);
      expect({ path, status: r.status, code: r.body.error?.code }).toEqual({
        path,
        status: 404,
        code: "WEBHOOK_NOT_FOUND",
      });
    }
    expect((await api(bob, "GET", "/v1/webhooks")).body.webhooks).toEqual([]);
    // Still there, untouched; and an admin reads it.
    expect((await api(ada, "GET", `/v1/webhooks/${hook.id}`)).status).toBe(200);
    expect((await api(ADMIN, "GET", `/v1/webhooks/${hook.id}`)).body.webhook.user_id).toBe(hook.user_id);
    expect((await api(ADMIN, "GET", "/v1/webhooks?user=wh-ada")).body.webhooks).toHaveLength(1);

    const unknownDelivery = await api(ada, "POST", `/v1/webhooks/${hook.id}/deliveries/evt_nope/redeliver`);
    expect(unknownDelivery.body.error.code).toBe("DELIVERY_NOT_FOUND");
    const del = await api(ada, "DELETE", `/v1/webhooks/${hook.id}`);
    expect(del.body).toEqual({ id: hook.id, deleted: true });
    expect((await api(ada, "GET", `/v1/webhooks/${hook.id}`)).status).toBe(404);
    const orphans = await testEnv.DB.prepare(
      "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ?",
    )
      .bind(hook.id)
      .first<{ n: number }>();
    expect(orphans?.n).toBe(0);
  });

  it("allows at most 20 webhooks per user (the 21st is QUOTA_EXCEEDED)", async () => {
    const op = await createUser("wh-many");
    for (let i = 0; i < 20; i++) await addHook(op, {});
    const r = await api(op, "POST", "/v1/webhooks", { url: "https://example.org/21" });
    expect({ status: r.status, code: r.body.error.code, details: r.body.error.details }).toEqual({
      status: 403,
      code: "QUOTA_EXCEEDED",
      details: { limit: "webhooks", value: 20 },
    });
  });
});

describe("job events become deliveries", () => {
  it("creates one delivery per subscribed endpoint of the job's owner: 2 for *, 1 for job.stopped, 0 for the rest", async () => {
    const ada = await createUser("fan-ada");
    const bob = await createUser("fan-bob");
    const fleet = await createFleet("fan-main");
    await createFleet("fan-other");
    const all = await addHook(ada, { events: ["*"] });
    const stopped = await addHook(ada, { events: ["job.stopped"] });
    const otherFleet = await addHook(ada, { events: ["*"], fleet: "fan-other" });
    const succeeded = await addHook(ada, { events: ["job.succeeded"] });
    const bobs = await addHook(bob, { events: ["*"] });

    // No node in the fleet: the job waits QUEUED, then a stop ends it.
    const sub = await api(ada, "POST", "/v1/jobs", await customSpec({ fleet: "fan-main", name: "fan" }));
    const job = sub.body.job.id as string;
    await api(ada, "POST", `/v1/jobs/${job}/stop`, { reason: "enough" });

    const ids = (list: Array<Record<string, unknown>>) => list.map((d) => [d.id, d.type]).sort();
    expect(ids(await deliveries(ada, all.id))).toEqual([
      [`evt_${job}_1`, "job.queued"],
      [`evt_${job}_2`, "job.stopped"],
    ]);
    expect(ids(await deliveries(ada, stopped.id))).toEqual([[`evt_${job}_2`, "job.stopped"]]);
    expect(await deliveries(ada, otherFleet.id)).toEqual([]);
    expect(await deliveries(ada, succeeded.id)).toEqual([]);
    expect(await deliveries(bob, bobs.id)).toEqual([]);

    const one = await api(ada, "GET", `/v1/webhooks/${stopped.id}/deliveries/evt_${job}_2`);
    expect(one.body.delivery.payload).toMatchObject({
      id: `evt_${job}_2`,
      type: "job.stopped",
      data: {
        job: { id: job, name: "fan", status: "STOPPED", fleet_id: fleet.id, user_id: all.user_id },
        transition: { seq: 2, from: "QUEUED", to: "STOPPED", edge: "stop_queued", actor: "user:fan-ada" },
        reason: "enough",
      },
    });
  });

  it("creates nothing twice when a flush is replayed 3 times", async () => {
    const op = await createUser("fan-replay");
    const fleet = await createFleet("fan-replay");
    const hook = await addHook(op, { events: ["*"] });
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "fan-replay" }));
    const job = sub.body.job.id as string;
    const entry = {
      kind: "event" as const,
      event: {
        job_id: job,
        seq: 1,
        ts: new Date().toISOString(),
        from_status: null,
        to_status: "QUEUED",
        edge: "admitted",
        actor: "user:fan-replay",
        detail: "{}",
      },
      job: { user_id: hook.user_id, fleet_id: fleet.id, name: "exp", run_id: null },
    };
    for (let i = 0; i < 3; i++) await testEnv.DB.batch(toStatements(testEnv.DB, entry));
    const rows = await testEnv.DB.prepare(
      "SELECT event_id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY event_id",
    )
      .bind(hook.id)
      .all();
    expect(rows.results).toEqual([{ event_id: `evt_${job}_1` }]);
  });

  it("records a refused connection as an attempt with an error and no status code, and keeps retrying", async () => {
    const op = await createUser("wh-refused");
    const hook = await addHook(op, {});
    const test = await api(op, "POST", `/v1/webhooks/${hook.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body.delivery).toMatchObject({ type: "webhook.test", state: "pending", attempts: 0 });
    const path = `/v1/webhooks/${hook.id}/deliveries/${test.body.delivery.id}`;
    let d = (await api(op, "GET", path)).body.delivery;
    for (let i = 0; i < 100 && d.attempts < 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      d = (await api(op, "GET", path)).body.delivery;
    }
    expect(d).toMatchObject({ state: "pending", attempts: 1, last_status_code: null });
    expect(d.last_error).toBeTruthy();
    expect(d.attempt_log[0]).toMatchObject({ n: 1, status_code: null });
    expect(Date.parse(d.next_attempt_at)).toBeGreaterThan(Date.parse(d.attempt_log[0].at));

    const again = await api(op, "POST", `${path}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ id: test.body.delivery.id, state: "pending" });
  });
});
