// Submit a job and follow its logs with a client generated from the control plane's OpenAPI document
// (docs/api.md "A client from the document"). Generate the types, then run this file:
//
//   npx openapi-typescript "$SF_URL/v1/openapi.json" -o starforge-api.d.ts
//   npm install openapi-fetch
//   SF_URL=https://sf.example.com SF_TOKEN=sfp_... npx tsx submit-and-follow.ts job.json
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "./starforge-api.js";

type JobSpec = components["schemas"]["JobSpec"];

// JSON answers only: the live log tail (`follow=1`, text/event-stream) is not used here.
const sf = createClient<paths, `${string}/json`>({
  baseUrl: process.env.SF_URL,
  headers: { Authorization: `Bearer ${process.env.SF_TOKEN}` },
});

const spec = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as JobSpec;
const submitted = await sf.POST("/v1/jobs", { body: spec });
if (submitted.error) {
  // Every error has a stable code to switch on, and a message for people.
  throw new Error(`${submitted.error.error.code}: ${submitted.error.error.message}`);
}
// One JobSpec sent, one job answered (a job array, `{ "jobs": [...] }`, is answered with `jobs`).
if (!("job" in submitted.data)) throw new Error("expected one job in the answer");
const job = submitted.data.job;
console.log(`submitted ${job.id} (${job.status})`);

// Page through the log from the last cursor read until the run is over and nothing is left.
let offset = 0;
for (;;) {
  const page = await sf.GET("/v1/jobs/{id}/logs", {
    params: { path: { id: job.id }, query: { offset } },
  });
  if (page.error) throw new Error(`${page.error.error.code}: ${page.error.error.message}`);
  for (const l of page.data.lines) console.log(`[rank ${l.rank}] ${l.line}`);
  offset = page.data.next_offset;
  if (page.data.lines.length === 0) {
    if (page.data.ended) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
}
const done = await sf.GET("/v1/jobs/{id}", { params: { path: { id: job.id } } });
console.log(`${job.id} ended ${done.data?.job.status}`);
