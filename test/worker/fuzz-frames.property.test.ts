/**
 * The agent protocol under fuzz, over real sockets: generated and mutated frames of every AgentFrame type
 * (hello, ack, inventory, report, error) and garbage (binary, not JSON, huge, unknown types, other
 * versions, stale epochs, unknown runs, another node's run). Every server frame obeys the contract
 * (ServerFrame); a frame the Fleet DO refuses gets an `error` frame with a FRAME_ERROR_CODES code and
 * changes no job, run, rank, node or GPU; the DO never crashes (a hello still gets its welcome, the
 * fleet still reads back, its books still add up).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentFrame,
  FRAME_ERROR_CODES,
  parseFrame,
  ServerFrame,
} from "../../contract/agent-frames.schema.js";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { garbage, mutated, serialize } from "./fuzz-arbitraries.js";
import { expectConsistentFleet, fleetSnapshot, fuzzParams, fuzzRuns } from "./fuzz-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";

const RUNS = fuzzRuns(80);
const FLEET = "fz-frames";

interface Agent {
  credential: string;
  nodeId: string;
  socket: ScriptedAgent;
  host: string;
}

/** A run an agent holds: the one its reports name. */
interface HeldRun {
  run_id: string;
  epoch: number;
  job_id: string;
}

let op = "";
let fleetId = "";
let a: Agent;
let b: Agent;
let runA: HeldRun;
let runB: HeldRun;
let barrier = 0;

async function connect(agent: Omit<Agent, "socket"> & { socket?: ScriptedAgent }): Promise<ScriptedAgent> {
  const socket = await ScriptedAgent.connect(agent.credential);
  socket.sendRaw(JSON.stringify(helloFrame(agent.host, [])));
  await socket.next("welcome");
  return socket;
}

function helloFrame(host: string, journal: unknown[]) {
  return { v: 1, type: "hello", id: "fz-hello", inventory: inventory(host, 4), journal };
}

/** A 4-GPU job that is never retried: a retry's timer would change the fleet while a frame is checked. */
function fuzzJob() {
  return customSpec({ fleet: FLEET, gpus: 4, lifecycle: { max_retries: 0, retry_on_user_failure: false } });
}

/** Submits a 4-GPU job, which lands on the only agent with 4 free GPUs, and starts its run there. */
async function startRun(agent: Agent): Promise<HeldRun> {
  const from = agent.socket.frames.length;
  const sub = await api(op, "POST", "/v1/jobs", await fuzzJob());
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  const launch = await agent.socket.next("launch", (l) => l.request.job_id === sub.body.job.id, from);
  agent.socket.sendRaw(JSON.stringify({ v: 1, type: "ack", id: "fz-ack", ref: launch.id }));
  const r = launch.request;
  const held = { run_id: r.run_id, epoch: r.epoch, job_id: r.job_id };
  agent.socket.report({ run_id: r.run_id, epoch: r.epoch }, "launched");
  await agent.socket.next("ack", () => true, from);
  return held;
}

beforeAll(async () => {
  op = await createUser("fz-frames-op");
  await api(ADMIN, "PUT", "/v1/users/fz-frames-op/quota", {
    max_gpus: 10_000,
    max_jobs: 10_000,
    daily_gpu_hours: 1e6,
  });
  await publishTestCapsule();
  fleetId = (await createFleet(FLEET, { kind: "process" })).id;
  const ea = await enroll(FLEET);
  a = { ...ea, host: "fz-a", socket: await connect({ ...ea, host: "fz-a" }) };
  runA = await startRun(a);
  const eb = await enroll(FLEET);
  b = { ...eb, host: "fz-b", socket: await connect({ ...eb, host: "fz-b" }) };
  runB = await startRun(b);
}, 60_000);

