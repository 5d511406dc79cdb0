/**
 * The local-stack fuzz's fixture (test/node/local-stack-fuzz.test.ts), built over HTTP through a control
 * plane's API: the same shape as the workerd fuzz's (test/worker/fuzz-fixture.ts), and the valid traffic's
 * own user, fleet and run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { digestOf } from "../../contract/digest.js";
import { mintIngestToken } from "../../contract/ingest-token.js";
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import { CLOSED, type Fixture, type Identities } from "../worker/fuzz-model.js";
import type { ControlPlane } from "./control-plane.js";
import { baseSpec } from "./jobs.js";

/** The fixture builders for the control plane `cp`. */
export function localStackFixture(cp: ControlPlane) {
  /** A JSON call that is never sent again: a dropped connection while the fixture is built fails too. */
  // biome-ignore lint/suspicious/noExplicitAny: fixture answers are read loosely, as the workerd fuzz reads them
  async function api<T = any>(
    token: string | null,
    method: string,
    path: string,
    body?: unknown,
    expected: number[] = [200, 201, 202],
  ): Promise<T> {
    const res = await fetch(`${cp.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!expected.includes(res.status)) throw new Error(`fixture ${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  async function createUser(name: string, role: "viewer" | "operator"): Promise<string> {
    return (await api(cp.adminToken, "POST", "/v1/users", { name, role })).token;
  }

  async function createFleet(name: string, extra: Record<string, unknown> = {}) {
    const r = await api(cp.adminToken, "POST", "/v1/fleets", {
      name,
      kind: "docker",
      image_allowlist: ["ghcr.io/acme/*"],
      ...extra,
    });
    return r.fleet as { id: string; name: string };
  }

  async function registerNode(fleet: string, name: string, gpus: number): Promise<string> {
    const r = await api(cp.adminToken, "POST", `/v1/fleets/${fleet}/nodes`, { name, series: "h200", gpus });
    return r.node.id;
  }

  /** The run's ingest token, minted with this control plane's SF_JWT_SECRET as the Fleet DO mints it. */
  function runToken(c: { runId: string; jobId: string; fleetId: string; epoch: number }): Promise<string> {
    const vars = readFileSync(join(cp.stateDir, "dev.vars"), "utf8");
    const secret = /^SF_JWT_SECRET=(.+)$/m.exec(vars)?.[1];
    if (!secret) throw new Error(`no SF_JWT_SECRET in ${cp.stateDir}/dev.vars`);
    return mintIngestToken(secret, { sub: c.runId, job: c.jobId, fleet: c.fleetId, epoch: c.epoch });
  }

  /** Submits `spec` as `op`; the fleet's registered node takes it at once, so it has a run (and a token). */
  async function dispatched(op: string, spec: JobSpecInput) {
    const submitted = await api(op, "POST", "/v1/jobs", spec);
    const detail = await api(op, "GET", `/v1/jobs/${submitted.job.id}`);
    const run = detail.runs.at(-1) as { id: string; epoch: number } | undefined;
    if (!run)
      throw new Error(`fixture job ${submitted.job.id} was not dispatched: ${JSON.stringify(detail.job)}`);
    const c = {
      jobId: submitted.job.id as string,
      runId: run.id,
      epoch: run.epoch,
      fleetId: detail.job.fleet_id,
    };
    return { ...c, id: c.jobId, token: await runToken(c) };
  }

  async function recipeDigest(name: string): Promise<string> {
    const catalog = await api(cp.adminToken, "GET", "/v1/catalog");
    const recipe = (
      catalog.recipes as Array<{ name: string; versions: Array<{ version: string; digest: string }> }>
    )
      .find((r) => r.name === name)
      ?.versions.find((v) => v.version === "1.0.0");
    if (!recipe) throw new Error(`${name}@1.0.0 is not in the catalog`);
    return recipe.digest;
  }

  /** A 1-GPU custom job on `fleet`, never retried (as the workerd fixture's customSpec). */
  async function customSpec(fleet: string, name: string): Promise<JobSpecInput> {
    return {
      ...baseSpec({
        name,
        fleet,
        recipe: { name: "custom/custom", version: "1.0.0", digest: await recipeDigest("custom/custom") },
        framework: { kind: "custom", version: "1", runtime_id: "bash", image: "ghcr.io/acme/train:1.0" },
        gpus: 1,
      }),
      model: {},
      data: {},
      lifecycle: { max_retries: 0, retry_on_user_failure: false },
    };
  }

  /** Everything the seeds name, as test/worker/fuzz-fixture.ts builds it, through this control plane's API. */
  async function buildFixture(): Promise<Fixture> {
    const admin = cp.adminToken;
    const operator = await createUser("fz-op", "operator");
    const viewer = await createUser("fz-viewer", "viewer");
    await createUser("fz-target", "operator");
    const quota = { max_gpus: 100_000, max_jobs: 100_000, daily_gpu_hours: 1e6 };
    await api(admin, "PUT", "/v1/users/fz-op/quota", quota);
    const main = await createFleet("fz-main");
    await registerNode("fz-main", "fz-n1", 8);
    const side = await createFleet("fz-side");
    const sideNode = await registerNode("fz-side", "fz-side-n", 4);
    await createFleet("fz-agents", { kind: "process" });
    const agentToken = await api(admin, "POST", "/v1/fleets/fz-agents/enrollment-tokens", {});
    const agent = (await api(null, "POST", "/v1/agents/enroll", { token: agentToken.token })).credential;
    // The capsule npm start published (dist/capsule): the fixture names its files.
    const capsule = (await api(admin, "GET", "/v1/capsule")).files as Record<string, string>;
    const spec = await customSpec("fz-main", "fz");
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
    const test = await api(operator, "POST", `/v1/webhooks/${hook.webhook.id}/test`);
    const content = "fuzz blob content\n";
    const digest = await digestOf(content);
    const put = await fetch(`${cp.url}/v1/blobs/${digest}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${operator}` },
      body: content,
    });
    if (put.status !== 201 && put.status !== 200)
      throw new Error(`fixture blob: ${put.status} ${await put.text()}`);
    const minted = await api(admin, "POST", "/v1/fleets/fz-agents/enrollment-tokens", { ttl_minutes: 60 });
    const device = await api(null, "POST", "/v1/auth/device");
    const ids: Identities = {
      admin,
      operator,
      viewer,
      agent,
      ingest: job.token,
      "ingest-other": victim.token,
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
      tokenId: token.id,
      webhookId: hook.webhook.id,
      deliveryId: test.delivery.id,
      blob: { digest, content },
      capsule,
      enrollToken: minted.token,
      device: { code: device.device_code, userCode: device.user_code },
    };
  }

  /**
   * The valid traffic's own user, fleet and run: nothing the fuzz generates names them (idsOfEveryKind does
   * not), so whatever the fuzzed admin and job routes accept, these requests stay valid.
   */
  async function buildSteady() {
    const operator = await createUser("fz-steady", "operator");
    await api(cp.adminToken, "PUT", "/v1/users/fz-steady/quota", {
      max_gpus: 100_000,
      max_jobs: 100_000,
      daily_gpu_hours: 1e6,
    });
    await createFleet("fz-steady");
    await registerNode("fz-steady", "fz-steady-n1", 8);
    const spec = await customSpec("fz-steady", "steady");
    const run = await dispatched(operator, spec);
    return { operator, spec, run };
  }

  return { buildFixture, buildSteady };
}
