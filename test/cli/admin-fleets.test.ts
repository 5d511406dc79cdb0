/** Tier 3: `sf admin fleet create|ls|show|enroll-token` and `sf admin maintenance …` on a real control plane. */
import { beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { baseSpec, recipeDigest } from "../support/jobs.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { newUser, sharedControlPlane, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let admin: SfEnv;
let viewer: SfEnv;
/**
 * Who submits this file's jobs: a user of its own, so that its queue and allocations are its own and it
 * neither uses up nor counts on the bootstrap admin's quota, which every other file shares.
 */
let submitter: { id: string; token: string };
/** Fleets are deployment-wide: this file's have names of their own. */
const LAB = unique("lab");
const LAB2 = unique("lab2");
const IB = unique("ib");
const NOPE = unique("nope");
const MINE = unique("mine");

const as = (token: string): SfEnv => ({ home: newSfHome(), server: cp.url, env: { SF_TOKEN: token } });

async function submit(gpus: number, name: string) {
  const spec = baseSpec({
    name,
    fleet: LAB,
    recipe: {
      name: "custom/custom",
      version: "1.0.0",
      digest: await recipeDigest(cp, cp.adminToken, "custom/custom"),
    },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: "ghcr.io/acme/train:1.0" },
    gpus,
  });
  return call(cp, submitter.token, "POST", "/v1/jobs", spec);
}

beforeAll(async () => {
  cp = sharedControlPlane();
  admin = as(cp.adminToken);
  viewer = as((await newUser(cp, "vic", "viewer")).token);
  submitter = await newUser(cp, "sub", "operator");
});

