/** Admin routes that shape what can run: recipe publication, the hardware registry, fleets and nodes. */
import { describe, expect, it } from "vitest";
import type { Catalog } from "../../contract/catalog.schema.js";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";

const recipe = {
  name: "acme/sft",
  version: "1.0.0",
  frameworks: [
    { kind: "torch", versions: ["2.4"], runtime_id: "torch-cpu", image: "ghcr.io/acme/torch:2.4" },
  ],
  params: { lr: { type: "float", default: 0.001, min: 0, max: 1 } },
  entrypoint: { kind: "python", module: "acme.sft" },
};

describe("catalog", () => {
  it("ships the built-in recipes with typed params and a digest", async () => {
    const r = await api<Catalog>(ADMIN, "GET", "/v1/catalog");
    expect(r.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.headers.get("etag")).toBe(`"${r.body.digest}"`);
    const names = r.body.recipes.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(["custom/custom", "python/charlm"]));
    const charlm = r.body.recipes.find((x) => x.name === "python/charlm")!;
    expect(Object.keys(charlm.versions[0]!.params)).toEqual(
      expect.arrayContaining(["learning_rate", "max_steps", "batch_size"]),
    );
  });

  it("publishes a version once: identical republish is a no-op, different content is refused", async () => {
    const before = (await api<Catalog>(ADMIN, "GET", "/v1/catalog")).body.digest;
    const first = await api(ADMIN, "POST", "/v1/catalog/recipes", recipe);
    expect(first.status).toBe(201);
    expect(first.body.recipe.digest).toMatch(/^sha256:/);
    const after = (await api<Catalog>(ADMIN, "GET", "/v1/catalog")).body.digest;
    expect(after).not.toBe(before);

    const same = await api(ADMIN, "POST", "/v1/catalog/recipes", { ...recipe });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ created: false, recipe: { digest: first.body.recipe.digest } });

    const changed = await api(ADMIN, "POST", "/v1/catalog/recipes", { ...recipe, description: "edited" });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe("ALREADY_EXISTS");

    const next = await api(ADMIN, "POST", "/v1/catalog/recipes", { ...recipe, version: "1.1.0" });
    expect(next.status).toBe(201);
    const one = await api(ADMIN, "GET", "/v1/catalog/acme/sft");
    expect(one.body.latest).toBe("1.1.0");
    expect(one.body.versions.map((v: { version: string }) => v.version)).toEqual(["1.0.0", "1.1.0"]);
  });

  it("refuses malformed recipes and unknown recipes with codes", async () => {
    const bad = await api(ADMIN, "POST", "/v1/catalog/recipes", { ...recipe, name: "no-slash" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("BAD_REQUEST");
    const none = await api(ADMIN, "GET", "/v1/catalog/acme/none");
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe("NOT_FOUND");
    const op = await createUser("cat-op");
    expect((await api(op, "POST", "/v1/catalog/recipes", recipe)).status).toBe(403);
  });
});

describe("profiles", () => {
  it("lists the seeded registry and lets an admin add, change and delete entries", async () => {
    const list = await api(ADMIN, "GET", "/v1/profiles");
    expect(list.body.profiles.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["h200", "h100", "l40s"]),
    );
    const put = await api(ADMIN, "PUT", "/v1/profiles/mi300", {
      series: "mi300",
      gpus_per_node: 8,
      default_gpus: 8,
    });
    expect(put.status).toBe(200);
    const changed = await api(ADMIN, "PUT", "/v1/profiles/mi300", {
      series: "mi300",
      gpus_per_node: 8,
      default_gpus: 4,
    });
    expect(changed.body.profile.default_gpus).toBe(4);
    expect((await api(ADMIN, "DELETE", "/v1/profiles/mi300")).status).toBe(200);
    expect((await api(ADMIN, "DELETE", "/v1/profiles/mi300")).body.error.code).toBe("PROFILE_NOT_FOUND");
  });

  it("refuses a default count that is not a legal shape", async () => {
    const r = await api(ADMIN, "PUT", "/v1/profiles/odd", {
      series: "h200",
      gpus_per_node: 8,
      default_gpus: 12,
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("BAD_REQUEST");
  });
});

describe("fleets", () => {
  it("creates, lists, inspects and refuses duplicates and bad windows", async () => {
    const f = await createFleet("fl-one", {
      windows: [{ days: [1, 2, 3, 4, 5], start: "20:00", end: "06:00", tz: "Europe/Berlin" }],
    });
    expect(f.name).toBe("fl-one");
    const dup = await api(ADMIN, "POST", "/v1/fleets", { name: "fl-one", kind: "docker" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("ALREADY_EXISTS");
    const badTz = await api(ADMIN, "POST", "/v1/fleets", {
      name: "fl-two",
      kind: "docker",
      windows: [{ days: [1], start: "00:00", end: "01:00", tz: "Mars/Olympus" }],
    });
    expect(badTz.status).toBe(400);
    expect(
      (await api(ADMIN, "GET", "/v1/fleets")).body.fleets.map((x: { name: string }) => x.name),
    ).not.toContain("fl-two");
    const inspect = await api(ADMIN, "GET", "/v1/fleets/fl-one");
    expect(inspect.body).toMatchObject({
      fleet: { name: "fl-one" },
      totals: { gpus: 0, allocated: 0 },
      nodes: [],
    });
    expect((await api(ADMIN, "GET", "/v1/fleets/nope")).body.error.code).toBe("FLEET_NOT_FOUND");
  });

  it("registers node capacity, refuses shrinking below allocated GPUs, and updates idempotently by name", async () => {
    await createFleet("fl-nodes");
    const n = await registerNode("fl-nodes", "box", 4);
    expect(n.gpus).toHaveLength(4);
    const again = await registerNode("fl-nodes", "box", 8);
    expect(again.id).toBe(n.id);
    expect(again.gpus).toHaveLength(8);
    const view = await api(ADMIN, "GET", "/v1/fleets/fl-nodes");
    expect(view.body.nodes).toHaveLength(1);
    expect(view.body.totals.gpus).toBe(8);
    const bad = await api(ADMIN, "POST", "/v1/fleets/fl-nodes/nodes", {
      name: "box",
      series: "h200",
      gpus: 65,
    });
    expect(bad.status).toBe(400);

    const op = await createUser("fl-nodes-op");
    const job = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "fl-nodes", gpus: 6 }));
    expect(job.body.job.status).toBe("SUBMITTED");
    const shrink = await api(ADMIN, "POST", "/v1/fleets/fl-nodes/nodes", {
      name: "box",
      series: "h200",
      gpus: 4,
    });
    expect(shrink.status).toBe(409);
    expect(shrink.body.error.code).toBe("CONFLICT");
    expect((await api(ADMIN, "GET", "/v1/fleets/fl-nodes")).body.totals).toMatchObject({
      gpus: 8,
      allocated: 6,
    });
  });
});
