/** Tier 3: `sf admin node ls|cordon|uncordon|drain|revoke|rm` on a real control plane with a real forgelet. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";

let cp: ControlPlane;
let admin: SfEnv;

interface Node {
  name: string;
  status: string;
  cordoned: boolean;
  cordon_note: string | null;
  revoked: boolean;
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: cp.adminToken } };
});

afterAll(async () => {
  await cp?.stop();
});

const nodes = async () =>
  (await sfJson<{ nodes: Node[] }>(["admin", "node", "ls", "--fleet", "local"], admin)).nodes;

describe("sf admin node", () => {
  it("lists, cordons with a note, uncordons, drains, revokes and removes the local node", async () => {
    expect((await nodes()).map((n) => [n.name, n.status, n.cordoned])).toEqual([["local-1", "ready", false]]);
    const cordon = await sf(
      ["admin", "node", "cordon", "local-1", "--fleet", "local", "--note", "fan swap"],
      admin,
    );
    expect(cordon.code, cordon.stderr).toBe(0);
    expect(cordon.stderr).toContain("cordoned");
    const table = await sf(["admin", "node", "ls", "--fleet", "local"], admin);
    expect(table.stdout).toMatch(/local-1\s+nod_\S+\s+cordoned: fan swap/);
    expect((await sf(["admin", "node", "uncordon", "local-1", "--fleet", "local"], admin)).code).toBe(0);
    expect((await nodes())[0]?.cordoned).toBe(false);
    const drain = await sf(["admin", "node", "drain", "local-1", "--fleet", "local"], admin);
    expect(drain.stdout).toContain("nothing was running there");
    const missing = await sf(["admin", "node", "cordon", "nope", "--fleet", "local"], admin);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("NODE_NOT_FOUND");
    const revoke = await sf(
      ["admin", "node", "revoke", "local-1", "--fleet", "local", "--note", "retired"],
      admin,
    );
    expect(revoke.code, revoke.stderr).toBe(0);
    expect((await nodes())[0]).toMatchObject({ revoked: true, cordoned: true });
    const rm = await sf(["admin", "node", "rm", "local-1", "--fleet", "local"], admin);
    expect(rm.code, rm.stderr).toBe(0);
    expect(await nodes()).toEqual([]);
    const usage = await sf(["admin", "node", "cordon", "local-1"], admin);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--fleet");
  });
});
