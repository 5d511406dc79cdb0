/**
 * Node credentials and node administration through the real Worker and Fleet DO: credentials expire and
 * are renewed over the open socket; an admin cordons, drains, revokes and removes nodes.
 */
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { checkAgentCredential } from "../../contract/agent-credential.js";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { testEnv } from "./test-env.js";

let op = "";

beforeAll(async () => {
  op = await createUser("nodes-op");
  await api(ADMIN, "PUT", "/v1/users/nodes-op/quota", { max_gpus: 64, max_jobs: 50, daily_gpu_hours: 1000 });
  await publishTestCapsule();
});

/** A credential for `nodeId` signed as the control plane signs them, expiring `inSeconds` from now. */
function credentialFor(nodeId: string, fleetId: string, inSeconds: number): Promise<string> {
  return new SignJWT({ fleet: fleetId, scope: "agent" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(nodeId)
    .setIssuer("starforge")
    .setAudience("starforge-agent")
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + inSeconds)
    .sign(new TextEncoder().encode(testEnv.SF_JWT_SECRET));
}

async function agentOn(fleet: string, box: string, gpus = 4) {
  const { credential, nodeId } = await enroll(fleet);
  const agent = await ScriptedAgent.connect(credential);
  agent.hello(inventory(box, gpus));
  await agent.next("welcome");
  return { agent, credential, nodeId };
}

const node = async (fleet: string, name: string) =>
  ((await api(ADMIN, "GET", `/v1/fleets/${fleet}/nodes`)).body.nodes as Array<Record<string, unknown>>).find(
    (n) => n.name === name,
  );

const job = async (id: string) => (await api(op, "GET", `/v1/jobs/${id}`)).body.job;

describe("node credentials", () => {
  it("are issued for 24 hours at enrollment, and an expired one is refused with what to do", async () => {
    const f = await createFleet("cred-exp", { kind: "docker" });
    const t = await api(ADMIN, "POST", "/v1/fleets/cred-exp/enrollment-tokens");
    const enrolled = await api(null, "POST", "/v1/agents/enroll", { token: t.body.token });
    expect(enrolled.status).toBe(201);
    const hours = (Date.parse(enrolled.body.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    // The enrollment token stays one-shot.
    expect((await api(null, "POST", "/v1/agents/enroll", { token: t.body.token })).status).toBe(401);

    const expired = await credentialFor(enrolled.body.node_id, f.id, -60);
    const r = await ScriptedAgent.refused(expired);
    expect(r.status).toBe(401);
    expect(r.code).toBe("UNAUTHENTICATED");
    expect(r.message).toContain("expired");
    expect(r.message).toContain("sf admin fleet enroll-token");
  });

  it("a live credential near its expiry is renewed over the open socket, which stays up", async () => {
    const f = await createFleet("cred-renew", { kind: "docker" });
    const { nodeId } = await enroll("cred-renew");
    // Ten minutes left of 24 hours: due for renewal as soon as it connects.
    const old = await credentialFor(nodeId, f.id, 600);
    const agent = await ScriptedAgent.connect(old);
    agent.hello(inventory("renew-box", 2));
    await agent.next("welcome");
    const renewed = await agent.next("credential", () => true, 0, 10_000);
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: renewed.id });
    const check = await checkAgentCredential(testEnv.SF_JWT_SECRET, renewed.credential);
    expect(check).toMatchObject({ ok: true, nodeId, fleetId: f.id });
    const left = ((check as { expiresAt: number }).expiresAt - Date.now()) / 3_600_000;
    expect(left).toBeGreaterThan(23.9);
    expect(Date.parse(renewed.expires_at)).toBe((check as { expiresAt: number }).expiresAt);
    // Same socket: it still answers frames.
    agent.send({ v: 1, type: "inventory", id: agent.id(), inventory: inventory("renew-box", 2) });
    await agent.next("ack", (a) => a.ref !== renewed.id);
    // And the new credential connects (the old one still would until it expires).
    const again = await ScriptedAgent.connect(renewed.credential);
    again.close();
    agent.close();
  });
});

describe("node administration", () => {
  it("cordon keeps running jobs and places none; uncordon places what waited", async () => {
    await createFleet("nd-cordon", { kind: "docker" });
    const { agent } = await agentOn("nd-cordon", "cordon-box", 4);
    const first = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "nd-cordon", gpus: 2 }));
    const launch = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
    agent.report(launch.request, "accepted");
    agent.report(launch.request, "launched");
    await agent.next("ack");

    const c = await api(ADMIN, "POST", "/v1/fleets/nd-cordon/nodes/cordon-box/cordon", { note: "fan swap" });
    expect(c.status).toBe(200);
    expect(c.body.node).toMatchObject({ cordoned: true, cordon_note: "fan swap", revoked: false });
    const second = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "nd-cordon", gpus: 1 }));
    expect(second.body.job.status).toBe("QUEUED");
    expect((await job(first.body.job.id)).status).toBe("RUNNING");
    const fleet = (await api(ADMIN, "GET", "/v1/fleets/nd-cordon")).body;
    expect(fleet.queue[0].pending_reasons.length).toBeGreaterThan(0);
    expect(fleet.queue[0]).toMatchObject({
      job_id: second.body.job.id,
      priority_class: "normal",
      team: null,
    });
    // The totals count the cordoned node's GPUs: free is gpus − allocated, whatever takes new runs.
    expect(fleet.totals).toMatchObject({ gpus: 4, allocated: 2, free: 2, queued: 1, running: 1 });

    const u = await api(ADMIN, "POST", "/v1/fleets/nd-cordon/nodes/cordon-box/uncordon");
    expect(u.body.node.cordoned).toBe(false);
    expect((await job(second.body.job.id)).status).toBe("SUBMITTED");
    agent.close();
  });

  it("drain stops resumable runs with a checkpoint and queues them again, and reports the ones it cannot move", async () => {
    await createFleet("nd-drain", { kind: "docker" });
    const { agent } = await agentOn("nd-drain", "drain-box", 4);
    const resumable = await customSpec({ fleet: "nd-drain", gpus: 1, name: "can-resume" });
    const a = await api(op, "POST", "/v1/jobs", {
      ...resumable,
      lifecycle: { ...resumable.lifecycle, resumable: true },
    });
    const b = await api(
      op,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: "nd-drain", gpus: 1, name: "stuck" }),
    );
    const seen = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const l = await agent.next("launch", (f) => !seen.has(f.request.run_id));
      seen.add(l.request.run_id);
      agent.send({ v: 1, type: "ack", id: agent.id(), ref: l.id });
      agent.report(l.request, "accepted");
      agent.report(l.request, "launched");
    }
    await new Promise((r) => setTimeout(r, 200));
    const d = await api(ADMIN, "POST", "/v1/fleets/nd-drain/nodes/drain-box/drain", {
      note: "kernel update",
    });
    expect(d.status).toBe(200);
    expect(d.body.requeued).toEqual([a.body.job.id]);
    expect(d.body.blockers.map((x: { job_id: string }) => x.job_id)).toEqual([b.body.job.id]);
    expect(d.body.node.cordoned).toBe(true);
    expect((await job(a.body.job.id)).status).toBe("QUEUED");
    expect((await job(b.body.job.id)).status).toBe("RUNNING");
    const stop = await agent.next("stop");
    expect(stop.reason).toContain("drain-box is drained: kernel update");
    agent.close();
  });

  it("revoke closes the agent's socket within 1 s, refuses it from then on, and treats its runs as lost", async () => {
    await createFleet("nd-revoke", { kind: "docker" });
    const { agent, credential } = await agentOn("nd-revoke", "revoke-box", 2);
    const started = Date.now();
    const r = await api(ADMIN, "POST", "/v1/fleets/nd-revoke/nodes/revoke-box/revoke", {
      note: "stolen laptop",
    });
    expect(r.status).toBe(200);
    const closed = await agent.closed;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(closed.code).toBe(4003);
    const again = await ScriptedAgent.refused(credential);
    expect({ status: again.status, code: again.code }).toEqual({ status: 401, code: "NODE_REVOKED" });
    const checkpoint = await api(credential, "GET", "/v1/agents/checkpoint?run=run_x&path=a");
    expect(checkpoint.body.error.code).toBe("NODE_REVOKED");
    expect(await node("nd-revoke", "revoke-box")).toMatchObject({
      status: "lost",
      revoked: true,
      cordoned: true,
    });
    const back = await api(ADMIN, "POST", "/v1/fleets/nd-revoke/nodes/revoke-box/uncordon");
    expect(back.body.error.code).toBe("CONFLICT");
  });

  it("remove refuses a node that holds a run, then forgets it and refuses its credential", async () => {
    await createFleet("nd-rm", { kind: "docker" });
    const { agent, credential } = await agentOn("nd-rm", "rm-box", 2);
    await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "nd-rm", gpus: 1 }));
    const l = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: l.id });
    agent.report(l.request, "accepted");
    agent.report(l.request, "launched");
    await agent.next("ack");
    const busy = await api(ADMIN, "DELETE", "/v1/fleets/nd-rm/nodes/rm-box");
    expect({ status: busy.status, code: busy.body.error.code }).toEqual({ status: 409, code: "CONFLICT" });
    const done = agent.report(l.request, "exited", { exit_code: 0 });
    await agent.next("ack", (a) => a.ref === done);
    const rm = await api(ADMIN, "DELETE", "/v1/fleets/nd-rm/nodes/rm-box");
    expect(rm.status).toBe(200);
    expect(rm.body.node).toBeNull();
    expect(await node("nd-rm", "rm-box")).toBeUndefined();
    await agent.closed;
    expect((await ScriptedAgent.refused(credential)).code).toBe("NODE_REVOKED");
  });

  it("answers coded errors for unknown nodes and non-admins, and lists nodes to viewers", async () => {
    await createFleet("nd-err", { kind: "docker" });
    const viewer = await createUser("nd-viewer", "viewer");
    const missing = await api(ADMIN, "POST", "/v1/fleets/nd-err/nodes/nope/cordon");
    expect({ status: missing.status, code: missing.body.error.code }).toEqual({
      status: 404,
      code: "NODE_NOT_FOUND",
    });
    await agentOn("nd-err", "err-box", 1);
    expect((await api(op, "POST", "/v1/fleets/nd-err/nodes/err-box/cordon")).status).toBe(403);
    const ls = await api(viewer, "GET", "/v1/fleets/nd-err/nodes");
    expect(ls.body.nodes.map((n: { name: string }) => n.name)).toEqual(["err-box"]);
    const bad = await api(ADMIN, "POST", "/v1/fleets/nd-err/nodes/err-box/cordon", { note: "" });
    expect(bad.body.error.code).toBe("BAD_REQUEST");
  });
});
