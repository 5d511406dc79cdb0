/**
 * Tier 3: a real forgelet against the real control plane, with node credentials that live 36 seconds
 * (SF_AGENT_CREDENTIAL_HOURS=0.01): the agent is renewed over its open socket (and saves the new
 * credential) without reconnecting, and an admin's revoke disconnects it and keeps it out.
 *
 * Its own control plane, not the project's shared one: node credentials that live 36 s are a
 * deployment-wide setting, and every other file's agents would be renewing and expiring too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";

let cp: ControlPlane;
let agent: ForgeletProc;

beforeAll(async () => {
  cp = await startControlPlane({ agent: false, vars: { SF_AGENT_CREDENTIAL_HOURS: "0.01" } });
  await call(cp, cp.adminToken, "POST", "/v1/fleets", { name: "creds", kind: "process" });
  agent = await enrollForgelet(cp, "creds", { name: "cred-box", gpus: 1 });
});

afterAll(async () => {
  await agent?.dispose();
  await cp?.stop();
});

const saved = () =>
  JSON.parse(readFileSync(join(agent.stateDir, "credential.json"), "utf8")) as {
    credential: string;
    expires_at?: string;
  };

async function until(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${agent.log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("a real agent's credential", () => {
  it("is renewed over the open socket before it expires and saved, and never refused", async () => {
    const first = saved();
    expect(Date.parse(first.expires_at ?? "") - Date.now()).toBeLessThan(37_000);
    // A third of 36 s is left 24 s after enrollment: the renewal comes then, and again 24 s later.
    const renewals = () => (agent.log().match(/node credential renewed/g) ?? []).length;
    await until("the first renewal", () => renewals() >= 1, 40_000);
    await until("the second renewal", () => renewals() >= 2, 40_000);
    const now = saved();
    expect(now.credential).not.toBe(first.credential);
    expect(Date.parse(now.expires_at ?? "")).toBeGreaterThan(Date.parse(first.expires_at ?? ""));
    // The enrollment credential expired in between, and the agent was never refused: each renewal came
    // over an open socket (that the socket itself stays up through one is checked frame by frame in
    // test/worker/nodes-admin.test.ts; a loaded machine may drop a local socket now and then).
    expect(Date.parse(first.expires_at ?? "")).toBeLessThan(Date.now());
    expect(agent.log()).not.toContain("refused the connection");
    const nodes = await call(cp, cp.adminToken, "GET", "/v1/fleets/creds/nodes");
    expect((nodes.body.nodes as Array<{ status: string }>)[0]?.status).toBe("ready");
  }, 90_000);

  it("is shut out by a revoke within a second, and told why on every reconnect", async () => {
    const started = Date.now();
    const r = await call(cp, cp.adminToken, "POST", "/v1/fleets/creds/nodes/cred-box/revoke", {
      note: "decommissioned",
    });
    expect(r.status).toBe(200);
    await until("the disconnect", () => agent.log().includes("disconnected (4003"), 5000);
    expect(Date.now() - started).toBeLessThan(2000);
    await until("a refused reconnect", () => agent.log().includes("NODE_REVOKED"), 10_000);
    expect(agent.log()).toMatch(/refused the connection: HTTP 401: NODE_REVOKED: an admin revoked/);
  }, 30_000);
});
