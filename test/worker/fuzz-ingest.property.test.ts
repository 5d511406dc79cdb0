/**
 * Job-side ingest (/v1/ingest/*) with the run's token, another run's token, user credentials and bad
 * ones, and mutated batches (see fuzz-routes.ts): no 5xx, coded refusals, a refused batch stores nothing
 * in the run's Durable Object, and the run reads back afterwards (its Durable Object did not crash).
 */
import { expect } from "vitest";
import { fuzzRouteGroup } from "./fuzz-routes.js";
import { runSnapshot } from "./fuzz-support.js";
import { api } from "./helpers.js";

fuzzRouteGroup("ingest", async (f) => {
  const q = `run=${f.job.runId}`;
  for (const what of ["metrics", "logs", "hparams", "hardware", "events", "environment", "artifacts"]) {
    const r = await api(f.ids.operator, "GET", `/v1/jobs/${f.job.id}/${what}?${q}`);
    expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(200);
  }
  expect(Object.keys(await runSnapshot(f.job.runId)).length).toBeGreaterThan(5);
});
