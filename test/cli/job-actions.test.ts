/**
 * Tier 3: `sf job status` of a queued job (its pending reason) and of a running one, and
 * `sf job stop|pause|resume` changing a real job's state, with a refused transition exiting 5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { baseSpec, jobState, recipeDigest, waitForStatus } from "../support/jobs.js";
import { newSfHome, sf, sfJson } from "../support/sf.js";
import {
  fleetWithAgent,
  newFleet,
  newUser,
  sharedControlPlane,
  unique,
} from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let token = "";
let home = "";
/** This file's user: she sees only her own jobs on the shared control plane. */
let otto = "";
/** A fleet without nodes: whatever is submitted there stays QUEUED. */
let empty = "";
/** This file's fleet with one agent (8 simulated H200s), where jobs run. */
let running = "";
let agent: ForgeletProc | undefined;
/** The name of this file's jobs. */
const LONG = unique("long");

const run = (args: string[]) => sf(args, { home, server: cp.url });
const json = <T>(args: string[]) => sfJson<T>(args, { home, server: cp.url });

/** A custom job that prints a line every half second for a long time (until it is stopped). */
async function longJob(fleet: string): Promise<string> {
  const trainSh =
    '#!/usr/bin/env bash\nset -euo pipefail\nfor i in $(seq 1 600); do echo "tick $i"; sleep 0.5; done\n';
  const workspace = await uploadWorkspace(cp.url, token, [
    { path: "exp/train.sh", content: trainSh, mode: 0o755 },
  ]);
  const spec = baseSpec({
    name: LONG,
    fleet,
    recipe: {
      name: "custom/custom",
      version: "1.0.0",
      digest: await recipeDigest(cp, token, "custom/custom"),
    },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: null },
    workspace,
    experimentDir: "exp",
  });
  const r = await call(cp, token, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (r.body.job as { id: string }).id;
}

interface Acted {
  job: { id: string; status: string };
}

beforeAll(async () => {
  cp = sharedControlPlane();
  ({ name: otto, token } = await newUser(cp, "otto"));
  home = newSfHome();
  const login = await sf(["login", "--server", cp.url, "--token", token], { home });
  expect(login.code, login.stderr).toBe(0);
  empty = await newFleet(cp, "empty");
  expect((await call(cp, cp.adminToken, "GET", `/v1/fleets/${empty}`)).status).toBe(200);
  ({ fleet: running, agent } = await fleetWithAgent(cp, "actions", { gpus: 8 }));
});

afterAll(async () => {
  await agent?.dispose();
});

describe("a queued job", () => {
  it("shows why it waits, and moves QUEUED → PAUSED → QUEUED → STOPPED with pause, resume, stop", async () => {
    const id = await longJob(empty);
    await waitForStatus(cp, token, id, ["QUEUED"]);
    let status = await run(["job", "status", id]);
    for (let i = 0; i < 50 && !status.stdout.includes("waiting:"); i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await run(["job", "status", id]);
    }
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${id}\\s+${LONG}\\s+QUEUED`));
    expect(status.stdout).toMatch(/waiting: no h200 node is registered in this fleet \[NO_NODE_OF_SERIES\]/);
    const detail = await json<{ job: { pending_reasons: Array<{ code: string }> } }>(["job", "status", id]);
    expect(detail.job.pending_reasons.map((r) => r.code)).toEqual(["NO_NODE_OF_SERIES"]);

    const paused = await run(["job", "pause", id]);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toBe(`${id} PAUSED\n`);
    const resumed = await json<Acted>(["job", "resume", id, "--reason", "try again"]);
    expect(resumed.job).toMatchObject({ id, status: "QUEUED" });
    const stopped = await run(["job", "stop", id, "--reason", "not needed"]);
    expect(stopped.stdout).toBe(`${id} STOPPED\n`);

    const events = (await jobState(cp, token, id)).events;
    expect(events.map((e) => e.edge)).toEqual(["admitted", "hold", "resume", "stop_queued"]);
    expect(events.find((e) => e.edge === "resume")?.detail).toEqual({ reason: "try again" });
  });

  it("refuses an illegal transition with exit 5, INVALID_TRANSITION and a hint", async () => {
    const id = await longJob(empty);
    expect((await run(["job", "stop", id])).code).toBe(0);
    const r = await run(["job", "pause", id]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/cannot pause a job that is STOPPED.*\[INVALID_TRANSITION\]/);
    expect(r.stderr).toMatch(new RegExp(`hint: a STOPPED job can be resumed \\(\`sf job resume ${id}\`\\)`));
    const asJson = await sf(["job", "pause", id, "--json"], { home, server: cp.url });
    expect(asJson.code).toBe(5);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ error: { code: "INVALID_TRANSITION" } });
    expect((await jobState(cp, token, id)).job.status).toBe("STOPPED");
  });
});

describe("a running job", () => {
  it("shows its run's placement, pauses (releasing its GPUs), resumes, runs again and stops", async () => {
    const id = await longJob(running);
    await waitForStatus(cp, token, id, ["RUNNING"], 60_000);
    const status = await run(["job", "status", id]);
    expect(status.stdout).toMatch(new RegExp(`^${id}\\s+${LONG}\\s+RUNNING`));
    expect(status.stdout).toMatch(/\n1\s+run_\w+\s+[A-Z]+\s+-\s+\S+\s+nod_\w+\[\d\]/);
    expect(status.stdout).not.toContain("waiting:");

    const paused = await json<{ job: Acted["job"] & { runs: Array<{ status: string; reason: string }> } }>([
      "job",
      "pause",
      id,
    ]);
    expect(paused.job.status).toBe("PAUSED");
    expect(paused.job.runs.map((r) => [r.status, r.reason])).toEqual([["PAUSED", `pause by ${otto}`]]);
    type Totals = { fleets: Array<{ name: string; allocated: number; queued: number }> };
    const local = async () => (await json<Totals>(["status"])).fleets.find((f) => f.name === running)!;
    for (let i = 0; i < 100 && (await local()).allocated > 0; i++)
      await new Promise((r) => setTimeout(r, 200));
    expect((await local()).allocated).toBe(0);
    expect((await json<Acted>(["job", "resume", id])).job.status).toMatch(/QUEUED|SUBMITTED/);
    const again = await waitForStatus(cp, token, id, ["RUNNING"], 60_000);
    expect(again.runs.map((r) => r.attempt)).toEqual([1, 2]);

    const stopped = await run(["job", "stop", id]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toBe(`${id} STOPPED\n`);
    const follow = await run(["job", "logs", id, "-f"]);
    expect(follow.code).toBe(7);
    expect(follow.stderr).toMatch(/STOPPED/);
    expect((await json<Totals>(["status"])).fleets.find((f) => f.name === empty)?.queued).toBe(0);
  });
});
