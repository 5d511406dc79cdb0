/** Listing jobs: mine by default, all for admins, filters, and cursor pagination without gaps or repeats. */
import { describe, expect, it } from "vitest";
import { ADMIN, api, createFleet, createUser, customSpec, recipeDigest, registerNode } from "./helpers.js";

async function charlmSpec(fleet: string, name: string) {
  const spec = await customSpec({ fleet, name });
  spec.recipe = { name: "python/charlm", version: "1.0.0", digest: await recipeDigest("python/charlm") };
  spec.framework = { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null };
  return spec;
}

const ids = (r: { body: { jobs: Array<{ id: string }> } }) => r.body.jobs.map((j) => j.id);

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

    // Another user's jobs reach the admin's view as D1 converges, milliseconds after their answers (only a
    // submitter's own reads wait for their jobs: docs/api.md GET /v1/jobs, "Read-your-writes").
    const ids = async () =>
      (await api(ADMIN, "GET", "/v1/jobs?all=1&fleet=list-g")).body.jobs
        .map((j: { id: string }) => j.id)
        .sort();
    const until = Date.now() + 5_000;
    while ((await ids()).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(await ids()).toEqual([ja.id, jb.id].sort());
    const queued = await api(ADMIN, "GET", "/v1/jobs?all=1&fleet=list-g&status=queued");
    expect(queued.body.jobs.map((j: { id: string }) => j.id)).toEqual([jb.id]);
    const byUser = await api(ADMIN, "GET", "/v1/jobs?user=list-a");
    expect(byUser.body.jobs.map((j: { id: string }) => j.id)).toEqual([ja.id]);
  });

  it("filters by method (a recipe name, any version, or name@version) and by a name search", async () => {
    const op = await createUser("list-m");
    await createFleet("list-m");
    const post = async (spec: unknown) => (await api(op, "POST", "/v1/jobs", spec)).body.job.id as string;
    const charlm = await post(await charlmSpec("list-m", "lm-alpha"));
    const custom = await post(await customSpec({ fleet: "list-m", name: "Alpha-custom".toLowerCase() }));
    const other = await post(await customSpec({ fleet: "list-m", name: "beta" }));

    expect(ids(await api(op, "GET", "/v1/jobs?method=python/charlm"))).toEqual([charlm]);
    expect(ids(await api(op, "GET", "/v1/jobs?method=python/charlm@1.0.0"))).toEqual([charlm]);
    expect(ids(await api(op, "GET", "/v1/jobs?method=python/charlm@2.0.0"))).toEqual([]);
    expect(ids(await api(op, "GET", "/v1/jobs?method=custom/custom"))).toEqual([other, custom]);
    // A method is a whole recipe name: a prefix of one matches nothing.
    expect(ids(await api(op, "GET", "/v1/jobs?method=python/charl"))).toEqual([]);

    expect(ids(await api(op, "GET", "/v1/jobs?q=ALPHA"))).toEqual([custom, charlm]);
    expect(ids(await api(op, "GET", "/v1/jobs?q=alpha&method=custom/custom"))).toEqual([custom]);
    expect(ids(await api(op, "GET", "/v1/jobs?q=bet"))).toEqual([other]);
    // LIKE wildcards in the search match only themselves: no name has % or _ in it.
    for (const q of ["%", "_", "a%a", "%25", "\\"]) {
      const r = await api(op, "GET", `/v1/jobs?q=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(200);
      expect(ids(r), q).toEqual([]);
    }
  });

  it("shows each job's owner, profile and run timings, read with the page", async () => {
    const op = await createUser("list-t");
    await createFleet("list-t");
    await registerNode("list-t", "n", 8);
    const running = (
      await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "list-t", name: "held", gpus: 2 }))
    ).body.job.id as string;
    const waiting = (
      await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "list-t", name: "wait", gpus: 8 }))
    ).body.job.id as string;
    const before = await api(op, "GET", "/v1/jobs");
    const held = before.body.jobs.find((j: { id: string }) => j.id === running);
    expect(held).toMatchObject({
      user: "list-t",
      profile: "h200",
      gpus: 2,
      status: "SUBMITTED",
      ended_at: null,
    });
    expect(Date.parse(held.started_at)).toBeGreaterThanOrEqual(Date.parse(held.created_at));
    const queued = before.body.jobs.find((j: { id: string }) => j.id === waiting);
    expect(queued).toMatchObject({ user: "list-t", profile: "h200", started_at: null, ended_at: null });

    expect((await api(op, "POST", `/v1/jobs/${running}/stop`)).status).toBe(200);
    const after = await api(op, "GET", `/v1/jobs?status=stopped`);
    expect(after.body.jobs).toHaveLength(1);
    const stopped = after.body.jobs[0];
    expect(stopped).toMatchObject({ id: running, status: "STOPPED", started_at: held.started_at });
    expect(Date.parse(stopped.ended_at)).toBeGreaterThanOrEqual(Date.parse(stopped.started_at));

    const admin = await api(ADMIN, "GET", "/v1/jobs?all=1&fleet=list-t");
    expect(admin.body.jobs.map((j: { user: string }) => j.user)).toEqual(["list-t", "list-t"]);
  });

  it("answers a repeated poll with 304 while nothing changed, and 200 with a new ETag after a change", async () => {
    const op = await createUser("list-e");
    await createFleet("list-e");
    const id = (await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "list-e", name: "etag" }))).body
      .job.id as string;
    const first = await api(op, "GET", "/v1/jobs?status=queued,paused");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const same = await api(op, "GET", "/v1/jobs?status=queued,paused", undefined, { "if-none-match": etag! });
    expect(same.status).toBe(304);
    expect(same.headers.get("etag")).toBe(etag);
    expect(same.body).toEqual({});
    // Another query is another body: its ETag differs.
    const other = await api(op, "GET", "/v1/jobs?status=running", undefined, { "if-none-match": etag! });
    expect(other.status).toBe(200);

    expect((await api(op, "POST", `/v1/jobs/${id}/pause`)).status).toBe(200);
    const changed = await api(op, "GET", "/v1/jobs?status=queued,paused", undefined, {
      "if-none-match": etag!,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.jobs[0]).toMatchObject({ id, status: "PAUSED" });
    expect(changed.headers.get("etag")).not.toBe(etag);
    // A weak validator (W/"…") matches too, as If-None-Match compares weakly.
    const weak = await api(op, "GET", "/v1/jobs?status=queued,paused", undefined, {
      "if-none-match": `W/${changed.headers.get("etag")}`,
    });
    expect(weak.status).toBe(304);
  });

  it("refuses bad filters with BAD_REQUEST", async () => {
    const op = await createUser("list-bad");
    for (const q of [
      "status=BOGUS",
      "cursor=nope",
      "limit=0",
      "limit=1000",
      "method=charlm",
      "method=python/charlm@",
      `q=${"x".repeat(101)}`,
    ]) {
      const r = await api(op, "GET", `/v1/jobs?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe("BAD_REQUEST");
    }
  });
});
