/**
 * The fuzz suites' fixture, built through the real API: users of each role, a fleet with a node and two
 * dispatched jobs (their runs' ingest tokens), a second fleet for the admin routes to change, an agent
 * credential, a webhook with a delivery, a blob, the capsule, an enrollment token and a device code. The
 * Fixture's shape is fuzz-model.ts's, which the local-stack fuzz builds over HTTP.
 */
import { SELF } from "cloudflare:test";
import { digestOf } from "../../contract/digest.js";
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import { enroll, publishTestCapsule } from "./agent-support.js";
import { CLOSED, type Fixture, type Identities } from "./fuzz-model.js";
import {
  ADMIN,
  api,
  createFleet,
  createUser,
  customSpec,
  putBlob,
  recipeDigest,
  registerNode,
} from "./helpers.js";
import { runToken } from "./ingest-helpers.js";

async function dispatched(op: string, spec: JobSpecInput) {
  const r = await api(op, "POST", "/v1/jobs", spec);
  if (r.status !== 201) throw new Error(`fixture submit: ${r.status} ${JSON.stringify(r.body)}`);
  const detail = await api(op, "GET", `/v1/jobs/${r.body.job.id}`);
  const run = detail.body.runs.at(-1) as { id: string; epoch: number };
  return {
    id: r.body.job.id as string,
    runId: run.id,
    epoch: run.epoch,
    fleetId: r.body.job.fleet_id as string,
  };
}

/** Builds everything the seeds name, through the real API. */
export async function buildFixture(): Promise<Fixture> {
  const operator = await createUser("fz-op", "operator");
  const viewer = await createUser("fz-viewer", "viewer");
  await createUser("fz-target", "operator");
  const quota = { max_gpus: 100_000, max_jobs: 100_000, daily_gpu_hours: 1e6 };
  await api(ADMIN, "PUT", "/v1/users/fz-op/quota", quota);
  const main = await createFleet("fz-main");
  await registerNode("fz-main", "fz-n1", 8);
  const side = await createFleet("fz-side");
  const sideNode = (await registerNode("fz-side", "fz-side-n", 4)).id as string;
  await createFleet("fz-agents", { kind: "process" });
  const agent = (await enroll("fz-agents")).credential;
  const capsule = await publishTestCapsule();
  // Never retried: a retry's timer would change the ledger while a later request is being checked.
  const spec = await customSpec({
    fleet: "fz-main",
    gpus: 1,
    name: "fz",
    lifecycle: { max_retries: 0, retry_on_user_failure: false },
  });
  const charlm: JobSpecInput = {
    ...spec,
    recipe: { name: "python/charlm", version: "1.0.0", digest: await recipeDigest("python/charlm") },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
    hyperparams: { learning_rate: 0.001, max_steps: 10, batch_size: 4 },
  };
  await api(operator, "PUT", "/v1/secrets/FZ_SECRET", { value: "s3cret-value-0" });
  const job = await dispatched(operator, spec);
  const victim = await dispatched(operator, { ...spec, metadata: { name: "fz-victim", labels: {} } });
  const token = await api(operator, "POST", "/v1/tokens", { name: "fz-disposable" });
  const hook = await api(operator, "POST", "/v1/webhooks", { url: CLOSED, events: ["job.succeeded"] });
  const test = await api(operator, "POST", `/v1/webhooks/${hook.body.webhook.id}/test`);
  const content = "fuzz blob content\n";
  await putBlob(operator, content);
  const minted = await api(ADMIN, "POST", `/v1/fleets/fz-agents/enrollment-tokens`, { ttl_minutes: 60 });
  const device = await (await SELF.fetch("http://sf.test/v1/auth/device", { method: "POST" })).json<{
    device_code: string;
    user_code: string;
  }>();
  const ids: Identities = {
    admin: ADMIN,
    operator,
    viewer,
    agent,
    ingest: await runToken({ ...job, jobId: job.id }),
    "ingest-other": await runToken({ ...victim, jobId: victim.id }),
  };
  return {
    ids,
    main,
    side,
    sideNode,
    spec,
    charlm,
    job,
    victim,
    tokenId: token.body.id,
    webhookId: hook.body.webhook.id,
    deliveryId: test.body.delivery.id,
    blob: { digest: await digestOf(content), content },
    capsule,
    enrollToken: minted.body.token,
    device: { code: device.device_code, userCode: device.user_code },
  };
}
