/**
 * The audit log through the real Worker and D1: successful administrative actions are recorded with who,
 * what, which target, when and from where; refused ones are not; secret values never reach the log; only
 * admins read it, filtered and paged newest first.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { publishTestCapsule } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser } from "./helpers.js";

const FROM = { "cf-connecting-ip": "203.0.113.7", "user-agent": "audit-test/1.0" };

interface Entry {
  seq: number;
  at: string;
  actor: string;
  actor_id: string | null;
  action: string;
  target: string;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

/** An admin request sent from FROM's address. */
// biome-ignore lint/suspicious/noExplicitAny: test responses are read loosely by design
const admin = (method: string, path: string, body?: unknown) => api<any>(ADMIN, method, path, body, FROM);

async function audit(query = ""): Promise<{ entries: Entry[]; next_cursor: string | null }> {
  const r = await api(ADMIN, "GET", `/v1/audit${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** The newest entry of `action` on `target`. */
async function latest(action: string, target: string): Promise<Entry | undefined> {
  const q = new URLSearchParams({ action, target, limit: "1" });
  return (await audit(`?${q}`)).entries[0];
}

let adminId = "";

beforeAll(async () => {
  adminId = (await api(ADMIN, "GET", "/v1/me")).body.user.id;
});

describe("recording", () => {
  it("records each admin action with actor, action, target, time and address", async () => {
    const started = new Date().toISOString();
    expect((await admin("POST", "/v1/users", { name: "aud-alice", role: "operator" })).status).toBe(201);
    expect((await admin("PATCH", "/v1/users/aud-alice", { role: "viewer" })).status).toBe(200);
    const quota = { max_gpus: 4, max_jobs: 2, daily_gpu_hours: 10, allowed_profiles: ["h200"], priority: 5 };
    expect((await admin("PUT", "/v1/users/aud-alice/quota", quota)).status).toBe(200);
    expect((await admin("POST", "/v1/fleets", { name: "aud-east", kind: "docker" })).status).toBe(201);
    expect((await admin("PATCH", "/v1/fleets/aud-east", { description: "east" })).status).toBe(200);
    const node = await admin("POST", "/v1/fleets/aud-east/nodes", { name: "box1", series: "h200", gpus: 8 });
    expect(node.status).toBe(201);
    const minted = await admin("POST", "/v1/fleets/aud-east/enrollment-tokens", { ttl_minutes: 5 });
    expect(minted.status).toBe(201);
    expect((await admin("POST", "/v1/fleets/aud-east/maintenance/drain", { note: "driver" })).status).toBe(
      200,
    );
    expect((await admin("POST", "/v1/fleets/aud-east/maintenance/resume")).status).toBe(200);
    const profile = { series: "h200", gpus_per_node: 8, default_gpus: 1 };
    expect((await admin("PUT", "/v1/profiles/aud-p", profile)).status).toBe(200);
    expect((await admin("DELETE", "/v1/profiles/aud-p")).status).toBe(200);
    const tok = await admin("POST", "/v1/tokens", { name: "laptop" });
    expect(tok.status).toBe(201);
    expect((await admin("DELETE", `/v1/tokens/${tok.body.id}`)).status).toBe(200);

    const expected: Array<[string, string, Record<string, unknown>]> = [
      ["user.create", "user:aud-alice", { role: "operator" }],
      ["user.update", "user:aud-alice", { role: "viewer" }],
      ["quota.set", "user:aud-alice", { max_gpus: 4, allowed_profiles: "h200" }],
      ["fleet.create", "fleet:aud-east", { kind: "docker" }],
      ["fleet.update", "fleet:aud-east", { fields: "description" }],
      ["node.register", `node:${node.body.node.id}`, { fleet: "aud-east", name: "box1" }],
      ["enrollment_token.create", "fleet:aud-east", { expires_at: minted.body.expires_at }],
      ["fleet.drain", "fleet:aud-east", { note: "driver" }],
      ["fleet.undrain", "fleet:aud-east", {}],
      ["profile.set", "profile:aud-p", { series: "h200" }],
      ["profile.delete", "profile:aud-p", {}],
      ["token.create", `token:${tok.body.id}`, { name: "laptop", user: "admin" }],
      ["token.revoke", `token:${tok.body.id}`, {}],
    ];
    for (const [action, target, details] of expected) {
      const e = await latest(action, target);
      expect(e, `${action} ${target}`).toMatchObject({
        actor: "admin",
        actor_id: adminId,
        action,
        target,
        ip: "203.0.113.7",
        user_agent: "audit-test/1.0",
        details,
      });
      expect(e!.at >= started && e!.at <= new Date().toISOString(), e!.at).toBe(true);
    }
    // No token or enrollment token value is ever a detail.
    const body = JSON.stringify(await audit("?limit=200"));
    expect(body).not.toContain(minted.body.token);
    expect(body).not.toContain(tok.body.token);
  });

  it("records an enrollment as the agent it enrolled", async () => {
    await createFleet("aud-west");
    const minted = await admin("POST", "/v1/fleets/aud-west/enrollment-tokens");
    const enrolled = await api(null, "POST", "/v1/agents/enroll", { token: minted.body.token }, FROM);
    expect(enrolled.status).toBe(201);
    const nodeId = enrolled.body.node_id as string;
    expect(await latest("agent.enroll", `node:${nodeId}`)).toMatchObject({
      actor: `agent:${nodeId}`,
      actor_id: nodeId,
      ip: "203.0.113.7",
      details: { fleet: "aud-west" },
    });
  });

  it("records webhooks and the capsule, with the webhook's host but never its URL or secret", async () => {
    const created = await admin("POST", "/v1/webhooks", {
      url: "https://hooks.example.org/services/T000/B000/XXXXsecretpath",
    });
    expect(created.status).toBe(201);
    const id = created.body.webhook.id as string;
    const rotated = await admin("POST", `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect((await admin("DELETE", `/v1/webhooks/${id}`)).status).toBe(200);
    await publishTestCapsule();

    expect(await latest("webhook.create", `webhook:${id}`)).toMatchObject({
      actor: "admin",
      details: { host: "hooks.example.org" },
    });
    expect(await latest("webhook.rotate_secret", `webhook:${id}`)).toMatchObject({ actor: "admin" });
    expect(await latest("webhook.delete", `webhook:${id}`)).toMatchObject({ actor: "admin" });
    expect(await latest("capsule.publish", "capsule")).toMatchObject({ details: { files: 2 } });
    const body = JSON.stringify(await audit("?action=webhook.&limit=200"));
    expect(body).not.toContain("XXXXsecretpath");
    expect(body).not.toContain(created.body.secret);
    expect(body).not.toContain(rotated.body.secret);
  });

  it("takes the first X-Forwarded-For entry when there is no CF-Connecting-IP, and null when neither", async () => {
    const xff = { "x-forwarded-for": "198.51.100.4, 10.0.0.1" };
    expect((await api(ADMIN, "PUT", "/v1/profiles/aud-xff", profileBody(), xff)).status).toBe(200);
    expect((await latest("profile.set", "profile:aud-xff"))?.ip).toBe("198.51.100.4");
    expect((await api(ADMIN, "PUT", "/v1/profiles/aud-none", profileBody())).status).toBe(200);
    expect((await latest("profile.set", "profile:aud-none"))?.ip).toBeNull();
  });

  it("records nothing for a refused or failed action", async () => {
    const before = await audit("?limit=200");
    const op = await createUser("aud-op");
    const afterSetup = await audit("?limit=200");
    expect(afterSetup.entries.length).toBe(before.entries.length + 1);

    expect((await admin("POST", "/v1/users", { name: "aud-op", role: "viewer" })).status).toBe(409);
    expect((await admin("PATCH", "/v1/users/nobody", { role: "viewer" })).status).toBe(404);
    expect((await admin("POST", "/v1/fleets", { name: "aud-bad", kind: "warp" })).status).toBe(400);
    expect((await admin("DELETE", "/v1/profiles/never-was")).status).toBe(404);
    expect((await api(op, "POST", "/v1/fleets", { name: "aud-op-fleet", kind: "docker" }, FROM)).status).toBe(
      403,
    );
    expect((await api(op, "DELETE", "/v1/secrets/NOPE", undefined, FROM)).status).toBe(404);
    expect((await admin("PATCH", "/v1/users/aud-op", {})).status).toBe(200); // changes nothing
    expect(await audit("?limit=200")).toEqual(afterSetup);
  });
});

