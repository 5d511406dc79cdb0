/** Readback routes: which run they read, who may read it, and the log filters. */
import { describe, expect, it } from "vitest";
import { ADMIN, api, createFleet, createUser, customSpec } from "./helpers.js";
import { ingest, type LogLine, startRun, submitRun } from "./ingest-helpers.js";

describe("readback", () => {
  it("reads the job's current run by default, and only runs of that job", async () => {
    const f = await startRun("rb-a");
    await ingest(f.token, "/logs", { run_id: f.runId, seq: 0, chunks: ["mine"] });
    const other = await submitRun(f.op, f.fleet, "other");
    await ingest(other.token, "/logs", { run_id: other.runId, seq: 0, chunks: ["theirs"] });

    const page = await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs`);
    expect(page.body.run_id).toBe(f.runId);
    expect(page.body.lines.map((l: LogLine) => l.line)).toEqual(["mine"]);
    for (const route of ["logs", "metrics", "artifacts"]) {
      const r = await api(f.op, "GET", `/v1/jobs/${f.jobId}/${route}?run=${other.runId}`);
      expect([r.status, r.body.error?.code], route).toEqual([404, "NOT_FOUND"]);
    }
  });

  it("answers 404 for a job that has not run yet", async () => {
    const op = await createUser("rb-b");
    await createFleet("rb-b");
    const job = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "rb-b" }));
    const r = await api(op, "GET", `/v1/jobs/${job.body.job.id}/logs`);
    expect([r.status, r.body.error.code]).toEqual([404, "NOT_FOUND"]);
  });

  it("lets the owner and admins read, and refuses other users", async () => {
    const f = await startRun("rb-c");
    await ingest(f.token, "/metrics", { run_id: f.runId, points: [{ key: "loss", step: 0, value: 1.5 }] });
    const viewer = await createUser("rb-c-viewer", "viewer");
    for (const route of ["logs", "metrics", "artifacts", "artifacts/download?path=x"]) {
      expect((await api(viewer, "GET", `/v1/jobs/${f.jobId}/${route}`)).status, route).toBe(403);
    }
    const asAdmin = await api(ADMIN, "GET", `/v1/jobs/${f.jobId}/metrics?key=loss`);
    expect(asAdmin.body.points).toEqual([{ step: 0, value: 1.5, ts: expect.any(String) }]);
  });

  it("filters lines by rank and stream, keeping cursors and next_offset", async () => {
    const f = await startRun("rb-d");
    await ingest(f.token, "/logs", { run_id: f.runId, rank: 0, seq: 0, chunks: ["a0", "a1"] });
    await ingest(f.token, "/logs", { run_id: f.runId, rank: 1, stream: "stderr", seq: 0, chunks: ["b0"] });
    await ingest(f.token, "/logs", { run_id: f.runId, rank: 0, seq: 2, chunks: ["a2"], eof: true });
    const r = await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs?rank=0&stream=stdout&limit=2`);
    expect(r.body.lines.map((l: LogLine) => [l.cursor, l.line])).toEqual([
      [0, "a0"],
      [1, "a1"],
    ]);
    const next = await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs?rank=0&offset=${r.body.next_offset}`);
    expect(next.body.lines.map((l: LogLine) => [l.cursor, l.line])).toEqual([[3, "a2"]]);
    expect(next.body.streams).toEqual([
      { rank: 0, stream: "stdout", released_to: 3, held: 0, eof_seq: 3 },
      { rank: 1, stream: "stderr", released_to: 1, held: 0, eof_seq: null },
    ]);
    const bad = await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs?rank=`);
    expect([bad.status, bad.body.error.code]).toEqual([400, "BAD_REQUEST"]);
  });
});