describe("sf admin fleet", () => {
  it("creates a fleet with an image allowlist and lists it", async () => {
    const r = await sf(
      [
        "admin",
        "fleet",
        "create",
        LAB,
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
    expect(r.stderr).toContain(`created fleet ${LAB} (docker`);

    const { fleets } = await sfJson<{
      fleets: Array<{ name: string; image_allowlist: string[]; description: string }>;
    }>(["admin", "fleet", "ls"], admin);
    expect(fleets.filter((f) => f.name === LAB)).toHaveLength(1);
    expect(fleets.find((f) => f.name === LAB)).toMatchObject({
      image_allowlist: ["ghcr.io/acme/*", "nvcr.io/nvidia/*"],
      description: "the lab boxes",
    });
    const table = await sf(["admin", "fleet", "ls"], admin);
    expect(table.stdout).toMatch(
      new RegExp(
        `^${LAB}\\s+docker\\s+open\\s+-\\s+ghcr.io/acme/\\*, nvcr.io/nvidia/\\*\\s+the lab boxes$`,
        "m",
      ),
    );

    const again = await sf(["admin", "fleet", "create", LAB, "--kind", "docker"], admin);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain("ALREADY_EXISTS");
    const noKind = await sf(["admin", "fleet", "create", LAB2], admin);
    expect(noKind.code).toBe(2);
    expect(noKind.stderr).toContain("--kind");
  });

  it("shows nodes, GPU allocations and the queue with its reasons", async () => {
    expect(
      (
        await call(cp, cp.adminToken, "POST", `/v1/fleets/${LAB}/nodes`, {
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
    }>(["admin", "fleet", "show", LAB], admin);
    expect(live.totals).toMatchObject({ gpus: 8, allocated: 4, queued: 1 });
    expect(live.nodes.map((n) => n.name)).toEqual(["gpu-a"]);
    expect(live.queue.map((q) => q.job_id)).toEqual([waitingId]);

    const human = await sf(["admin", "fleet", "show", LAB], admin);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("GPUs:    8 total, 4 allocated, 4 free");
    // An admin-registered node has no agent, so no runtime and no advertise address.
    expect(human.stdout).toMatch(/^gpu-a\s+h200\s+ready\s+-\s+-\s+-\s+4\/8 used$/m);
    expect(human.stdout.match(/^gpu-a\s+[0-3]\s+job_\S+\s+run_\S+$/gm)).toHaveLength(4);
    expect(human.stdout).toMatch(new RegExp(`^${waitingId}\\s+${submitter.id}\\s+8\\s+\\d+\\s+\\S`, "m"));

    const missing = await sf(["admin", "fleet", "show", NOPE], admin);
    expect(missing.code).toBe(4);
  });

  it("sets a fleet's network settings at create and with `fleet network`; a bad one is refused and changes nothing", async () => {
    const made = await sf(
      [
        "admin",
        "fleet",
        "create",
        IB,
        "--kind",
        "docker",
        "--network-env",
        "NCCL_SOCKET_IFNAME=ib0",
        "--network-env",
        "NCCL_IB_HCA=mlx5_0,mlx5_1",
        "--rendezvous-ports",
        "29500-29599",
      ],
      admin,
    );
    expect(made.code, made.stderr).toBe(0);
    const shown = await sf(["admin", "fleet", "network", IB], viewer);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.trim()).toBe(
      `${IB}: rendezvous timeout 300 s, rank 0 on ports 29500-29599; NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5_0,mlx5_1`,
    );

    const changed = await sfJson<{ network: unknown }>(
      [
        "admin",
        "fleet",
        "network",
        IB,
        "--env",
        "GLOO_SOCKET_IFNAME=ib0",
        "--unset-env",
        "NCCL_IB_HCA",
        "--rendezvous-timeout",
        "600",
        "--rendezvous-ports",
        "any",
      ],
      admin,
    );
    expect(changed.network).toEqual({
      env: { NCCL_SOCKET_IFNAME: "ib0", GLOO_SOCKET_IFNAME: "ib0" },
      rendezvous_timeout_seconds: 600,
      port_range: null,
    });
    expect((await sf(["admin", "fleet", "show", IB], viewer)).stdout).toContain(
      "network: rendezvous timeout 600 s, rank 0 on any free port; NCCL_SOCKET_IFNAME=ib0 GLOO_SOCKET_IFNAME=ib0",
    );

    // Not a network variable: refused by the server with the variable named; nothing changed.
    const bad = await sf(["admin", "fleet", "network", IB, "--env", "LD_PRELOAD=/tmp/x.so"], admin);
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain("LD_PRELOAD is not a network setting");
    // Bad flags never reach the server.
    const badPorts = await sf(["admin", "fleet", "network", IB, "--rendezvous-ports", "80"], admin);
    expect(badPorts.code).toBe(2);
    expect(badPorts.stderr).toContain("LOW-HIGH");
    const badTimeout = await sf(["admin", "fleet", "network", IB, "--rendezvous-timeout", "1"], admin);
    expect(badTimeout.code).toBe(2);
    const viewerChange = await sf(["admin", "fleet", "network", IB, "--rendezvous-timeout", "60"], viewer);
    expect(viewerChange.code).toBe(3);
    const after = await sfJson<{ network: unknown }>(["admin", "fleet", "network", IB], admin);
    expect(after.network).toEqual(changed.network);
  });

  it("shows and sets a fleet's preemption rate limit", async () => {
    const shown = await sf(["admin", "fleet", "preemption", LAB], viewer);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr + shown.stdout).toContain(`${LAB} starts at most 10 preemptions a minute`);
    const set = await sf(["admin", "fleet", "preemption", LAB, "--per-minute", "0"], admin);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr + set.stdout).toContain(`${LAB} never preempts`);
    expect(
      (await sfJson<{ preemptions_per_minute: number }>(["admin", "fleet", "preemption", LAB], admin))
        .preemptions_per_minute,
    ).toBe(0);
    expect((await sf(["admin", "fleet", "show", LAB], viewer)).stdout).toContain(
      "preempt: at most 0 a minute",
    );
    expect((await sf(["admin", "fleet", "preemption", LAB, "--per-minute", "-1"], admin)).code).toBe(2);
    expect((await sf(["admin", "fleet", "preemption", LAB, "--per-minute", "3"], viewer)).code).toBe(3);
    await sf(["admin", "fleet", "preemption", LAB, "--per-minute", "10"], admin);
  });

  it("shows, sets and removes a fleet's labels, and lists them", async () => {
    const none = await sf(["admin", "fleet", "labels", LAB], viewer);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain(`${LAB}: (no labels)`);
    const set = await sf(["admin", "fleet", "labels", LAB, "site=eu", "region=fra"], admin);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain(`${LAB} labels: site=eu,region=fra`);
    const rm = await sfJson<{ labels: Record<string, string> }>(
      ["admin", "fleet", "labels", LAB, "--rm", "region", "tier=gold"],
      admin,
    );
    expect(rm.labels).toEqual({ site: "eu", tier: "gold" });
    expect((await sf(["admin", "fleet", "show", LAB], viewer)).stdout).toContain(
      "labels:  site=eu,tier=gold",
    );
    expect((await sf(["admin", "fleet", "ls"], viewer)).stdout).toMatch(
      new RegExp(`^${LAB}\\s+\\S+\\s+\\S+\\s+site=eu,tier=gold`, "m"),
    );
    const bad = await sf(["admin", "fleet", "labels", LAB, "site"], admin);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"site" is not KEY=VALUE');
    const badKey = await sf(["admin", "fleet", "labels", LAB, "Site=eu"], admin);
    expect(badKey.code, badKey.stderr).toBe(2);
    expect(badKey.stderr).toContain('"Site" is not a label key');
    expect((await sf(["admin", "fleet", "labels", LAB, "x=y"], viewer)).code).toBe(3);
    await sf(["admin", "fleet", "labels", LAB, "--rm", "site", "--rm", "tier"], admin);
  });

  it("mints a one-shot enrollment token an agent can enroll with", async () => {
    const r = await sfJson<{ token: string; fleet: string; one_shot: boolean }>(
      ["admin", "fleet", "enroll-token", LAB, "--ttl-minutes", "5"],
      admin,
    );
    expect(r).toMatchObject({ fleet: LAB, one_shot: true });
    expect(r.token).toMatch(/^sfe_/);
    expect((await call(cp, null, "POST", "/v1/agents/enroll", { token: r.token })).status).toBe(201);

    const human = await sf(["admin", "fleet", "enroll-token", LAB], admin);
    expect(human.stdout.trim()).toMatch(/^sfe_\S+$/);
    expect(human.stderr).toContain("forgelet enroll --server");
  });
});

describe("sf admin maintenance", () => {
  it("drains a fleet (submits refused with the note) and resumes it", async () => {
    const before = await sf(["admin", "maintenance", "status", LAB], admin);
    expect(before.stdout).toMatch(new RegExp(`^${LAB}: open; \\d+ running, 1 queued$`, "m"));

    const drained = await sfJson<{ draining: boolean; note: string }>(
      ["admin", "maintenance", "drain", LAB, "--note", "driver upgrade"],
      admin,
    );
    expect(drained).toMatchObject({ draining: true, note: "driver upgrade" });
    const refused = await submit(1, "during-drain");
    expect(refused.body).toMatchObject({ error: { code: "FLEET_DRAINING" } });
    expect((await sf(["admin", "maintenance", "status", LAB], viewer)).stdout).toContain(
      `${LAB}: draining (driver upgrade)`,
    );

    const resumed = await sf(["admin", "maintenance", "resume", LAB], admin);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^${LAB}: open;`, "m"));
    expect((await submit(1, "after-drain")).status).toBe(201);
  });
});

describe("non-admins", () => {
  it("get exit 3 from every fleet and maintenance change", async () => {
    for (const args of [
      ["admin", "fleet", "create", MINE, "--kind", "process"],
      ["admin", "fleet", "enroll-token", LAB],
      ["admin", "maintenance", "drain", LAB],
      ["admin", "maintenance", "resume", LAB],
    ]) {
      const r = await sf(args, viewer);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain("FORBIDDEN");
    }
    // Reading fleets is allowed to every role.
    const read = await sf(["admin", "fleet", "ls", "--json"], viewer);
    expect(read.code).toBe(0);
    // and nothing was changed: no fleet of the viewer's, and the lab is still open.
    const names = (JSON.parse(read.stdout) as { fleets: Array<{ name: string }> }).fleets.map((f) => f.name);
    expect(names).toContain(LAB);
    expect(names).not.toContain(MINE);
    expect((await sf(["admin", "maintenance", "status", LAB], viewer)).stdout).toMatch(
      new RegExp(`^${LAB}: open;`, "m"),
    );
  });
});