/** Valid frames of each type, from agent A about its own run. */
function seeds(): Record<string, unknown> {
  const journal = [
    { run_id: runA.run_id, epoch: runA.epoch, rank: 0, state: "launched", exit_code: null, reason: null },
  ];
  return {
    hello: { ...helloFrame(a.host, journal), id: "fz-1" },
    ack: { v: 1, type: "ack", id: "fz-1", ref: "frm_00000000000000000000000000" },
    inventory: { v: 1, type: "inventory", id: "fz-1", inventory: inventory(a.host, 4) },
    report: {
      v: 1,
      type: "report",
      id: "fz-1",
      run_id: runA.run_id,
      epoch: runA.epoch,
      rank: 0,
      event: "launched",
      exit_code: null,
      reason: null,
      infra: false,
      ts: new Date().toISOString(),
    },
    error: {
      v: 1,
      type: "error",
      id: "fz-1",
      ref: "frm_00000000000000000000000000",
      code: "LAUNCH_FAILED",
      message: "x",
    },
  };
}

type Sent = { kind: "text"; text: string } | { kind: "binary"; bytes: number[] };

/** A frame of `type`: valid, mutated, or aimed at a stale epoch, an unknown run or B's run. */
function frameArb(type: string): fc.Arbitrary<Sent> {
  const valid = seeds()[type];
  const json = (v: unknown): Sent => ({ kind: "text", text: serialize(v) });
  const aimed =
    type === "report"
      ? [
          fc.integer({ min: -3, max: 5 }).map((d) => json({ ...(valid as object), epoch: runA.epoch + d })),
          fc
            .constantFrom("run_unknown", "", runA.job_id, "x".repeat(3_000))
            .map((id) => json({ ...(valid as object), run_id: id })),
          fc
            .constantFrom("launched", "exited", "stopped", "launch_failed")
            .map((event) => json({ ...(valid as object), run_id: runB.run_id, epoch: runB.epoch, event })),
        ]
      : [];
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(json(valid)) },
    { weight: 6, arbitrary: mutated(valid).map(json) },
    ...aimed.map((arbitrary) => ({ weight: 2, arbitrary })),
    {
      weight: 1,
      arbitrary: fc.constantFrom(0, 2, "1", null, 1.5).map((v) => json({ ...(valid as object), v })),
    },
  );
}

/** Frames no type fits: binary, not JSON, unknown types, huge. */
const junkArb: fc.Arbitrary<Sent> = fc.oneof(
  garbage({ v: 1, type: "hello", id: "fz-1" }).map((body): Sent => {
    if (body.kind === "bytes") return { kind: "binary", bytes: body.bytes };
    if (body.kind === "text") return { kind: "text", text: body.text };
    if (body.kind === "json") return { kind: "text", text: serialize(body.value) };
    return { kind: "text", text: "" };
  }),
  fc.constantFrom("teleport", "welcome", "launch", "", "HELLO").map(
    (type): Sent => ({
      kind: "text",
      text: JSON.stringify({ v: 1, type, id: "fz-1" }),
    }),
  ),
  fc
    .constantFrom(
      JSON.stringify({ v: 1, type: "hello", id: "x".repeat(5_000) }),
      JSON.stringify({ v: 1, type: "report", id: "fz-1", run_id: "r".repeat(600_000) }),
      JSON.stringify({ v: 1, type: "hello", id: "fz-1", inventory: { labels: { ["k".repeat(4_000)]: 1 } } }),
    )
    .map((text): Sent => ({ kind: "text", text })),
);

/** What the contract's parser (the DO's own) says the DO must answer: a refusal, or the frame's reply. */
type Expected =
  | { kind: "refusal"; ref: string | null; code: string }
  | { kind: "welcome" | "nothing" }
  | { kind: "ack" | "ack-or-refusal"; ref: string };

function expectedAnswer(sent: Sent): Expected {
  if (sent.kind === "binary") return { kind: "refusal", ref: null, code: "MALFORMED_FRAME" };
  const p = parseFrame(AgentFrame, sent.text);
  if (!p.ok) return { kind: "refusal", ref: p.ref, code: p.code };
  const f = p.frame;
  if (f.type === "hello") return { kind: "welcome" };
  if (f.type === "inventory") return { kind: "ack", ref: f.id };
  if (f.type === "report") return { kind: "ack-or-refusal", ref: f.id };
  return { kind: "nothing" };
}

