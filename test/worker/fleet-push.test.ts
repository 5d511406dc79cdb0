/**
 * Tier 2: a change every fleet must have before the answer (teams, priority classes, a user's quota)
 * when one Fleet DO does not take it. The answer is 503 UNAVAILABLE naming that fleet; the change is
 * saved and audited; repeating the request (a removal too, which then answers 404) hands it over. The
 * failure is injected on the Fleet DO's method (a Durable Object that fails mid-call cannot be provoked
 * on demand here); everything else is the real Worker, D1 and Fleet DOs.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FleetDO } from "../../durable-objects/fleet/fleet.do.js";
import { ADMIN, api, createFleet, createUser } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The next call of `method` on any Fleet DO fails, as a Durable Object reset mid-call does. */
function failOnce(method: "setTeams" | "setPriorityClasses" | "setQuota") {
  return vi.spyOn(FleetDO.prototype, method).mockRejectedValueOnce(new Error("Durable Object reset"));
}

describe("a change a fleet does not take", () => {
  it("teams: 503 naming the fleet, saved and audited; repeating the change, or the removal (404), hands it over", async () => {
    const fleet = await createFleet("fp-teams");
    const push = failOnce("setTeams");
    const r = await api(ADMIN, "PUT", "/v1/teams/fp-team", { description: "pushed" });
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(r.body.error).toMatchObject({ code: "UNAVAILABLE", details: { fleets: [fleet.id] } });
    expect(r.body.error.message).toBe(
      `fleet ${fleet.id} did not take the teams; the change is saved: repeat the request to hand it over`,
    );
    // Saved and audited: the change was made; only its push is owed.
    expect((await api(ADMIN, "GET", "/v1/teams/fp-team")).body.team).toMatchObject({ description: "pushed" });
    const audit = await api(ADMIN, "GET", "/v1/audit?action=team.set");
    expect(JSON.stringify(audit.body)).toContain("team:fp-team");

    const again = await api(ADMIN, "PUT", "/v1/teams/fp-team", {});
    expect(again.status).toBe(200);
    const handed = push.mock.calls.at(-1)![0];
    expect(JSON.stringify(handed)).toContain("fp-team");

    // A removal that answered 503, repeated: 404 (it is gone), and the fleet gets the teams without it.
    failOnce("setTeams");
    expect((await api(ADMIN, "DELETE", "/v1/teams/fp-team")).status).toBe(503);
    const before = push.mock.calls.length;
    const gone = await api(ADMIN, "DELETE", "/v1/teams/fp-team");
    expect(gone.status).toBe(404);
    expect(push.mock.calls.length).toBe(before + 1);
    expect(JSON.stringify(push.mock.calls.at(-1)![0])).not.toContain("fp-team");
  });

  it("priority classes and a user's quota: 503 UNAVAILABLE the same way, and the repeated request hands it over", async () => {
    await createFleet("fp-classes");
    const classes = failOnce("setPriorityClasses");
    const put = await api(ADMIN, "PUT", "/v1/priority-classes/fp-batch", { value: 5 });
    expect(put.status).toBe(503);
    // Every fleet of this file was asked; the one whose call failed is named, the others took it.
    expect(put.body.error.code).toBe("UNAVAILABLE");
    expect(put.body.error.details.fleets).toHaveLength(1);
    expect((await api(ADMIN, "PUT", "/v1/priority-classes/fp-batch", { value: 5 })).status).toBe(200);
    expect(JSON.stringify(classes.mock.calls.at(-1)![0])).toContain("fp-batch");

    failOnce("setPriorityClasses");
    expect((await api(ADMIN, "DELETE", "/v1/priority-classes/fp-batch")).status).toBe(503);
    expect((await api(ADMIN, "DELETE", "/v1/priority-classes/fp-batch")).status).toBe(404);
    expect(JSON.stringify(classes.mock.calls.at(-1)![0])).not.toContain("fp-batch");

    await createUser("fp-user");
    const quota = failOnce("setQuota");
    const q = { max_gpus: 3, max_jobs: 4, daily_gpu_hours: 10 };
    const set = await api(ADMIN, "PUT", "/v1/users/fp-user/quota", q);
    expect(set.status).toBe(503);
    expect(set.body.error.message).toMatch(/did not take the quota of fp-user; the change is saved/);
    expect((await api(ADMIN, "PUT", "/v1/users/fp-user/quota", q)).status).toBe(200);
    expect(quota.mock.calls.at(-1)![1]).toMatchObject(q);
  });
});
