/**
 * The breaking-change check (scripts/openapi-compat.mjs) on documents built to differ by one change each:
 * what a release client would trip over is reported, what it would not is let through, and the version
 * rule decides. The check of the real document against the release runs in .ci/run (`npm run
 * check:openapi`); the last test here runs it too.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { breakingChanges, bumpAllowsBreaking, releasedDocument } from "../../scripts/openapi-compat.mjs";

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const base = {
  openapi: "3.1.0",
  info: { title: "t", version: "0.1.0" },
  paths: {
    "/v1/jobs": {
      get: {
        parameters: [
          { in: "query", name: "limit", required: false, schema: { type: "integer", maximum: 200 } },
        ],
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["jobs"],
                  properties: { jobs: { type: "array", items: { $ref: "#/components/schemas/Job" } } },
                },
              },
            },
          },
          "404": { description: "e" },
        },
      },
      post: {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["name"],
                properties: {
                  name: { type: "string", maxLength: 63 },
                  priority: { type: "string", enum: ["low", "high"] },
                },
              },
            },
          },
        },
        responses: { "201": { description: "ok" } },
      },
    },
  },
  webhooks: {
    "job-event": {
      post: {
        requestBody: {
          content: {
            "application/json": {
              schema: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
            },
          },
        },
        responses: { "2XX": { description: "ok" } },
      },
    },
  },
  components: {
    schemas: {
      Job: {
        type: "object",
        required: ["id", "status"],
        properties: { id: { type: "string" }, status: { type: "string", enum: ["QUEUED", "RUNNING"] } },
      },
    },
  },
};

type Doc = typeof base & Json;
const changed = (edit: (d: Doc) => void): string[] => {
  const d = clone(base) as Doc;
  edit(d);
  return breakingChanges(base, d);
};
// biome-ignore lint/suspicious/noExplicitAny: documents are edited as loose JSON here
const post = (d: Doc) => (d.paths["/v1/jobs"].post as any).requestBody.content["application/json"].schema;
// biome-ignore lint/suspicious/noExplicitAny: documents are edited as loose JSON here
const job = (d: Doc) => d.components.schemas.Job as any;

describe("breaking changes a release client would trip over", () => {
  it("finds none between a document and itself", () => {
    expect(breakingChanges(base, clone(base))).toEqual([]);
  });

  it("a removed operation, success status or webhook", () => {
    expect(changed((d) => delete (d.paths["/v1/jobs"] as Json).post)).toEqual(["POST /v1/jobs: removed"]);
    expect(changed((d) => delete (d.paths["/v1/jobs"].get.responses as Json)["200"])).toEqual([
      "GET /v1/jobs: no longer answers 200",
    ]);
    expect(changed((d) => delete (d.webhooks as Json)["job-event"])).toEqual(["webhook job-event: removed"]);
  });

  it("a request that is refused now: a new required parameter or field, a narrowed type or bound", () => {
    expect(
      changed((d) =>
        d.paths["/v1/jobs"].get.parameters.push({
          in: "query",
          name: "team",
          required: true,
          schema: { type: "integer", maximum: 1 },
        }),
      ),
    ).toEqual(["GET /v1/jobs: new required parameter query team"]);
    expect(changed((d) => post(d).required.push("priority"))).toEqual([
      "POST /v1/jobs body.priority: required now",
    ]);
    expect(changed((d) => (post(d).properties.priority.enum = ["high"]))).toEqual([
      'POST /v1/jobs body.priority: no longer accepts "low"',
    ]);
    expect(changed((d) => (post(d).properties.name.maxLength = 32))).toEqual([
      "POST /v1/jobs body.name: maxLength 63 → 32",
    ]);
    expect(changed((d) => (post(d).properties.name.type = "integer"))).toEqual([
      "POST /v1/jobs body.name: accepts number, the release accepted string",
    ]);
    expect(changed((d) => (d.paths["/v1/jobs"].get.parameters[0]!.schema.maximum = 100))).toEqual([
      "GET /v1/jobs query limit: maximum 200 → 100",
    ]);
  });

  it("an answer a release client cannot read: a field no longer always sent, a widened type (through $ref)", () => {
    expect(changed((d) => (job(d).required = ["id"]))).toEqual([
      "GET /v1/jobs 200.jobs[].status: no longer always sent",
    ]);
    expect(changed((d) => (job(d).properties.id.type = ["string", "null"]))).toEqual([
      "GET /v1/jobs 200.jobs[].id: may now be null|string, the release sent string",
    ]);
  });

  it("lets through what a release client ignores: new operations, optional fields, answer fields and enum values, error statuses", () => {
    expect(
      changed((d) => {
        (d.paths as Json)["/v1/fleets"] = { get: { responses: { "200": { description: "ok" } } } };
        post(d).properties.note = { type: "string" };
        job(d).properties.team = { type: "string" };
        job(d).required.push("team");
        job(d).properties.status.enum.push("PAUSED");
        (d.paths["/v1/jobs"].get.responses as Json)["409"] = { description: "e" };
        delete (d.paths["/v1/jobs"].get.responses as Json)["404"];
        post(d).properties.name.maxLength = 100;
      }),
    ).toEqual([]);
  });
});

describe("the version rule", () => {
  it("a breaking change needs a new major, or a new minor below 1.0", () => {
    expect(bumpAllowsBreaking("0.1.0", "0.2.0")).toBe(true);
    expect(bumpAllowsBreaking("0.1.0", "0.1.5")).toBe(false);
    expect(bumpAllowsBreaking("1.4.0", "1.5.0")).toBe(false);
    expect(bumpAllowsBreaking("1.4.0", "2.0.0")).toBe(true);
    expect(bumpAllowsBreaking("1.4.0", "0.9.0")).toBe(false);
  });
});

describe("this repository's document", () => {
  it("breaks nothing of the last release's, or its version says so", async () => {
    const current = JSON.parse(
      fs.readFileSync(new URL("../../contract/openapi.json", import.meta.url), "utf8"),
    );
    const released = releasedDocument();
    const changes = breakingChanges(released.doc, current);
    if (!bumpAllowsBreaking(released.doc.info.version, current.info.version)) expect(changes).toEqual([]);
  });
});

describe("npm run check:openapi's compatibility step, in a repository with releases", () => {
  function repo() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sf-compat-"));
    fs.mkdirSync(path.join(dir, "scripts"));
    fs.mkdirSync(path.join(dir, "contract"));
    fs.copyFileSync(
      new URL("../../scripts/openapi-compat.mjs", import.meta.url),
      path.join(dir, "scripts", "openapi-compat.mjs"),
    );
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
        cwd: dir,
        stdio: "pipe",
      });
    const write = (doc: unknown, released?: unknown) => {
      fs.writeFileSync(path.join(dir, "contract", "openapi.json"), JSON.stringify(doc));
      if (released)
        fs.writeFileSync(path.join(dir, "contract", "openapi.released.json"), JSON.stringify(released));
    };
    const check = () => {
      const r = spawnSync(process.execPath, ["scripts/openapi-compat.mjs"], { cwd: dir, encoding: "utf8" });
      return { code: r.status, out: `${r.stdout}${r.stderr}` };
    };
    git("init", "-q");
    return { dir, git, write, check };
  }

  it("compares with the last v* tag, fails on a breaking change until the version allows it", () => {
    const r = repo();
    try {
      r.write(base, base);
      r.git("add", ".");
      r.git("commit", "-qm", "release");
      r.git("tag", "v0.1.0");
      expect(r.check()).toMatchObject({
        code: 0,
        out: expect.stringContaining("no breaking change since v0.1.0"),
      });
      const broken = clone(base) as Doc;
      delete (broken.paths["/v1/jobs"] as Json).post;
      r.write(broken);
      const refused = r.check();
      expect(refused.code).toBe(1);
      expect(refused.out).toContain("POST /v1/jobs: removed");
      r.write({ ...broken, info: { ...broken.info, version: "0.2.0" } });
      expect(r.check()).toMatchObject({ code: 0, out: expect.stringContaining("allowed by 0.1.0 → 0.2.0") });
    } finally {
      fs.rmSync(r.dir, { recursive: true, force: true });
    }
  });

  it("without tags (a shallow clone) uses the released copy, and refuses a copy the tag contradicts", () => {
    const r = repo();
    try {
      r.write(base, base);
      expect(r.check()).toMatchObject({
        code: 0,
        out: expect.stringContaining("no release tag in this clone"),
      });
      r.git("add", ".");
      r.git("commit", "-qm", "release");
      r.git("tag", "v0.1.0");
      r.write(base, { ...base, info: { ...base.info, version: "9.9.9" } });
      expect(r.check()).toMatchObject({
        code: 1,
        out: expect.stringContaining("is not the document of v0.1.0"),
      });
    } finally {
      fs.rmSync(r.dir, { recursive: true, force: true });
    }
  });
});