describe("secrets", () => {
  it("records a secret's name and scope, never its value", async () => {
    const value = "hf_AuditNeverLogsThisValue0123456789";
    const op = await createUser("aud-sec");
    expect((await api(op, "PUT", "/v1/secrets/HF_TOKEN", { value }, FROM)).status).toBe(201);
    expect((await api(op, "DELETE", "/v1/secrets/HF_TOKEN", undefined, FROM)).status).toBe(200);
    await createFleet("aud-sec-fleet");
    expect((await admin("PUT", "/v1/fleets/aud-sec-fleet/secrets/WANDB_API_KEY", { value })).status).toBe(
      201,
    );

    expect(await latest("secret.set", "secret:user:aud-sec/HF_TOKEN")).toMatchObject({
      actor: "aud-sec",
      details: { scope: "user", created: true },
    });
    expect(await latest("secret.delete", "secret:user:aud-sec/HF_TOKEN")).toMatchObject({ actor: "aud-sec" });
    expect(await latest("secret.set", "secret:fleet:aud-sec-fleet/WANDB_API_KEY")).toMatchObject({
      actor: "admin",
      details: { scope: "fleet" },
    });
    const r = await api(ADMIN, "GET", "/v1/audit?limit=200");
    expect(JSON.stringify(r.body)).not.toContain(value);
    expect(JSON.stringify(r.body)).not.toContain("AuditNeverLogs");
  });
});

