/**
 * The auth matrix: every representative /v1 route refuses callers without a valid identity (401), with a
 * disabled identity or too small a role (403), and an agent credential on user routes (403). Positive
 * controls prove the gates are gates (the same routes let the right role through), so a route that
 * refused everyone would fail here too.
 */
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../contract/digest.js";
import type { ErrorBody } from "../../contract/errors.js";
import { ADMIN, type ApiResponse, api, createFleet, createUser, enrollAgent, LEAK } from "./helpers.js";

type Gate = "viewer" | "operator" | "admin";

interface RouteCase {
  /** The route as documented, for readable failures. */
  route: string;
  method: string;
  /** A concrete path; ids name nothing that exists, so a request that passes auth has no effect. */
  path: string;
  /** The least role that gets past the route's role gate. */
  gate: Gate;
  body?: unknown;
  /** Readable only through ownership of the data (viewers own no blobs), so not a role positive control. */
  ownership?: true;
  /** Agents use this route too (they probe blobs before fetching). */
  agents?: true;
}

const NO_JOB = "job_00000000000000000000000000";
const NO_BLOB = `sha256:${"0".repeat(64)}`;

const ROUTES: RouteCase[] = [
  { route: "GET /v1/catalog", method: "GET", path: "/v1/catalog", gate: "viewer" },
  { route: "GET /v1/profiles", method: "GET", path: "/v1/profiles", gate: "viewer" },
  { route: "PUT /v1/profiles/:name", method: "PUT", path: "/v1/profiles/am-probe", gate: "admin", body: {} },
  { route: "POST /v1/catalog/recipes", method: "POST", path: "/v1/catalog/recipes", gate: "admin", body: {} },
  { route: "GET /v1/users", method: "GET", path: "/v1/users", gate: "admin" },
  { route: "POST /v1/users", method: "POST", path: "/v1/users", gate: "admin", body: {} },
  { route: "PATCH /v1/users/:name", method: "PATCH", path: "/v1/users/am-nobody", gate: "admin", body: {} },
  {
    route: "PUT /v1/users/:name/quota",
    method: "PUT",
    path: "/v1/users/am-nobody/quota",
    gate: "admin",
    body: {},
  },
  { route: "POST /v1/fleets", method: "POST", path: "/v1/fleets", gate: "admin", body: {} },
  { route: "GET /v1/fleets", method: "GET", path: "/v1/fleets", gate: "viewer" },
  { route: "GET /v1/fleets/:name", method: "GET", path: "/v1/fleets/am-nofleet", gate: "viewer" },
  {
    route: "POST /v1/fleets/:name/nodes",
    method: "POST",
    path: "/v1/fleets/am-nofleet/nodes",
    gate: "admin",
    body: {},
  },
  {
    route: "POST /v1/fleets/:name/enrollment-tokens",
    method: "POST",
    path: "/v1/fleets/am-nofleet/enrollment-tokens",
    gate: "admin",
    body: {},
  },
  { route: "POST /v1/jobs", method: "POST", path: "/v1/jobs", gate: "operator", body: {} },
  { route: "GET /v1/jobs", method: "GET", path: "/v1/jobs", gate: "viewer" },
  { route: "GET /v1/jobs/:id", method: "GET", path: `/v1/jobs/${NO_JOB}`, gate: "viewer" },
  { route: "POST /v1/jobs/:id/stop", method: "POST", path: `/v1/jobs/${NO_JOB}/stop`, gate: "operator" },
  { route: "GET /v1/usage", method: "GET", path: "/v1/usage", gate: "viewer" },
  { route: "GET /v1/tokens", method: "GET", path: "/v1/tokens", gate: "viewer" },
  { route: "POST /v1/tokens", method: "POST", path: "/v1/tokens", gate: "viewer", body: {} },
  { route: "DELETE /v1/tokens/:id", method: "DELETE", path: "/v1/tokens/tok_am_nothing", gate: "viewer" },
  {
    route: "GET /v1/blobs/:digest",
    method: "GET",
    path: `/v1/blobs/${NO_BLOB}`,
    gate: "viewer",
    ownership: true,
  },
  { route: "PUT /v1/blobs/:digest", method: "PUT", path: `/v1/blobs/${NO_BLOB}`, gate: "operator" },
  {
    route: "HEAD /v1/blobs/:digest",
    method: "HEAD",
    path: `/v1/blobs/${NO_BLOB}`,
    gate: "operator",
    agents: true,
  },
];

const RANK: Record<Gate, number> = { viewer: 0, operator: 1, admin: 2 };
const AUTH_CODES = new Set(["UNAUTHENTICATED", "TOKEN_REVOKED", "FORBIDDEN"]);

