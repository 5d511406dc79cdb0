/**
 * The console's fleet pages: the fleets list with counts, and one fleet's GPU grid showing which job holds
 * each GPU (a real job RUNNING on a scripted agent's node), free again once the job ended; another user's
 * job on the grid without its name; node states; an admin's cordon through the page's form.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { csrfIn, signIn } from "./console-support.js";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";

let owner = "";
let other = "";

beforeAll(async () => {
  owner = await createUser("cf-owner");
  other = await createUser("cf-other");
  await publishTestCapsule();
});

function decode(s: string): string {
  return s
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

interface Cell {
  gpu: string;
  jobId: string;
  label: string;
  cls: string;
  html: string;
}

/** Every `[data-gpu]` cell of a page, with its attributes and its inner HTML. */
function cells(html: string): Cell[] {
  const out: Cell[] = [];
  for (const m of html.matchAll(/<div([^>]*\bdata-gpu="[^"]*"[^>]*)>([\s\S]*?)<\/span><\/div>/g)) {
    const attrs = m[1]!;
    const attr = (name: string) => decode(new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? "");
    out.push({
      gpu: attr("data-gpu"),
      jobId: attr("data-job-id"),
      label: attr("aria-label"),
      cls: attr("class"),
      html: decode(m[2]!),
    });
  }
  return out;
}

/** A job of `token` RUNNING on the agent's node: launch acknowledged and reported launched. */
async function runningJob(agent: ScriptedAgent, token: string, fleet: string, name: string) {
  const sub = await api(token, "POST", "/v1/jobs", await customSpec({ fleet, gpus: 1, name }));
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  const id = sub.body.job.id as string;
  const launch = await agent.next("launch", (f) => f.request.job_id === id);
  agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
  const r = agent.report(launch.request, "launched");
  await agent.next("ack", (f) => f.ref === r);
  expect((await api(token, "GET", `/v1/jobs/${id}`)).body.job.status).toBe("RUNNING");
  return { id, request: launch.request };
}

describe("console fleets", () => {
  it("shows the GPU held by a running job, with its name and a link, and free again after it ends", async () => {
    await createFleet("cf-grid", { kind: "docker" });
    const agent = await ScriptedAgent.connect((await enroll("cf-grid")).credential);
    agent.hello(inventory("cf-node", 2));
    await agent.next("welcome");
    const job = await runningJob(agent, owner, "cf-grid", "grid-exp");
    const held = job.request.placement[0]!.gpu_indices[0]!;

    const b = await signIn(owner);
    const list = await b.get("/console/fleets");
    expect(list.status).toBe(200);
    const row =
      /<tr>\s*<th scope="row"><a href="\/console\/fleets\/cf-grid">cf-grid<\/a><\/th>([\s\S]*?)<\/tr>/.exec(
        list.html,
      );
    expect(row, "the fleet's row").not.toBeNull();
    // kind, nodes, GPUs free / total, running, queued
    expect([...row![1]!.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1])).toEqual([
      "docker",
      "1",
      "1 / 2",
      "1",
      "0",
      "—",
    ]);

    const page = await b.get("/console/fleets/cf-grid");
    expect(page.status).toBe(200);
    expect(page.html).toContain('data-live-fleet="cf-grid"');
    const grid = cells(page.html);
    expect(grid.map((c) => c.gpu).sort()).toEqual(["cf-node:0", "cf-node:1"]);
    const cell = grid.find((c) => c.gpu === `cf-node:${held}`)!;
    expect(cell.jobId).toBe(job.id);
    expect(cell.label).toBe(`GPU ${held} on cf-node: held by job grid-exp`);
    expect(cell.html).toContain(`<a href="/console/jobs/${job.id}">grid-exp</a>`);
    const free = grid.find((c) => c.gpu !== `cf-node:${held}`)!;
    expect(free.jobId).toBe("");
    expect(free.label).toMatch(/: free$/);
    // The node's agent state, as the API reports it.
    expect(page.html).toMatch(/data-agent-state="connected"/);

    // What the grid's script polls: the same placements, as JSON.
    const live = await b.get("/console/api/fleets/cf-grid");
    expect(live.status).toBe(200);
    const nodes = JSON.parse(live.html).nodes as Array<{
      gpus: Array<{ index: number; job_id: string | null }>;
    }>;
    expect(nodes[0]!.gpus.find((g) => g.index === held)!.job_id).toBe(job.id);

    const done = agent.report(job.request, "exited", { exit_code: 0 });
    await agent.next("ack", (f) => f.ref === done);
    const after = cells((await b.get("/console/fleets/cf-grid")).html);
    expect(after.map((c) => [c.gpu, c.jobId])).toEqual([
      ["cf-node:0", ""],
      ["cf-node:1", ""],
    ]);
    expect(after.every((c) => c.label.endsWith(": free") && c.cls.includes("free"))).toBe(true);
    agent.close();
  });

  it("hides another user's job name from a non-admin, and shows it to an admin", async () => {
    await createFleet("cf-shared", { kind: "docker" });
    const agent = await ScriptedAgent.connect((await enroll("cf-shared")).credential);
    agent.hello(inventory("cf-shared-node", 1));
    await agent.next("welcome");
    const job = await runningJob(agent, owner, "cf-shared", "secret-experiment");

    const page = await (await signIn(other)).get("/console/fleets/cf-shared");
    expect(page.status).toBe(200);
    const [cell] = cells(page.html);
    expect(cell!.jobId).toBe(job.id);
    expect(cell!.label).toBe("GPU 0 on cf-shared-node: held by another user's job");
    expect(cell!.html).not.toContain("<a ");
    expect(page.html).not.toContain("secret-experiment");
    // A non-admin gets no node actions.
    expect(page.html).not.toContain("/cordon");

    const asAdmin = await (await signIn(ADMIN)).get("/console/fleets/cf-shared");
    const [seen] = cells(asAdmin.html);
    expect(seen!.label).toBe("GPU 0 on cf-shared-node: held by job secret-experiment");
    agent.close();
  });

  it("lets an admin cordon a node from the page (CSRF checked) and shows the new state", async () => {
    await createFleet("cf-cordon", { kind: "docker" });
    const agent = await ScriptedAgent.connect((await enroll("cf-cordon")).credential);
    agent.hello(inventory("cf-c-node", 1));
    await agent.next("welcome");
    const b = await signIn(ADMIN);
    const page = await b.get("/console/fleets/cf-cordon");
    expect(page.html).toContain('action="/console/fleets/cf-cordon/nodes/cf-c-node/cordon"');

    const refused = await b.post("/console/fleets/cf-cordon/nodes/cf-c-node/cordon", {});
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("CSRF_REJECTED");

    const done = await b.post("/console/fleets/cf-cordon/nodes/cf-c-node/cordon", {
      _csrf: csrfIn(page.html),
    });
    expect(done.status).toBe(200);
    expect(done.html).toMatch(/data-agent-state="cordoned"/);
    const nodes = (await api(ADMIN, "GET", "/v1/fleets/cf-cordon/nodes")).body.nodes;
    expect(nodes[0].cordoned).toBe(true);

    // A non-admin's cordon is refused by the API: the not-found page, nothing changed.
    const op = await signIn(other);
    const opPage = await op.get("/console/fleets/cf-cordon");
    const denied = await op.post("/console/fleets/cf-cordon/nodes/cf-c-node/uncordon", {
      _csrf: csrfIn(opPage.html),
    });
    expect(denied.status).toBe(404);
    expect((await api(ADMIN, "GET", "/v1/fleets/cf-cordon/nodes")).body.nodes[0].cordoned).toBe(true);
    agent.close();
  });

  it("answers the not-found page for a fleet that does not exist", async () => {
    const r = await (await signIn(owner)).get("/console/fleets/cf-nope");
    expect(r.status).toBe(404);
    expect(r.html).toContain("Not found");
  });
});
