/** Tier 3: `sf admin fleet create|ls|show|enroll-token` and `sf admin maintenance …` on a real control plane. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { baseSpec, recipeDigest } from "../support/jobs.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";

let cp: ControlPlane;
let admin: SfEnv;
let viewer: SfEnv;

const as = (token: string): SfEnv => ({ home: newSfHome(), server: cp.url, env: { SF_TOKEN: token } });

async function submit(gpus: number, name: string) {
  const spec = baseSpec({
    name,
    fleet: "lab",
    recipe: {
      name: "custom/custom",
      version: "1.0.0",
      digest: await recipeDigest(cp, cp.adminToken, "custom/custom"),
    },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: "ghcr.io/acme/train:1.0" },
    gpus,
  });
  return call(cp, cp.adminToken, "POST", "/v1/jobs", spec);
}

beforeAll(async () => {
  cp = await startControlPlane({ agent: false });
  admin = as(cp.adminToken);
  const v = await call(cp, cp.adminToken, "POST", "/v1/users", { name: "vic", role: "viewer" });
  viewer = as(v.body.token as string);
});

afterAll(async () => {
  await cp?.stop();
});

describe("sf admin fleet", () => {
  it("creates a fleet with an image allowlist and lists it", async () => {
    const r = await sf(
      [
        "admin",
        "fleet",
        "create",
        "lab",
        "--kind",
        "docker",
        "--allow",
        "ghcr.io/acme/*",
        "--allow",
        "nvcr.io/nvidia/*",
        "--description",
        "the lab boxes",
      ],
      admin,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("created fleet lab (docker");

    const { fleets } = await sfJson<{
      fleets: Array<{ name: string; image_allowlist: string[]; description: string }>;
    }>(["admin", "fleet", "ls"], admin);
    expect(fleets.find((f) => f.name === "lab")).toMatchObject({
      image_allowlist: ["ghcr.io/acme/*", "nvcr.io/nvidia/*"],
      description: "the lab boxes",
    });
    const table = await sf(["admin", "fleet", "ls"], admin);
    expect(table.stdout).toMatch(
      /^lab\s+docker\s+open\s+ghcr.io\/acme\/\*, nvcr.io\/nvidia\/\*\s+the lab boxes$/m,
    );

    const again = await sf(["admin", "fleet", "create", "lab", "--kind", "docker"], admin);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain("ALREADY_EXISTS");
    const noKind = await sf(["admin", "fleet", "create", "lab2"], admin);
    expect(noKind.code).toBe(2);
    expect(noKind.stderr).toContain("--kind");
  });

  it("shows nodes, GPU allocations and the queue with its reasons", async () => {
    expect(
      (
        await call(cp, cp.adminToken, "POST", "/v1/fleets/lab/nodes", {
          name: "gpu-a",
          series: "h200",
          gpus: 8,
        })
      ).status,
    ).toBe(201);
    expect((await submit(4, "fits")).status).toBe(201);
    const waiting = await submit(8, "waits");
    expect(waiting.status).toBe(201);
    const waitingId = (waiting.body.job as { id: string }).id;

    const live = await sfJson<{
      totals: { gpus: number; allocated: number; queued: number };
      nodes: Array<{ name: string }>;
      queue: Array<{ job_id: string }>;
    }>(["admin", "fleet", "show", "lab"], admin);
    expect(live.totals).toMatchObject({ gpus: 8, allocated: 4, queued: 1 });
    expect(live.nodes.map((n) => n.name)).toEqual(["gpu-a"]);
    expect(live.queue.map((q) => q.job_id)).toEqual([waitingId]);

    const human = await sf(["admin", "fleet", "show", "lab"], admin);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("GPUs:    8 total, 4 allocated, 4 free");
    expect(human.stdout).toMatch(/^gpu-a\s+h200\s+ready\s+-\s+-\s+4\/8 used$/m);
    expect(human.stdout.match(/^gpu-a\s+[0-3]\s+job_\S+\s+run_\S+$/gm)).toHaveLength(4);
    expect(human.stdout).toMatch(new RegExp(`^${waitingId}\\s+usr_bootstrap_admin\\s+8\\s+\\d+\\s+\\S`, "m"));

    const missing = await sf(["admin", "fleet", "show", "nope"], admin);
    expect(missing.code).toBe(4);
  });

  it("mints a one-shot enrollment token an agent can enroll with", async () => {
    const r = await sfJson<{ token: string; fleet: string; one_shot: boolean }>(
      ["admin", "fleet", "enroll-token", "lab", "--ttl-minutes", "5"],
      admin,
    );
    expect(r).toMatchObject({ fleet: "lab", one_shot: true });
    expect(r.token).toMatch(/^sfe_/);
    expect((await call(cp, null, "POST", "/v1/agents/enroll", { token: r.token })).status).toBe(201);

    const human = await sf(["admin", "fleet", "enroll-token", "lab"], admin);
    expect(human.stdout.trim()).toMatch(/^sfe_\S+$/);
    expect(human.stderr).toContain("forgelet enroll --server");
  });
});

describe("sf admin maintenance", () => {
  it("drains a fleet (submits refused with the note) and resumes it", async () => {
    const before = await sf(["admin", "maintenance", "status", "lab"], admin);
    expect(before.stdout).toMatch(/^lab: open; \d+ running, 1 queued$/m);

    const drained = await sfJson<{ draining: boolean; note: string }>(
      ["admin", "maintenance", "drain", "lab", "--note", "driver upgrade"],
      admin,
    );
    expect(drained).toMatchObject({ draining: true, note: "driver upgrade" });
    const refused = await submit(1, "during-drain");
    expect(refused.body).toMatchObject({ error: { code: "FLEET_DRAINING" } });
    expect((await sf(["admin", "maintenance", "status", "lab"], viewer)).stdout).toContain(
      "lab: draining (driver upgrade)",
    );

    const resumed = await sf(["admin", "maintenance", "resume", "lab"], admin);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^lab: open;/m);
    expect((await submit(1, "after-drain")).status).toBe(201);
  });
});

describe("non-admins", () => {
  it("get exit 3 from every fleet and maintenance change", async () => {
    for (const args of [
      ["admin", "fleet", "create", "mine", "--kind", "process"],
      ["admin", "fleet", "enroll-token", "lab"],
      ["admin", "maintenance", "drain", "lab"],
      ["admin", "maintenance", "resume", "lab"],
    ]) {
      const r = await sf(args, viewer);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain("FORBIDDEN");
    }
    // Reading fleets is allowed to every role.
    expect((await sf(["admin", "fleet", "ls"], viewer)).code).toBe(0);
  });
});
