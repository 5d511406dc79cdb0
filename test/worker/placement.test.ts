/**
 * Tier 2: a job that names several fleets, or a selector of them, is placed by the real Worker on the one
 * that starts it soonest, from the capacity summaries the Fleet DOs publish to D1; the candidates and the
 * choice are recorded on its `admitted` event; a spec no candidate could run is refused with
 * NO_ELIGIBLE_FLEET naming each candidate's reason, and leaves nothing behind.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn } from "./console-support.js";
import {
  ADMIN,
  api,
  converged,
  createFleet,
  createUser,
  customSpec,
  expectRejectedWithoutResidue,
  registerNode,
} from "./helpers.js";
import { testEnv } from "./test-env.js";

let user = "";

beforeAll(async () => {
  user = await createUser("pl-user");
  await createFleet("pl-eu-1", { labels: { site: "eu", region: "fra" } });
  await createFleet("pl-eu-2", { labels: { site: "eu", region: "ams" } });
  await createFleet("pl-us-1", { labels: { site: "us" }, kind: "process" });
  for (const f of ["pl-eu-1", "pl-eu-2", "pl-us-1"]) await registerNode(f, `${f}-n1`, 8);
  for (const f of ["pl-rr-a", "pl-rr-b", "pl-to-a", "pl-to-b"]) {
    await createFleet(f);
    await registerNode(f, `${f}-n1`, 8);
  }
});

async function placedSpec(resources: Record<string, unknown>, gpus = 8, series = "h200", nodes = 1) {
  const spec = await customSpec({
    fleet: "x",
    gpus,
    pools: [{ name: "default", profile: series, series, nodes, gpus_per_node: gpus }],
  });
  const { fleet: _named, ...rest } = spec.resources;
  spec.resources = { ...rest, ...resources } as typeof spec.resources;
  return spec;
}

async function submitted(spec: unknown) {
  const r = await api(user, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.job as { id: string; fleet_id: string };
}

/** Waits (up to 3 s) until fleet `name`'s published capacity says `free` GPUs of h200 are free. */
async function published(name: string, free: number): Promise<void> {
  const id = await fleetIdOf(name);
  const until = Date.now() + 3_000;
  for (;;) {
    const row = await testEnv.DB.prepare("SELECT capacity FROM fleet_capacity WHERE fleet_id = ?")
      .bind(id)
      .first<{ capacity: string }>();
    const cap = row ? (JSON.parse(row.capacity) as { series: { h200?: { free: number } } }) : null;
    if (cap?.series.h200?.free === free) return;
    if (Date.now() > until) throw new Error(`fleet ${name} never published ${free} free h200 GPUs`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function fleetIdOf(name: string): Promise<string> {
  return (await api(ADMIN, "GET", `/v1/fleets/${name}`)).body.fleet.id as string;
}

describe("placement over several fleets", () => {
  it("places a job on a fleet that can start it now, and records every candidate on its admitted event", async () => {
    await converged();
    // pl-eu-1 fills up with a job of its own.
    const full = await submitted(await customSpec({ fleet: "pl-eu-1", gpus: 8 }));
    expect(full.fleet_id).toBe(await fleetIdOf("pl-eu-1"));
    await published("pl-eu-1", 0);
    await published("pl-eu-2", 8);
    // Labels are set at creation and shown.
    expect((await api(ADMIN, "GET", "/v1/fleets/pl-eu-1")).body.fleet.labels).toEqual({
      site: "eu",
      region: "fra",
    });

    const job = await submitted(await placedSpec({ fleets: ["pl-eu-1", "pl-eu-2"] }));
    expect(job.fleet_id).toBe(await fleetIdOf("pl-eu-2"));
    const detail = (await api(user, "GET", `/v1/jobs/${job.id}`)).body;
    const admitted = detail.events.find((e: { edge: string }) => e.edge === "admitted");
    expect(admitted.detail.placement).toEqual([
      expect.objectContaining({ fleet: "pl-eu-1", eligible: true, estimated_start: null, chosen: false }),
      expect.objectContaining({ fleet: "pl-eu-2", eligible: true, estimated_start: 0, chosen: true }),
    ]);
    expect(admitted.detail.placement[0].reason).toMatch(/^full, and nothing there ends by a known time/);
    expect(admitted.detail.placement[1].reason).toMatch(/^fits now \(h200: 8\/8 free, 0 queued\)/);

    // The console's job page shows the candidates and the choice.
    const page = (await (await signIn(user)).get(`/console/jobs/${job.id}`)).html;
    expect(page).toContain('<h2 id="placement-h">Placement</h2>');
    expect(page).toMatch(
      /<tr data-candidate="pl-eu-2" data-chosen="1"><th scope="row">pl-eu-2<\/th><td>yes<\/td><td>yes<\/td><td>now<\/td><td>fits now/,
    );
    expect(page).toMatch(
      /<tr data-candidate="pl-eu-1"><th scope="row">pl-eu-1<\/th><td>—<\/td><td>yes<\/td><td>unknown<\/td>/,
    );
    // A job that named one fleet has no placement to show.
    expect((await (await signIn(user)).get(`/console/jobs/${full.id}`)).html).not.toContain("placement-h");
  });

  it("places by a selector of labels and kinds", async () => {
    await converged();
    const us = await submitted(await placedSpec({ fleet_selector: { labels: { site: "us" } } }, 1));
    expect(us.fleet_id).toBe(await fleetIdOf("pl-us-1"));
    // A kind the us fleet is not: only the docker fleets of the eu site are candidates.
    const eu = await submitted(
      await placedSpec({ fleet_selector: { labels: { region: "ams" }, kinds: ["docker"] } }, 1),
    );
    expect(eu.fleet_id).toBe(await fleetIdOf("pl-eu-2"));
  });

  it("places a job array on one fleet, all its jobs together", async () => {
    await converged();
    const spec = await placedSpec({ fleets: ["pl-us-1", "pl-eu-2"] }, 1);
    const r = await api(user, "POST", "/v1/jobs", { jobs: [spec, spec, spec] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const fleets = new Set((r.body.jobs as Array<{ fleet_id: string }>).map((j) => j.fleet_id));
    expect(fleets.size).toBe(1);
  });

  it("refuses a job no candidate could run with NO_ELIGIBLE_FLEET, each candidate's reason given, and leaves nothing behind", async () => {
    await converged();
    // Nothing of the refused job stays anywhere: not in the fleets it named, not in D1, not in its user's object.
    const r = await expectRejectedWithoutResidue(
      "pl-eu-1",
      async () =>
        api(
          user,
          "POST",
          "/v1/jobs",
          await placedSpec({ fleets: ["pl-eu-1", "pl-nowhere", "pl-us-1"] }, 4, "a100"),
        ),
      422,
      "NO_ELIGIBLE_FLEET",
    );
    expect(r.body.error.details.candidates).toEqual([
      expect.objectContaining({ fleet: "pl-eu-1", eligible: false, reason: "it has no a100 nodes" }),
      expect.objectContaining({ fleet: "pl-nowhere", eligible: false, reason: "no such fleet" }),
      expect.objectContaining({ fleet: "pl-us-1", eligible: false, reason: "it has no a100 nodes" }),
    ]);
    expect(r.body.error.message).toContain("pl-nowhere: no such fleet");

    const none = await api(
      user,
      "POST",
      "/v1/jobs",
      await placedSpec({ fleet_selector: { labels: { site: "mars" } } }),
    );
    expect(none.status).toBe(422);
    expect(none.body.error).toMatchObject({
      code: "NO_ELIGIBLE_FLEET",
      message: "no fleet matches the job's fleet selector",
    });

    const big = await api(user, "POST", "/v1/jobs", await placedSpec({ fleets: ["pl-eu-2"] }, 8, "h200", 2));
    expect(big.body.error.details.candidates[0].reason).toBe("it has 1 h200 node; this job needs 2");
  });

  it("refuses a spec that names a fleet and also fleets or a selector, or a fleet twice", async () => {
    for (const resources of [
      { fleet: "pl-eu-1", fleets: ["pl-eu-2"] },
      { fleets: ["pl-eu-1"], fleet_selector: {} },
      { fleets: ["pl-eu-1", "pl-eu-1"] },
    ]) {
      const r = await api(user, "POST", "/v1/jobs", await placedSpec(resources));
      expect(r.status, JSON.stringify(resources)).toBe(400);
      expect(r.body.error.code).toBe("INVALID_SPEC");
    }
    const badLabel = await api(ADMIN, "PATCH", "/v1/fleets/pl-eu-1", { labels: { "Bad Key": "x" } });
    expect(badLabel.status).toBe(400);
    const relabel = await api(ADMIN, "PATCH", "/v1/fleets/pl-eu-1", { labels: { site: "eu", tier: "gold" } });
    expect(relabel.body.fleet.labels).toEqual({ site: "eu", tier: "gold" });
  });

  it("moves a waiting job to another of its fleets within 5 s of that fleet freeing up, and it starts there", async () => {
    await converged();
    const [fullA, fullB] = [
      await submitted(await customSpec({ fleet: "pl-rr-a", gpus: 8 })),
      await submitted(await customSpec({ fleet: "pl-rr-b", gpus: 8 })),
    ];
    await converged();
    const job = await submitted(await placedSpec({ fleets: ["pl-rr-a", "pl-rr-b"] }));
    expect(job.fleet_id).toBe(await fleetIdOf("pl-rr-a"));
    expect((await api(user, "GET", `/v1/jobs/${job.id}`)).body.job.status).toBe("QUEUED");

    // b frees up: its job stops. Within 5 s b has published it and a has handed the waiting job over.
    const freed = Date.now();
    expect((await api(user, "POST", `/v1/jobs/${fullB.id}/stop`)).status).toBe(200);
    const fleetB = await fleetIdOf("pl-rr-b");
    let moved: {
      job: { fleet_id: string; status: string };
      events: Array<{ edge: string; detail: unknown }>;
    } | null = null;
    while (Date.now() - freed < 5_000) {
      const d = (await api(user, "GET", `/v1/jobs/${job.id}`)).body;
      if (d.job.fleet_id === fleetB) {
        moved = d;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(moved, "re-routed within 5 s").not.toBeNull();
    expect(moved!.job.status).toBe("SUBMITTED");
    const rerouted = moved!.events.find((e) => e.edge === "rerouted");
    expect(rerouted?.detail).toMatchObject({ from: "pl-rr-a", to: "pl-rr-b", why: "starts_sooner" });
    expect((rerouted!.detail as { basis: string }).basis).toMatch(/^fits now \(h200: 8\/8 free/);
    // Its history is one: admitted at a, re-routed, dispatched at b.
    expect(moved!.events.map((e) => e.edge)).toEqual(["admitted", "rerouted", "dispatch"]);

    // It is listed once, at b; acting on it reaches b, even through a (which forwards).
    await converged();
    const listed = (await api(user, "GET", "/v1/jobs?status=SUBMITTED")).body.jobs.filter(
      (j: { id: string }) => j.id === job.id,
    );
    expect(listed).toHaveLength(1);
    expect(listed[0].fleet_id).toBe(fleetB);
    const viaA = testEnv.FLEET.get(testEnv.FLEET.idFromName(await fleetIdOf("pl-rr-a"))) as unknown as {
      getJob(id: string): Promise<{ fleet_id: string } | null>;
    };
    expect((await viaA.getJob(job.id))?.fleet_id).toBe(fleetB);
    // The console's job page shows the move under its placement.
    const page = (await (await signIn(user)).get(`/console/jobs/${job.id}`)).html;
    expect(page).toMatch(
      /<tr data-reroute="pl-rr-a&gt;pl-rr-b">.*<td>pl-rr-a<\/td><td>pl-rr-b<\/td><td>it could start the job now: fits now/s,
    );
    // Metrics: the move by reason at the fleet it went to, and its submit-to-start latency there.
    let metrics = "";
    // The placements counter is flushed to D1 a moment after the submit's answer.
    for (let i = 0; i < 40 && !/starforge_placements_total\{fleet="pl-rr-a"\}/.test(metrics); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      const res = await SELF.fetch("http://sf.test/v1/admin/metrics", {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      metrics = await res.text();
    }
    expect(metrics).toContain('starforge_reroutes_total{fleet="pl-rr-b",reason="starts_sooner"} 1');
    expect(metrics).toContain('starforge_placement_latency_seconds_count{fleet="pl-rr-b"} 1');
    expect(metrics).toMatch(/starforge_placements_total\{fleet="pl-rr-a"\} [1-9]/);
    expect((await api(user, "POST", `/v1/jobs/${job.id}/stop`)).body.job.status).toBe("STOPPED");
    await api(user, "POST", `/v1/jobs/${fullA.id}/stop`);
  });

  it("fails a job that no candidate started within its placement timeout, with every candidate's reason", async () => {
    for (const f of ["pl-to-a", "pl-to-b"]) await submitted(await customSpec({ fleet: f, gpus: 8 }));
    await published("pl-to-a", 0);
    await published("pl-to-b", 0);
    const spec = await placedSpec({ fleets: ["pl-to-a", "pl-to-b"] });
    spec.lifecycle = { ...spec.lifecycle, placement_timeout_seconds: 2 };
    const job = await submitted(spec);
    let d: {
      job: { status: string };
      events: Array<{ edge: string; detail: Record<string, unknown> }>;
    } | null = null;
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      d = (await api(user, "GET", `/v1/jobs/${job.id}`)).body;
      if (d!.job.status !== "QUEUED") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(d!.job.status).toBe("FAILED");
    const verdict = d!.events.at(-1)!;
    expect(verdict.edge).toBe("placement_timeout");
    expect(verdict.detail.code).toBe("NO_ELIGIBLE_FLEET");
    expect(verdict.detail.candidates).toEqual([
      expect.objectContaining({ fleet: "pl-to-a", reason: expect.stringMatching(/^held it: /) }),
      expect.objectContaining({
        fleet: "pl-to-b",
        eligible: true,
        reason: expect.stringMatching(/^full, and nothing there ends by a known time/),
      }),
    ]);
  });
});