/** One line per request, so a failing matrix shows every route that misbehaved in one diff. */
function line(r: RouteCase, status: number, code?: string): string {
  // HEAD answers carry no body, so only the status can be compared.
  return r.method === "HEAD" ? `${r.route} → ${status}` : `${r.route} → ${status} ${code}`;
}

/** An answer read as a possible error body; HEAD answers have none. */
type Answer = ApiResponse<Partial<ErrorBody>>;

function expectCleanError(r: RouteCase, res: Answer): void {
  if (r.method === "HEAD") return;
  expect(Object.keys(res.body), r.route).toEqual(["error"]);
  expect(typeof res.body.error?.message, r.route).toBe("string");
  expect(JSON.stringify(res.body), r.route).not.toMatch(LEAK);
}

async function call(r: RouteCase, auth: { token?: string; header?: string }): Promise<Answer> {
  const headers: Record<string, string> = auth.header === undefined ? {} : { authorization: auth.header };
  return api<Partial<ErrorBody>>(auth.token ?? null, r.method, r.path, r.body, headers);
}

/** Sends every route with the same credentials and expects the same refusal from each. */
async function expectAllRefused(
  routes: RouteCase[],
  auth: { token?: string; header?: string },
  status: number,
  code: string,
): Promise<void> {
  const got: string[] = [];
  for (const r of routes) {
    const res = await call(r, auth);
    got.push(line(r, res.status, res.body.error?.code));
    if (res.status === status) expectCleanError(r, res);
  }
  expect(got).toEqual(routes.map((r) => line(r, status, code)));
}

/** Sends every route and expects none to be refused for identity or role reasons. */
async function expectAllAdmitted(routes: RouteCase[], token: string): Promise<void> {
  const refused: string[] = [];
  for (const r of routes) {
    const res = await call(r, { token });
    const code = res.body.error?.code;
    const headRefused = r.method === "HEAD" && (res.status === 401 || res.status === 403);
    if ((code && AUTH_CODES.has(code)) || headRefused || res.status >= 500)
      refused.push(line(r, res.status, code));
  }
  expect(refused).toEqual([]);
}

async function mintToken(owner: string, name: string): Promise<{ id: string; token: string }> {
  const r = await api(owner, "POST", "/v1/tokens", { name });
  expect(r.status).toBe(201);
  return { id: r.body.id as string, token: r.body.token as string };
}

let viewer: string;
let operator: string;

beforeAll(async () => {
  viewer = await createUser("am-viewer", "viewer");
  operator = await createUser("am-operator", "operator");
});

