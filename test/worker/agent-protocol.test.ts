/**
 * The Fleet DO's side of the agent protocol over a real WebSocket through the Worker: registration by
 * hello, launches that carry a verifiable per-run token, the job state machine driven by reports, epoch
 * fencing, coded refusal of bad frames, and reconciliation when an agent comes back.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ServerFrame } from "../../contract/agent-frames.schema.js";
import { verifyIngestToken } from "../../contract/ingest-token.js";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { testEnv } from "./test-env.js";

let op = "";
let capsule: Record<string, string> = {};

beforeAll(async () => {
  op = await createUser("agent-op");
  await api(ADMIN, "PUT", "/v1/users/agent-op/quota", { max_gpus: 64, max_jobs: 50, daily_gpu_hours: 1000 });
  capsule = await publishTestCapsule();
});

async function job(id: string) {
  return (await api(op, "GET", `/v1/jobs/${id}`)).body;
}

async function fleetTotals(name: string) {
  return (await api(ADMIN, "GET", `/v1/fleets/${name}`)).body.totals;
}

describe("agent protocol (Fleet DO side)", () => {
  it("registers the node from its hello and drives a job to SUCCEEDED from its reports", async () => {
    await createFleet("ap-one", { kind: "process" });
    const { credential, nodeId } = await enroll("ap-one");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-1", 4));
    const welcome = await agent.next("welcome");
    expect(welcome).toMatchObject({ node_id: nodeId, expected: [], stop: [] });
    const fleet = (await api(ADMIN, "GET", "/v1/fleets/ap-one")).body;
    expect(fleet.nodes).toEqual([
      expect.objectContaining({ id: nodeId, name: "box-1", series: "h200", status: "ready", agent: true }),
    ]);

    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-one", gpus: 2 }));
    expect(sub.body.job.status).toBe("SUBMITTED");
    const launch = await agent.next("launch");
    const req = launch.request;
    expect(req.job_id).toBe(sub.body.job.id);
    expect(req.placement).toEqual([{ rank: 0, pool: "default", node_id: nodeId, gpu_indices: [0, 1] }]);
    expect(req.capsule.files).toEqual(capsule);
    expect(req.entrypoint).toEqual({ kind: "script", path: "train.sh" });
    expect(req.image).toBe("ghcr.io/acme/train:1.0");
    const claims = await verifyIngestToken(testEnv.SF_JWT_SECRET, req.ingest.token);
    expect(claims).toMatchObject({ sub: req.run_id, job: req.job_id, epoch: req.epoch, scope: "ingest" });

    agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
    const acked = agent.report(req, "accepted");
    await agent.next("ack", (f) => f.ref === acked);
    expect((await job(req.job_id)).job.status).toBe("PENDING");
    agent.report(req, "launched");
    await agent.next("ack", (f) => f.ref !== acked);
    expect((await job(req.job_id)).job.status).toBe("RUNNING");
    expect((await fleetTotals("ap-one")).allocated).toBe(2);
    const done = agent.report(req, "exited", { exit_code: 0, reason: "exited with code 0" });
    await agent.next("ack", (f) => f.ref === done);
    const final = await job(req.job_id);
    expect(final.job.status).toBe("SUCCEEDED");
    expect(final.events.map((e: { edge: string }) => e.edge)).toEqual([
      "admitted",
      "dispatch",
      "ack",
      "started",
      "succeeded",
    ]);
    expect((await fleetTotals("ap-one")).allocated).toBe(0);
    agent.close();
  });

  it("re-sends a launch until it is acknowledged, and a repeated report changes nothing", async () => {
    await createFleet("ap-resend", { kind: "process" });
    const { credential } = await enroll("ap-resend");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-r", 2));
    await agent.next("welcome");
    await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-resend", gpus: 1 }));
    const first = await agent.next("launch");
    await new Promise((r) => setTimeout(r, 1100));
    const f = await api(ADMIN, "GET", "/v1/fleets/ap-resend");
    await runDurableObjectAlarm(testEnv.FLEET.get(testEnv.FLEET.idFromName(f.body.fleet.id)));
    const again = await agent.next("launch", () => true, agent.frames.indexOf(first) + 1);
    expect(again.id).toBe(first.id);
    expect(again.request.run_id).toBe(first.request.run_id);

    agent.send({ v: 1, type: "ack", id: agent.id(), ref: first.id });
    agent.report(first.request, "launched");
    agent.report(first.request, "launched");
    const r = agent.report(first.request, "exited", { exit_code: 3 });
    await agent.next("ack", (x) => x.ref === r);
    agent.report(first.request, "exited", { exit_code: 0 });
    const j = await job(first.request.job_id);
    expect(j.job.status).toBe("FAILED");
    expect(
      j.events.filter((e: { to: string }) => e.to === "RUNNING"),
      JSON.stringify(
        agent.frames.map((f) => [f.type, f.id, "ref" in f ? f.ref : null, "code" in f ? f.code : null]),
      ),
    ).toHaveLength(1);
    expect(j.runs[0]).toMatchObject({ status: "FAILED", exit_code: 3 });
    agent.close();
  });

  it("refuses a report with a stale epoch and tells the agent to stop that workload", async () => {
    await createFleet("ap-fence", { kind: "process" });
    const { credential } = await enroll("ap-fence");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-f", 2));
    await agent.next("welcome");
    await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-fence", gpus: 1 }));
    const { request } = await agent.next("launch");
    const stale = agent.report({ run_id: request.run_id, epoch: request.epoch + 7 }, "launched");
    const err = await agent.next("error", (f) => f.ref === stale);
    expect(err.code).toBe("STALE_EPOCH");
    const stop = await agent.next("stop", (f) => f.run_id === request.run_id);
    expect(stop.epoch).toBe(request.epoch + 7);
    expect((await job(request.job_id)).job.status).toBe("SUBMITTED");
    agent.close();
  });

  it("a start heard after the rank's own exit: the stop lets it finish (finish_seconds); after a user's stop it does not", async () => {
    await createFleet("ap-late", { kind: "process" });
    const { credential } = await enroll("ap-late");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-l", 2));
    await agent.next("welcome");
    for (const code of [0, 4]) {
      const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-late", gpus: 1 }));
      const { request } = await agent.next("launch", (f) => f.request.job_id === sub.body.job.id);
      const end = agent.report(request, "exited", { exit_code: code });
      await agent.next("ack", (f) => f.ref === end);
      expect((await job(request.job_id)).job.status).toBe(code === 0 ? "SUCCEEDED" : "FAILED");
      agent.report(request, "launched");
      const finish = await agent.next("stop", (f) => f.run_id === request.run_id);
      expect(finish).toMatchObject({ rank: 0, finish_seconds: 30, grace_seconds: 10 });
    }

    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-late", gpus: 1 }));
    const { request } = await agent.next("launch", (f) => f.request.job_id === sub.body.job.id);
    agent.report(request, "launched");
    expect((await api(op, "POST", `/v1/jobs/${request.job_id}/stop`)).status).toBe(200);
    const stop = await agent.next("stop", (f) => f.run_id === request.run_id);
    expect(stop.finish_seconds).toBeUndefined();
    const stopped = agent.report(request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === stopped);
    agent.report(request, "launched");
    const fenced = await agent.next("stop", (f) => f.run_id === request.run_id && f.id !== stop.id);
    expect(fenced.finish_seconds).toBeUndefined();
    agent.close();
  });

  it("refuses malformed, unknown and wrong-version frames with coded errors and stays up", async () => {
    await createFleet("ap-fuzz", { kind: "process" });
    const { credential } = await enroll("ap-fuzz");
    const agent = await ScriptedAgent.connect(credential);
    const cases: Array<[string, string]> = [
      ["{not json", "MALFORMED_FRAME"],
      [JSON.stringify({ v: 1, type: "teleport", id: "x1" }), "UNKNOWN_FRAME"],
      [JSON.stringify({ v: 9, type: "hello", id: "x2" }), "UNSUPPORTED_VERSION"],
      [JSON.stringify({ v: 1, type: "report", id: "x3", run_id: 5 }), "MALFORMED_FRAME"],
      [JSON.stringify([1, 2, 3]), "UNSUPPORTED_VERSION"],
    ];
    for (const [text, code] of cases) {
      const from = agent.frames.length;
      agent.sendRaw(text);
      expect((await agent.next("error", () => true, from)).code, text).toBe(code);
    }
    agent.hello(inventory("box-z", 1));
    expect((await agent.next("welcome")).node_id).toBeTruthy();
    agent.close();
  });

  it("refuses over-long ids, versions and run ids with error frames that stay within the contract", async () => {
    await createFleet("ap-long", { kind: "process" });
    const agent = await ScriptedAgent.connect((await enroll("ap-long")).credential);
    const cases: Array<[string, string, string | null]> = [
      [JSON.stringify({ v: 1, type: "hello", id: "x".repeat(5_000) }), "MALFORMED_FRAME", null],
      [JSON.stringify({ v: "9".repeat(5_000), type: "hello", id: "x4" }), "UNSUPPORTED_VERSION", "x4"],
      // Quoting this version once overflowed the stack: the frame went unanswered.
      [
        `{"v":${"[".repeat(100_000)}${"]".repeat(100_000)},"type":"hello","id":"x7"}`,
        "UNSUPPORTED_VERSION",
        "x7",
      ],
      [
        JSON.stringify({ v: 1, type: "report", id: "x5", run_id: "r".repeat(5_000), epoch: 1, rank: 0 }),
        "MALFORMED_FRAME",
        "x5",
      ],
      [
        JSON.stringify({
          ...{ v: 1, type: "report", id: "x6", run_id: "r".repeat(5_000), epoch: 1, rank: 0 },
          ...{ event: "launched", ts: new Date().toISOString() },
        }),
        "UNKNOWN_RUN",
        "x6",
      ],
    ];
    for (const [text, code, ref] of cases) {
      const from = agent.frames.length;
      agent.sendRaw(text);
      const err = await agent.next("error", () => true, from);
      expect({ code: err.code, ref: err.ref }, text.slice(0, 60)).toEqual({ code, ref });
      // The agent parses what it gets with the same contract; a frame outside it could not be answered.
      expect(ServerFrame.safeParse(err).success, JSON.stringify(err).slice(0, 200)).toBe(true);
    }
    agent.close();
  });

  it("refuses a report about another node's run with UNKNOWN_RUN and leaves that run alone", async () => {
    await createFleet("ap-foreign", { kind: "process" });
    const owner = await ScriptedAgent.connect((await enroll("ap-foreign")).credential);
    owner.hello(inventory("box-owner", 2));
    await owner.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-foreign", gpus: 2 }));
    const launch = await owner.next("launch");
    owner.send({ v: 1, type: "ack", id: owner.id(), ref: launch.id });
    owner.report(launch.request, "launched");
    await owner.next("ack");

    const other = await ScriptedAgent.connect((await enroll("ap-foreign")).credential);
    other.hello(inventory("box-other", 2));
    await other.next("welcome");
    const forged = other.report(launch.request, "exited", { exit_code: 1, reason: "forged" });
    expect((await other.next("error", (f) => f.ref === forged)).code).toBe("UNKNOWN_RUN");
    expect((await job(sub.body.job.id)).job.status).toBe("RUNNING");
    expect((await fleetTotals("ap-foreign")).allocated).toBe(2);
    owner.close();
    other.close();
  });

  it("stops a running job through its agent and frees the GPUs only when the agent confirms", async () => {
    await createFleet("ap-stop", { kind: "process" });
    const { credential } = await enroll("ap-stop");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-s", 4));
    await agent.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-stop", gpus: 4 }));
    const launch = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
    agent.report(launch.request, "launched");
    await agent.next("ack");
    expect((await api(op, "POST", `/v1/jobs/${sub.body.job.id}/stop`)).body.job.status).toBe("STOPPED");
    const stop = await agent.next("stop");
    expect(stop).toMatchObject({ run_id: launch.request.run_id, rank: 0, grace_seconds: 30 });
    expect((await fleetTotals("ap-stop")).allocated).toBe(4);
    const r = agent.report(launch.request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === r);
    expect((await fleetTotals("ap-stop")).allocated).toBe(0);
    expect((await job(sub.body.job.id)).runs[0]).toMatchObject({ status: "STOPPED" });
    agent.close();
  });

  it("reattaches a run an agent still has after it reconnects, without launching it again", async () => {
    await createFleet("ap-back", { kind: "process" });
    const { credential } = await enroll("ap-back");
    const first = await ScriptedAgent.connect(credential);
    first.hello(inventory("box-b", 2));
    await first.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-back", gpus: 1 }));
    const launch = await first.next("launch");
    first.send({ v: 1, type: "ack", id: first.id(), ref: launch.id });
    first.report(launch.request, "launched");
    await first.next("ack");
    first.close();
    await new Promise((r) => setTimeout(r, 50));
    expect((await api(ADMIN, "GET", "/v1/fleets/ap-back")).body.nodes[0].status).toBe("lost");
    expect((await job(sub.body.job.id)).job.status).toBe("RUNNING");

    const second = await ScriptedAgent.connect(credential);
    const r = launch.request;
    second.hello(inventory("box-b", 2), [
      { run_id: r.run_id, epoch: r.epoch, rank: 0, state: "launched", exit_code: null, reason: null },
    ]);
    const welcome = await second.next("welcome");
    expect(welcome.expected).toEqual([{ run_id: r.run_id, epoch: r.epoch, rank: 0 }]);
    expect(welcome.stop).toEqual([]);
    await new Promise((x) => setTimeout(x, 200));
    expect(second.frames.filter((f) => f.type === "launch")).toEqual([]);
    expect((await job(sub.body.job.id)).job.status).toBe("RUNNING");
    expect((await api(ADMIN, "GET", "/v1/fleets/ap-back")).body.nodes[0].status).toBe("ready");
    second.close();
  });

  it("fails a run as an infrastructure failure when the agent comes back without it", async () => {
    await createFleet("ap-amnesia", { kind: "process" });
    const { credential } = await enroll("ap-amnesia");
    const first = await ScriptedAgent.connect(credential);
    first.hello(inventory("box-a", 2));
    await first.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-amnesia", gpus: 2 }));
    const launch = await first.next("launch");
    first.send({ v: 1, type: "ack", id: first.id(), ref: launch.id });
    first.report(launch.request, "launched");
    await first.next("ack");
    first.close();
    const second = await ScriptedAgent.connect(credential);
    second.hello(inventory("box-a", 2), []);
    await second.next("welcome");
    const j = await job(sub.body.job.id);
    expect(j.job.status).toBe("FAILED");
    expect(j.events.at(-1).detail).toMatchObject({
      infra: true,
      reason: "the agent came back without this run",
    });
    expect((await fleetTotals("ap-amnesia")).allocated).toBe(0);
    second.close();
  });

  it("fails a gang when one rank fails and stops the other rank", async () => {
    await createFleet("ap-gang", { kind: "process" });
    const a = await enroll("ap-gang");
    const b = await enroll("ap-gang");
    const agentA = await ScriptedAgent.connect(a.credential);
    const agentB = await ScriptedAgent.connect(b.credential);
    agentA.hello(inventory("gang-a", 8));
    agentB.hello(inventory("gang-b", 8));
    await agentA.next("welcome");
    await agentB.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-gang", gpus: 16 }));
    const la = await agentA.next("launch");
    const lb = await agentB.next("launch");
    expect(new Set([la.rank, lb.rank])).toEqual(new Set([0, 1]));
    for (const [ag, l] of [
      [agentA, la],
      [agentB, lb],
    ] as const) {
      ag.send({ v: 1, type: "ack", id: ag.id(), ref: l.id });
      ag.report({ ...l.request, rank: l.rank }, "launched");
      await ag.next("ack");
    }
    agentA.report({ ...la.request, rank: la.rank }, "exited", { exit_code: 1, reason: "NCCL error" });
    const stop = await agentB.next("stop");
    expect(stop).toMatchObject({ run_id: lb.request.run_id, rank: lb.rank });
    expect((await job(sub.body.job.id)).job.status).toBe("FAILED");
    // The run keeps its whole allocation until every rank is known to be gone.
    expect((await fleetTotals("ap-gang")).allocated).toBe(16);
    const fin = agentB.report({ ...lb.request, rank: lb.rank }, "stopped", { exit_code: 143 });
    await agentB.next("ack", (f) => f.ref === fin);
    expect((await fleetTotals("ap-gang")).allocated).toBe(0);
    agentA.close();
    agentB.close();
  });

  it("a job resumed before its agent confirmed the pause waits (PREVIOUS_RUN_STOPPING) and starts once the old run released its GPUs", async () => {
    await createFleet("ap-resume", { kind: "process" });
    const { credential } = await enroll("ap-resume");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-p", 4));
    await agent.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-resume", gpus: 2 }));
    const first = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: first.id });
    agent.report(first.request, "launched");
    await agent.next("ack");
    expect((await api(op, "POST", `/v1/jobs/${sub.body.job.id}/pause`)).body.job.status).toBe("PAUSED");
    await agent.next("stop");
    // The agent has not confirmed the stop (the workload may still be writing its checkpoint); the user
    // resumes right away. Free GPUs exist, but the next run must start from that checkpoint: it waits.
    const resumed = await api(op, "POST", `/v1/jobs/${sub.body.job.id}/resume`);
    expect(resumed.body.job.status).toBe("QUEUED");
    expect(resumed.body.job.pending_reasons.map((r: { code: string }) => r.code)).toEqual([
      "PREVIOUS_RUN_STOPPING",
    ]);
    const runs = resumed.body.job.runs as Array<{ id: string; status: string; ended_at: string | null }>;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: first.request.run_id, status: "PAUSED", ended_at: null });
    expect((await fleetTotals("ap-resume")).allocated).toBe(2);
    const fin = agent.report(first.request, "stopped", { exit_code: 143 });
    await agent.next("ack", (f) => f.ref === fin);
    // Released: the next attempt is dispatched at once, as a new run on the freed GPUs.
    const second = await agent.next("launch", (f) => f.request.run_id !== first.request.run_id);
    expect(second.request.attempt).toBe(2);
    expect(second.request.resume_from).toBeNull(); // this workload registered no checkpoint
    expect((await fleetTotals("ap-resume")).allocated).toBe(2);
    expect((await job(sub.body.job.id)).job.status).toBe("SUBMITTED");
    agent.close();
  });

  it("keeps a job that runs an image QUEUED with NO_AGENT_RUNTIME while only process-runtime agents serve its series", async () => {
    await createFleet("ap-runtime", { kind: "process" });
    const proc = await ScriptedAgent.connect((await enroll("ap-runtime")).credential);
    proc.hello(inventory("box-proc", 4, "h200", "process"));
    await proc.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-runtime", gpus: 1 }));
    const queued = (await job(sub.body.job.id)).job;
    expect(queued.status).toBe("QUEUED");
    expect(queued.pending_reasons).toEqual([
      expect.objectContaining({
        code: "NO_AGENT_RUNTIME",
        details: expect.objectContaining({ needs: "container" }),
      }),
    ]);
    // A docker agent joins: the job goes to it, not to the process node.
    const dock = await ScriptedAgent.connect((await enroll("ap-runtime")).credential);
    dock.hello(inventory("box-dock", 2, "h200", "docker"));
    await dock.next("welcome");
    const launch = await dock.next("launch");
    expect(launch.request.job_id).toBe(sub.body.job.id);
    expect(proc.frames.some((f) => f.type === "launch")).toBe(false);
    proc.close();
    dock.close();
  });

  it("records the same history when a rank's exit is applied before its launch report", async () => {
    await createFleet("ap-order", { kind: "process" });
    const { credential } = await enroll("ap-order");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("box-o", 2));
    await agent.next("welcome");
    const sub = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "ap-order", gpus: 1 }));
    const launch = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
    const exited = agent.report(launch.request, "exited", { exit_code: 0 });
    await agent.next("ack", (f) => f.ref === exited);
    const late = agent.report(launch.request, "launched");
    await agent.next("ack", (f) => f.ref === late);
    // The late "launched" is for a rank that is over: the agent is told to stop whatever still runs.
    await agent.next("stop", (f) => f.run_id === launch.request.run_id);
    const j = await job(sub.body.job.id);
    expect(j.job.status).toBe("SUCCEEDED");
    expect(j.events.map((e: { edge: string }) => e.edge)).toEqual([
      "admitted",
      "dispatch",
      "ack",
      "started",
      "succeeded",
    ]);
    expect((await fleetTotals("ap-order")).allocated).toBe(0);
    agent.close();
  });
});