describe("GET /v1/audit", () => {
  it("is for admins only", async () => {
    const op = await createUser("aud-reader");
    const viewer = await createUser("aud-viewer", "viewer");
    for (const t of [op, viewer]) {
      const r = await api(t, "GET", "/v1/audit");
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("FORBIDDEN");
    }
    expect((await api(null, "GET", "/v1/audit")).status).toBe(401);
  });

  it("filters by actor, action prefix, target and time", async () => {
    const op = await createUser("aud-filter");
    expect((await api(op, "PUT", "/v1/secrets/A_ONE", { value: "value-one-1" })).status).toBe(201);
    expect((await api(op, "PUT", "/v1/secrets/A_TWO", { value: "value-two-2" })).status).toBe(201);
    const mine = await audit("?actor=aud-filter");
    expect(mine.entries.map((e) => e.target)).toEqual([
      "secret:user:aud-filter/A_TWO",
      "secret:user:aud-filter/A_ONE",
    ]);
    const byId = await audit(`?actor=${mine.entries[0]!.actor_id}`);
    expect(byId.entries).toEqual(mine.entries);

    const secrets = await audit("?action=secret.&limit=200");
    expect(secrets.entries.length).toBeGreaterThanOrEqual(2);
    expect(secrets.entries.every((e) => e.action.startsWith("secret."))).toBe(true);
    // A prefix is text: `_` is not a wildcard.
    expect((await audit("?action=user_")).entries).toEqual([]);

    const one = await audit("?target=secret:user:aud-filter/A_ONE");
    expect(one.entries.map((e) => e.action)).toEqual(["secret.set"]);

    const at = mine.entries[1]!.at;
    const since = await audit(`?actor=aud-filter&since=${encodeURIComponent(mine.entries[0]!.at)}`);
    expect(since.entries.every((e) => e.at >= mine.entries[0]!.at)).toBe(true);
    const until = await audit(`?actor=aud-filter&until=${encodeURIComponent(at)}`);
    expect(until.entries).toEqual([]);
    expect((await audit("?since=2999-01-01")).entries).toEqual([]);
    const bad = await api(ADMIN, "GET", "/v1/audit?since=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("BAD_REQUEST");
  });

  it("pages newest first with cursor and limit", async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      expect((await admin("PUT", `/v1/profiles/aud-page-${n}`, profileBody())).status).toBe(200);
    }
    const all = await audit("?action=profile.set&limit=200");
    const seqs = all.entries.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(all.next_cursor).toBeNull();

    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: Entry[]; next_cursor: string | null } = await audit(
        `?action=profile.set&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.entries);
    expect(seen.slice(0, 5).map((e) => e.target)).toEqual([
      "profile:aud-page-5",
      "profile:aud-page-4",
      "profile:aud-page-3",
      "profile:aud-page-2",
      "profile:aud-page-1",
    ]);
  });
});

function profileBody() {
  return { series: "h200", gpus_per_node: 8, default_gpus: 1 };
}