describe("requests without a valid identity", () => {
  it("refuses every route without an Authorization header with 401 UNAUTHENTICATED", async () => {
    await expectAllRefused(ROUTES, {}, 401, "UNAUTHENTICATED");
  });

  it.each([
    ["a Basic scheme", `Basic ${btoa("admin:secret")}`],
    ["Bearer without a token", "Bearer"],
    ["Bearer with two words", `Bearer ${ADMIN} extra`],
    ["a bare token without a scheme", ADMIN],
  ])("refuses a malformed Authorization header (%s) with 401 UNAUTHENTICATED", async (_, header) => {
    await expectAllRefused(ROUTES, { header }, 401, "UNAUTHENTICATED");
  });

  it("refuses a token the server never issued with 401 UNAUTHENTICATED", async () => {
    await expectAllRefused(ROUTES, { token: "sfp_this-token-was-never-issued-0000" }, 401, "UNAUTHENTICATED");
  });

  it("refuses an agent credential signed with another key with 401 UNAUTHENTICATED", async () => {
    const forged = await new SignJWT({ fleet: "flt_forged", scope: "agent" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject("nod_forged")
      .setIssuer("starforge")
      .setAudience("starforge-agent")
      .sign(new TextEncoder().encode("not-the-server-secret-but-long-enough-0000"));
    await expectAllRefused(ROUTES, { token: forged }, 401, "UNAUTHENTICATED");
  });

  it("refuses a revoked token with 401 TOKEN_REVOKED on every route", async () => {
    const { id, token } = await mintToken(operator, "to-revoke");
    expect((await api(token, "GET", "/v1/me")).status).toBe(200);
    const del = await api(operator, "DELETE", `/v1/tokens/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, revoked: true });
    await expectAllRefused(ROUTES, { token }, 401, "TOKEN_REVOKED");
    // Revoking one token leaves the owner's other tokens working.
    expect((await api(operator, "GET", "/v1/me")).status).toBe(200);
  });
});

describe("disabled users and roles", () => {
  it("refuses every route to a disabled user with 403, and lets them back in when re-enabled", async () => {
    const token = await createUser("am-disabled", "admin");
    expect((await api(ADMIN, "PATCH", "/v1/users/am-disabled", { disabled: true })).status).toBe(200);
    await expectAllRefused(ROUTES, { token }, 403, "FORBIDDEN");
    expect((await api(ADMIN, "PATCH", "/v1/users/am-disabled", { disabled: false })).status).toBe(200);
    expect((await api(token, "GET", "/v1/users")).status).toBe(200);
  });

  it("refuses a viewer on every operator and admin route with 403 FORBIDDEN", async () => {
    await expectAllRefused(
      ROUTES.filter((r) => RANK[r.gate] > RANK.viewer),
      { token: viewer },
      403,
      "FORBIDDEN",
    );
  });

  it("refuses an operator on every admin route with 403 FORBIDDEN", async () => {
    await expectAllRefused(
      ROUTES.filter((r) => r.gate === "admin"),
      { token: operator },
      403,
      "FORBIDDEN",
    );
  });

  it("lets a viewer through every viewer route", async () => {
    await expectAllAdmitted(
      ROUTES.filter((r) => r.gate === "viewer" && !r.ownership),
      viewer,
    );
  });

  it("lets an operator through every viewer and operator route", async () => {
    await expectAllAdmitted(
      ROUTES.filter((r) => r.gate !== "admin" && !r.ownership),
      operator,
    );
  });

  it("lets an admin through every route", async () => {
    await expectAllAdmitted(ROUTES, ADMIN);
  });
});

describe("tokens and the bootstrap admin", () => {
  it("has the bootstrap admin, whose token is listed without its secret", async () => {
    const me = await api(ADMIN, "GET", "/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ name: "admin", role: "admin", disabled: false });
    const tokens = await api(ADMIN, "GET", "/v1/tokens");
    expect(tokens.body.tokens).toContainEqual(expect.objectContaining({ name: "bootstrap" }));
    expect(JSON.stringify(tokens.body)).not.toContain(ADMIN);
  });

  it("shows a new token's secret once; the listing has neither the secret nor its hash", async () => {
    const created = await api(operator, "POST", "/v1/tokens", { name: "laptop" });
    expect(created.status).toBe(201);
    const secret = created.body.token as string;
    expect(secret).toMatch(/^sfp_[A-Za-z0-9_-]{40,}$/);
    expect((await api(secret, "GET", "/v1/me")).body.user.name).toBe("am-operator");

    const listed = await api(operator, "GET", "/v1/tokens");
    expect(listed.status).toBe(200);
    const entry = (listed.body.tokens as Array<Record<string, unknown>>).find(
      (t) => t.id === created.body.id,
    );
    expect(entry).toMatchObject({ name: "laptop", prefix: secret.slice(0, 10), revoked_at: null });
    expect(entry).not.toHaveProperty("token");
    expect(entry).not.toHaveProperty("hash");
    const hash = await sha256Hex(secret);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hash);
  });

  it("treats another user's token id as unknown and leaves that token working", async () => {
    const { id, token } = await mintToken(viewer, "viewer-laptop");
    const res = await api(operator, "DELETE", `/v1/tokens/${id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("TOKEN_NOT_FOUND");
    expect((await api(token, "GET", "/v1/me")).status).toBe(200);
  });
});

describe("agent credentials", () => {
  let credential: string;

  beforeAll(async () => {
    await createFleet("am-agents");
    credential = await enrollAgent("am-agents");
  });

  it("refuses an agent credential on every user route with 403 FORBIDDEN", async () => {
    await expectAllRefused(
      ROUTES.filter((r) => !r.agents),
      { token: credential },
      403,
      "FORBIDDEN",
    );
  });

  it("accepts an enrollment token exactly once, even when agents race for it", async () => {
    const mint = async () =>
      (await api(ADMIN, "POST", "/v1/fleets/am-agents/enrollment-tokens", {})).body.token as string;
    const enroll = (token: string) => api(null, "POST", "/v1/agents/enroll", { token });

    const once = await mint();
    const first = await enroll(once);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ fleet: "am-agents", credential: expect.stringMatching(/^eyJ/) });
    const again = await enroll(once);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("ENROLLMENT_TOKEN_INVALID");
    expect(again.body).not.toHaveProperty("credential");
    expect(JSON.stringify(again.body)).not.toMatch(LEAK);

    const raced = await mint();
    const results = await Promise.all([enroll(raced), enroll(raced), enroll(raced)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401]);
  });

  it("refuses an enrollment token the server never minted with 401 ENROLLMENT_TOKEN_INVALID", async () => {
    const res = await api(null, "POST", "/v1/agents/enroll", { token: "sfe_never-minted-token-000000" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("ENROLLMENT_TOKEN_INVALID");
  });
});
