/**
 * Tier 3: `sf submit --fleet a,b`, `--fleet-selector` and `sf job why` against a real control plane and
 * real agents. Two fleets of this file's own (one agent each, 1 simulated H200): a job of the first fills
 * it; a job naming both goes to the second, which starts it now; `sf job why` lists both candidates, the
 * chosen one and why; a selector matching nothing is refused with NO_ELIGIBLE_FLEET (exit 5) and each
 * candidate's reason; a job waiting on the first moves to the second when it frees up, and `sf job why`
 * lists the move.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { newSfHome, sf } from "../support/sf.js";
import { fleetWithAgent, sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

const EXP = unique("exp");
const LONG = ["--set", "max_steps=100000", "--set", "batch_size=1000", "--set", "checkpoint_every=100"];
const JOB_ID = /job_[0-9a-z]{26}/;
const SITE = unique("site");
let s: Server;
let p: Project;
let first = "";
let second = "";
const agents: ForgeletProc[] = [];

beforeAll(async () => {
  const cp = sharedControlPlane();
  const admin = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: cp.adminToken } };
  for (const prefix of ["plc-a", "plc-b"]) {
    const { fleet, agent } = await fleetWithAgent(cp, prefix, { gpus: 1 });
    agents.push(agent);
    const r = await sf(["admin", "fleet", "labels", fleet, `site=${SITE}`], admin);
    if (r.code !== 0) throw new Error(`labels: ${r.stderr}`);
    if (prefix === "plc-a") first = fleet;
    else second = fleet;
  }
  s = await serverUser(cp, unique("pia"));
  p = await makeProject(s, { fleet: first, project: unique("plc"), exp: EXP });
});

afterAll(async () => {
  for (const a of agents) await a.dispose();
});

describe("sf submit over several fleets", () => {
  it("goes to the fleet that can start it now, and sf job why lists the candidates", async () => {
    const cp = sharedControlPlane();
    const fill = await p.sf(["submit", EXP, "--profile", "h200:1", ...LONG]);
    expect(fill.code, fill.stderr).toBe(0);
    const filler = JOB_ID.exec(fill.stdout)![0];
    await waitForStatus(cp, s.token, filler, ["RUNNING"], 60_000);

    const both = await p.sf(["submit", EXP, "--profile", "h200:1", "--fleet", `${first},${second}`, ...LONG]);
    expect(both.code, both.stderr).toBe(0);
    const placed = JOB_ID.exec(both.stdout)![0];
    await waitForStatus(cp, s.token, placed, ["RUNNING"], 60_000);
    const job = (await call(cp, s.token, "GET", `/v1/jobs/${placed}`)).body.job as { fleet_id: string };
    const fleets = (await call(cp, s.token, "GET", "/v1/fleets")).body.fleets as Array<{
      id: string;
      name: string;
    }>;
    expect(fleets.find((f) => f.id === job.fleet_id)?.name).toBe(second);

    const why = await p.sf(["job", "why", placed]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.stdout).toContain("Placement (when it was submitted)");
    expect(why.stdout).toMatch(
      new RegExp(`^${first}\\s+yes\\s+unknown\\s+full, and nothing there ends`, "m"),
    );
    expect(why.stdout).toMatch(
      new RegExp(`^${second}\\s+yes\\s+yes\\s+now\\s+fits now \\(h200: 1/1 free`, "m"),
    );
    const one = await p.sf(["job", "why", filler]);
    expect(one.stdout).toContain("it named one fleet: no other was considered");

    // Every fleet of the site is busy now; a selector of a site no fleet has is refused with each reason.
    const none = await p.sf(["submit", EXP, "--profile", "h200:1", "--fleet-selector", `site=${SITE}-x`]);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain("NO_ELIGIBLE_FLEET");
    expect(none.stderr).toContain("no fleet matches the job's fleet selector");
    const both2 = await p.sf([
      "submit",
      EXP,
      "--profile",
      "h200:1",
      "--fleet",
      first,
      "--fleet-selector",
      "any",
    ]);
    expect(both2.code).toBe(2);
    expect(both2.stderr).toContain("give --fleet or --fleet-selector, not both");

    // Both fleets are busy: a job naming both waits on the first; when the second frees up it moves there,
    // and sf job why lists the move.
    const waiting = await p.sf([
      "submit",
      EXP,
      "--profile",
      "h200:1",
      "--fleet",
      `${first},${second}`,
      ...LONG,
    ]);
    expect(waiting.code, waiting.stderr).toBe(0);
    const mover = JOB_ID.exec(waiting.stdout)![0];
    expect((await p.sf(["job", "stop", placed])).code).toBe(0);
    await waitForStatus(cp, s.token, mover, ["RUNNING"], 60_000);
    const moved = await p.sf(["job", "why", mover]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain("Moves while it waited");
    expect(moved.stdout).toMatch(
      new RegExp(`\\s${first}\\s+${second}\\s+it could start the job now: fits now \\(h200: 1/1 free`),
    );
    const json = JSON.parse((await p.sf(["job", "why", mover, "--json"])).stdout) as {
      reroutes: Array<{ from: string; to: string; why: string }>;
    };
    expect(json.reroutes).toEqual([
      expect.objectContaining({ from: first, to: second, why: "starts_sooner" }),
    ]);

    for (const id of [filler, mover]) expect((await p.sf(["job", "stop", id])).code).toBe(0);
  });
});
