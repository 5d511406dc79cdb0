/** Tier 3: `sf admin node ls|cordon|uncordon|drain|revoke|rm` on a real control plane with a real forgelet. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { fleetWithAgent, sharedControlPlane, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let admin: SfEnv;
/** This file's own fleet with one forgelet in it (the shared control plane has no agent of its own). */
let fleet = "";
let node = "";
let agent: ForgeletProc | undefined;

interface Node {
  name: string;
  status: string;
  cordoned: boolean;
  cordon_note: string | null;
  revoked: boolean;
}

beforeAll(async () => {
  cp = sharedControlPlane();
  admin = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: cp.adminToken } };
  const made = await fleetWithAgent(cp, "nodes");
  fleet = made.fleet;
  agent = made.agent;
  node = `${fleet}-1`;
});

afterAll(async () => {
  await agent?.dispose();
});

const nodes = async () =>
  (await sfJson<{ nodes: Node[] }>(["admin", "node", "ls", "--fleet", fleet], admin)).nodes;

describe("sf admin node", () => {
  it("lists, cordons with a note, uncordons, drains, revokes and removes the fleet's node", async () => {
    expect((await nodes()).map((n) => [n.name, n.status, n.cordoned])).toEqual([[node, "ready", false]]);
    const cordon = await sf(["admin", "node", "cordon", node, "--fleet", fleet, "--note", "fan swap"], admin);
    expect(cordon.code, cordon.stderr).toBe(0);
    expect(cordon.stderr).toContain("cordoned");
    const table = await sf(["admin", "node", "ls", "--fleet", fleet], admin);
    expect(table.stdout).toMatch(new RegExp(`${node}\\s+nod_\\S+\\s+cordoned: fan swap`));
    expect((await sf(["admin", "node", "uncordon", node, "--fleet", fleet], admin)).code).toBe(0);
    expect((await nodes())[0]?.cordoned).toBe(false);
    const drain = await sf(["admin", "node", "drain", node, "--fleet", fleet], admin);
    expect(drain.stdout).toContain("nothing was running there");
    const missing = await sf(["admin", "node", "cordon", unique("nope"), "--fleet", fleet], admin);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("NODE_NOT_FOUND");
    const revoke = await sf(["admin", "node", "revoke", node, "--fleet", fleet, "--note", "retired"], admin);
    expect(revoke.code, revoke.stderr).toBe(0);
    // A revoked agent's every reconnect is a failed login, counted against this machine's address, which
    // every file on the shared control plane shares: it is stopped at once, not left to knock until afterAll.
    await agent?.kill();
    expect((await nodes())[0]).toMatchObject({ revoked: true, cordoned: true });
    const rm = await sf(["admin", "node", "rm", node, "--fleet", fleet], admin);
    expect(rm.code, rm.stderr).toBe(0);
    expect(await nodes()).toEqual([]);
    const usage = await sf(["admin", "node", "cordon", node], admin);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--fleet");
  });
});
