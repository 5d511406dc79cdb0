import { describe, expect, it } from "vitest";
import {
  ACTION_TARGETS,
  findEdge,
  IllegalTransitionError,
  JOB_STATES,
  type JobState,
  TRANSITIONS,
  transition,
} from "../../contract/job-states.js";

/**
 * The legal edges, written out independently of the table: the seed's main edges plus the extra ones the
 * architecture doc names. Adding or removing an edge in contract/job-states.ts must be a deliberate act
 * that also updates this list.
 */
const EXPECTED_EDGES: ReadonlyArray<readonly [JobState, JobState]> = [
  // seed
  ["QUEUED", "SUBMITTED"],
  ["SUBMITTED", "PENDING"],
  ["PENDING", "RUNNING"],
  ["RUNNING", "SUCCEEDED"],
  ["RUNNING", "FAILED"],
  ["RUNNING", "STOPPED"],
  ["RUNNING", "PAUSED"],
  ["PAUSED", "QUEUED"],
  ["FAILED", "QUEUED"],
  ["STOPPED", "QUEUED"],
  // launch failures before RUNNING
  ["SUBMITTED", "FAILED"],
  ["PENDING", "FAILED"],
  // stops before RUNNING, and of a paused job
  ["QUEUED", "STOPPED"],
  ["SUBMITTED", "STOPPED"],
  ["PENDING", "STOPPED"],
  ["PAUSED", "STOPPED"],
  // a dispatch the agent never acknowledged
  ["SUBMITTED", "QUEUED"],
  // hold while waiting
  ["QUEUED", "PAUSED"],
  // a verdict, not a hang: no candidate fleet started it within its placement timeout
  ["QUEUED", "FAILED"],
];

const key = (from: JobState, to: JobState) => `${from}>${to}`;
const expected = new Set(EXPECTED_EDGES.map(([f, t]) => key(f, t)));
const ALL_PAIRS: Array<[JobState, JobState]> = JOB_STATES.flatMap((from) =>
  JOB_STATES.map((to): [JobState, JobState] => [from, to]),
);

describe("the transition table", () => {
  it("has exactly the documented edges", () => {
    expect(new Set(TRANSITIONS.map((e) => key(e.from, e.to)))).toEqual(expected);
    expect(TRANSITIONS).toHaveLength(EXPECTED_EDGES.length);
  });

  it("enumerates all 64 ordered pairs of the 8 states", () => {
    expect(JOB_STATES).toHaveLength(8);
    expect(ALL_PAIRS).toHaveLength(64);
  });

  it.each(TRANSITIONS.map((e) => [e.from, e.to, e.name] as const))(
    "accepts %s -> %s (%s)",
    (from, to, name) => {
      const edge = transition(from, to);
      expect(edge.name).toBe(name);
      expect(edge.from).toBe(from);
      expect(edge.to).toBe(to);
      expect(findEdge(from, to)).toBe(edge);
    },
  );

  it.each(ALL_PAIRS.filter(([f, t]) => !expected.has(key(f, t))))("refuses %s -> %s", (from, to) => {
    expect(findEdge(from, to)).toBeUndefined();
    let thrown: unknown;
    try {
      transition(from, to);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(IllegalTransitionError);
    if (!(thrown instanceof IllegalTransitionError)) return;
    expect(thrown.from).toBe(from);
    expect(thrown.to).toBe(to);
    expect(thrown.message).toBe(`illegal job transition ${from} -> ${to}`);
  });

  it("refuses every self-loop", () => {
    for (const s of JOB_STATES) expect(() => transition(s, s)).toThrow(IllegalTransitionError);
  });

  it("gives SUCCEEDED no way out", () => {
    expect(TRANSITIONS.filter((e) => e.from === "SUCCEEDED")).toEqual([]);
    for (const to of JOB_STATES) expect(() => transition("SUCCEEDED", to)).toThrow(IllegalTransitionError);
  });

  it("lets every other state move somewhere", () => {
    for (const s of JOB_STATES.filter((s) => s !== "SUCCEEDED")) {
      expect(TRANSITIONS.some((e) => e.from === s)).toBe(true);
    }
  });

  it("names every edge uniquely and justifies it", () => {
    const names = TRANSITIONS.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    for (const e of TRANSITIONS) {
      expect(e.name).toMatch(/^[a-z][a-z_]*$/);
      expect(e.why.length).toBeGreaterThan(10);
    }
  });

  it("has no edge listed twice for the same pair", () => {
    const pairs = TRANSITIONS.map((e) => key(e.from, e.to));
    expect(new Set(pairs).size).toBe(pairs.length);
  });
});

describe("user actions", () => {
  const entries = Object.entries(ACTION_TARGETS).flatMap(([action, targets]) =>
    Object.entries(targets).map(([from, to]) => [action, from, to] as [string, JobState, JobState]),
  );

  it.each(entries)("%s from %s goes to %s over a legal edge", (_action, from, to) => {
    expect(() => transition(from, to)).not.toThrow();
  });

  it("stops from every non-final state except a stopped or failed one", () => {
    expect(Object.keys(ACTION_TARGETS.stop).sort()).toEqual(
      ["PAUSED", "PENDING", "QUEUED", "RUNNING", "SUBMITTED"].sort(),
    );
    expect(new Set(Object.values(ACTION_TARGETS.stop))).toEqual(new Set(["STOPPED"]));
  });

  it("pauses only what is waiting or running, and resumes only into the queue", () => {
    expect(ACTION_TARGETS.pause).toEqual({ QUEUED: "PAUSED", RUNNING: "PAUSED" });
    expect(new Set(Object.values(ACTION_TARGETS.resume))).toEqual(new Set(["QUEUED"]));
    expect(ACTION_TARGETS.resume.SUCCEEDED).toBeUndefined();
    expect(ACTION_TARGETS.resume.RUNNING).toBeUndefined();
  });
});