function answers(e: Expected): (f: ServerFrame) => boolean {
  switch (e.kind) {
    case "refusal":
      return (f) => f.type === "error" && f.ref === e.ref;
    case "welcome":
      return (f) => f.type === "welcome";
    case "ack":
      return (f) => f.type === "ack" && f.ref === e.ref;
    case "ack-or-refusal":
      return (f) => (f.type === "ack" || f.type === "error") && f.ref === e.ref;
    case "nothing":
      return () => false;
  }
}

async function waitFrame(socket: ScriptedAgent, pred: (f: ServerFrame) => boolean, from: number) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const hit = socket.frames.slice(from).find(pred);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error("the Fleet DO did not answer within 5 s");
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

/**
 * Sends one frame and waits for its answer (if it has one), then for the answer to a barrier frame: the
 * DO may send answers out of order (an answer waits for the storage writes before it), so the barrier
 * only bounds what else the frame caused. Resolves early with the close code if the socket closes.
 */
async function exchange(socket: ScriptedAgent, sent: Sent, expected: Expected) {
  const from = socket.frames.length;
  const rawFrom = socket.raw.length;
  if (sent.kind === "binary") socket.ws.send(new Uint8Array(sent.bytes));
  else socket.sendRaw(sent.text);
  const id = `fz-barrier-${++barrier}`;
  const done = (async () => {
    const answer = expected.kind === "nothing" ? null : await waitFrame(socket, answers(expected), from);
    socket.sendRaw(JSON.stringify({ v: 1, type: "barrier", id }));
    await waitFrame(socket, (f) => f.type === "error" && f.ref === id, from);
    return answer;
  })();
  const closed = socket.closed.then((c) => c.code);
  const end = await Promise.race([done.then((answer) => ({ answer })), closed.then((code) => ({ code }))]);
  const raw = socket.raw.slice(rawFrom).filter((t) => t !== "pong" && !t.includes(id));
  return { raw, answer: "answer" in end ? end.answer : null, closed: "code" in end ? end.code : null };
}

/** The state a refused frame must not touch (the DO is the authority; D1 follows it). */
function stateOf() {
  return fleetSnapshot(fleetId);
}

const OVER = ["SUCCEEDED", "FAILED", "STOPPED", "PAUSED"];
/** A job submitted to give A a run again, until its launch arrives. */
let queued: string | null = null;

/** Keeps agent A connected and holding a live run, so later frames still reach deep code. */
async function keepUp(): Promise<void> {
  if (a.socket.ws.readyState !== WebSocket.OPEN) a.socket = await connect(a);
  // B only listens: its pings keep the DO from closing its socket as silent (and failing its run).
  b.socket.sendRaw("ping");
  const jobs = (await stateOf()).jobs as Array<{ id: string; status: string }>;
  if (!OVER.includes(jobs.find((j) => j.id === runA.job_id)?.status ?? "")) return;
  // Fuzzed reports may end A's run; a new one comes from a job queued for A's GPUs.
  const launch = a.socket.frames.findLast(
    (f): f is Extract<typeof f, { type: "launch" }> => f.type === "launch" && f.request.job_id === queued,
  );
  if (launch) {
    const r = launch.request;
    a.socket.sendRaw(JSON.stringify({ v: 1, type: "ack", id: "fz-ack", ref: launch.id }));
    const started = a.socket.report({ run_id: r.run_id, epoch: r.epoch }, "launched");
    // Applied before the next frame's "before" is read, or it would look like that frame's doing.
    await waitFrame(a.socket, (f) => (f.type === "ack" || f.type === "error") && f.ref === started, 0);
    runA = { run_id: r.run_id, epoch: r.epoch, job_id: r.job_id };
    queued = null;
  } else if (queued === null) {
    queued = (await api(op, "POST", "/v1/jobs", await fuzzJob())).body.job.id;
  }
}

