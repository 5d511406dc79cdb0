/** Listing jobs: mine by default, all for admins, filters, and cursor pagination without gaps or repeats. */
import { describe, expect, it } from "vitest";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";

describe("GET /v1/jobs", () => {
  it("pages newest first through every job exactly once", async () => {
    const op = await createUser("lister");
    await createFleet("list-f");
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(
        (await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "list-f", name: `j${i}` }))).body.job.id,
      );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { status: number; body: { jobs: Array<{ id: string }>; next_cursor: string | null } } =
        await api(op, "GET", `/v1/jobs?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.jobs.map((j) => j.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it("shows a user only their own jobs; an admin sees all, and can filter by user, status and fleet", async () => {
    const a = await createUser("list-a");
    const b = await createUser("list-b");
    await createFleet("list-g");
    await registerNode("list-g", "n", 1);
    const ja = (await api(a, "POST", "/v1/jobs", await customSpec({ fleet: "list-g", name: "a1" }))).body.job;
    const jb = (await api(b, "POST", "/v1/jobs", await customSpec({ fleet: "list-g", name: "b1" }))).body.job;
    expect(ja.status).toBe("SUBMITTED");
    expect(jb.status).toBe("QUEUED");

    const mine = await api(a, "GET", "/v1/jobs");
    expect(mine.body.jobs.map((j: { id: string }) => j.id)).toEqual([ja.id]);
    expect((await api(a, "GET", "/v1/jobs?all=1")).status).toBe(403);
    expect((await api(a, "GET", "/v1/jobs?user=list-b")).status).toBe(403);

    const all = await api(ADMIN, "GET", "/v1/jobs?all=1&fleet=list-g");
    expect(all.body.jobs.map((j: { id: string }) => j.id).sort()).toEqual([ja.id, jb.id].sort());
    const queued = await api(ADMIN, "GET", "/v1/jobs?all=1&fleet=list-g&status=queued");
    expect(queued.body.jobs.map((j: { id: string }) => j.id)).toEqual([jb.id]);
    const byUser = await api(ADMIN, "GET", "/v1/jobs?user=list-a");
    expect(byUser.body.jobs.map((j: { id: string }) => j.id)).toEqual([ja.id]);
  });

  it("refuses bad filters with BAD_REQUEST", async () => {
    const op = await createUser("list-bad");
    for (const q of ["status=BOGUS", "cursor=nope", "limit=0", "limit=1000"]) {
      const r = await api(op, "GET", `/v1/jobs?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe("BAD_REQUEST");
    }
  });
});