/** Every frame the DO sent obeys the contract, and its refusals carry a protocol code. */
function checkFrames(raw: string[], label: string): void {
  for (const text of raw) {
    const parsed = ServerFrame.safeParse(JSON.parse(text));
    expect(
      parsed.success,
      `${label}: the server sent a frame outside its contract: ${text.slice(0, 300)}`,
    ).toBe(true);
    const f = parsed.data!;
    if (f.type === "error") expect(FRAME_ERROR_CODES as readonly string[], label).toContain(f.code);
  }
}

let frameNo = 0;

async function fuzzOne(generated: Sent): Promise<void> {
  await keepUp();
  // Each frame its own id, so its answer is told apart from any other's.
  const sent: Sent =
    generated.kind === "text"
      ? { kind: "text", text: generated.text.replace('"fz-1"', `"fz-${++frameNo}"`) }
      : generated;
  const label = sent.kind === "binary" ? `binary ${sent.bytes.length} bytes` : sent.text.slice(0, 200);
  const expected = expectedAnswer(sent);
  const before = await stateOf();
  const { raw, answer, closed } = await exchange(a.socket, sent, expected);
  checkFrames(raw, label);
  if (closed !== null) {
    // Only the runtime's own limit may close the socket: a message over 1 MiB (1009, too big).
    const big = sent.kind === "text" && sent.text.length > 1_000_000;
    expect({ closed, big }, label).toEqual({ closed: 1009, big: true });
    expect(await stateOf(), `${label} closed the socket but changed state`).toEqual(before);
    return;
  }
  if (expected.kind === "refusal") expect(answer, label).toMatchObject({ code: expected.code });
  // A report about a run this agent does not hold is refused like an unknown run.
  const report = expected.kind === "ack-or-refusal" && sent.kind === "text" ? JSON.parse(sent.text) : null;
  if (report?.run_id === runB.run_id) {
    expect(answer, `${label}: agent A's report about agent B's run`).toMatchObject({ code: "UNKNOWN_RUN" });
  }
  if (answer?.type === "error")
    expect(await stateOf(), `${label} was refused but changed state`).toEqual(before);
}

describe("fuzzed agent frames", () => {
  for (const type of ["hello", "ack", "inventory", "report", "error"]) {
    it(
      `${type} frames: coded refusals, frames within the contract, refused ones change nothing`,
      async () => {
        await fc.assert(fc.asyncProperty(frameArb(type), fuzzOne), fuzzParams(`frames ${type}`, RUNS));
      },
      30_000 + RUNS * 1_000,
    );
  }

  it(
    "junk frames: coded refusals, and nothing changes",
    async () => {
      // Explicit example: quoting a version nested 100 000 deep overflowed the stack (the frame went unanswered).
      const deepVersion: Sent = {
        kind: "text",
        text: `{"v":${"[".repeat(100_000)}${"]".repeat(100_000)},"type":"hello","id":"fz-1"}`,
      };
      await fc.assert(
        fc.asyncProperty(junkArb, fuzzOne),
        fuzzParams<[Sent]>("frames junk", RUNS, [[deepVersion]]),
      );
    },
    30_000 + RUNS * 1_000,
  );
});

afterAll(async () => {
  // The same socket (or a new one, if the fuzz made the DO close it) still gets a welcome to a hello.
  await keepUp();
  const from = a.socket.frames.length;
  a.socket.sendRaw(JSON.stringify(helloFrame(a.host, [])));
  expect((await a.socket.next("welcome", () => true, from)).node_id).toBe(a.nodeId);
  const fresh = await connect(b);
  const r = await api(ADMIN, "GET", `/v1/fleets/${FLEET}`);
  expect(r.status).toBe(200);
  expect(r.body.totals.allocated).toBeLessThanOrEqual(r.body.totals.gpus);
  await expectConsistentFleet(fleetId);
  for (const s of [a.socket, b.socket, fresh]) s.close();
}, 60_000);
