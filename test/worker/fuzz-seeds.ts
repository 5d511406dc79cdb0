/**
 * One valid request per route, so that mutations start from a request that would succeed and reach the
 * route's own code rather than stopping at the JSON parser. A route without a seed here is still fuzzed
 * (as admin, with the main fleet for its parameters): see `seedFor`.
 */
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import { CLOSED, type Fixture, type Who } from "./fuzz-model.js";

export interface Seed {
  as: Who;
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON body. */
  body?: unknown;
  /** Other valid JSON bodies, that take the route down other paths. */
  also?: unknown[];
  /** A body that is not JSON, with its content type. */
  raw?: { text: string; type: string };
  headers?: Record<string, string>;
  /** An HTML page for a person: only the status rule applies. */
  html?: boolean;
}

const TS = "2024-05-01T12:00:00Z";

/** One valid request per route, keyed `METHOD /path` as `createApp().routes` names it. */
export function routeSeeds(f: Fixture): Record<string, Seed> {
  const fleet = { fleet: f.side.name };
  const run = f.job.runId;
  const jobRun = { id: f.job.id };
  const sideNode = { fleet: f.side.name, node: f.sideNode };
  const digest = f.capsule["runner.pyz"]!;
  return {
    "GET /v1/health": { as: "none" },
    "GET /v1/me": { as: "viewer" },
    "GET /v1/users": { as: "admin" },
    "POST /v1/users": {
      as: "admin",
      body: { name: "fz-new", role: "viewer", email: "a@example.org", with_token: true },
    },
    "PATCH /v1/users/:name": {
      as: "admin",
      params: { name: "fz-target" },
      body: { role: "viewer", disabled: false },
    },
    "GET /v1/users/:name/quota": { as: "operator", params: { name: "fz-op" } },
    "PUT /v1/users/:name/quota": {
      as: "admin",
      params: { name: "fz-target" },
      body: { max_gpus: 8, max_jobs: 5, daily_gpu_hours: 100, allowed_profiles: ["h200"], priority: 10 },
    },
    "GET /v1/tokens": { as: "admin", query: { user: "fz-op" } },
    "POST /v1/tokens": { as: "viewer", body: { name: "fz", expires_in_days: 30 } },
    "DELETE /v1/tokens/:id": { as: "operator", params: { id: f.tokenId } },
    "GET /v1/catalog": { as: "viewer" },
    "GET /v1/catalog/:framework/:method": { as: "viewer", params: { framework: "custom", method: "custom" } },
    "POST /v1/catalog/recipes": {
      as: "admin",
      body: {
        name: "fz/sft",
        version: "1.0.0",
        frameworks: [
          { kind: "torch", versions: ["2.4"], runtime_id: "torch-cpu", image: "ghcr.io/acme/torch:2.4" },
        ],
        params: { lr: { type: "float", default: 0.001, min: 0, max: 1 } },
        entrypoint: { kind: "python", module: "acme.sft" },
      },
    },
    "GET /v1/profiles": { as: "viewer" },
    "PUT /v1/profiles/:name": {
      as: "admin",
      params: { name: "fz-prof" },
      body: { series: "mi300", gpus_per_node: 8, default_gpus: 8, description: "fuzz" },
    },
    "DELETE /v1/profiles/:name": { as: "admin", params: { name: "fz-prof" } },
    // A class of the fuzzer's own: the built-ins other files schedule with are left as they are.
    "GET /v1/priority-classes": { as: "viewer" },
    "PUT /v1/priority-classes/:name": {
      as: "admin",
      params: { name: "fz-class" },
      body: { value: -300, preemptible: true, grace_seconds: 30, min_runtime_seconds: 0 },
      also: [{ description: "fuzz" }],
    },
    "DELETE /v1/priority-classes/:name": { as: "admin", params: { name: "fz-class" } },
    "GET /v1/secrets": { as: "operator", query: { user: "fz-op" } },
    "PUT /v1/secrets/:name": {
      as: "operator",
      params: { name: "FZ_SECRET" },
      body: { value: "s3cret-value-1" },
    },
    "DELETE /v1/secrets/:name": { as: "operator", params: { name: "FZ_SECRET" } },
    "GET /v1/fleets/:fleet/secrets": { as: "operator", params: { fleet: f.main.name } },
    "PUT /v1/fleets/:fleet/secrets/:name": {
      as: "admin",
      params: { ...fleet, name: "FZ_FLEET" },
      body: { value: "fleet-secret-1" },
    },
    "DELETE /v1/fleets/:fleet/secrets/:name": { as: "admin", params: { ...fleet, name: "FZ_FLEET" } },
    "GET /v1/fleets/:fleet/nodes": { as: "viewer", params: fleet },
    "POST /v1/fleets/:fleet/nodes/:node/cordon": { as: "admin", params: sideNode, body: { note: "fuzz" } },
    "POST /v1/fleets/:fleet/nodes/:node/uncordon": { as: "admin", params: sideNode },
    "POST /v1/fleets/:fleet/nodes/:node/drain": { as: "admin", params: sideNode, body: { note: "fuzz" } },
    "POST /v1/fleets/:fleet/nodes/:node/revoke": { as: "admin", params: sideNode, body: { note: "fuzz" } },
    "DELETE /v1/fleets/:fleet/nodes/:node": { as: "admin", params: sideNode },
    "GET /v1/fleets": { as: "viewer" },
    "POST /v1/fleets": {
      as: "admin",
      body: {
        name: "fz-new-fleet",
        kind: "docker",
        description: "fuzz",
        image_allowlist: ["ghcr.io/acme/*"],
        windows: [{ days: [1, 2], start: "20:00", end: "06:00", tz: "Europe/Berlin" }],
        network: { env: { NCCL_DEBUG: "INFO" }, rendezvous_timeout_seconds: 300, port_range: [20000, 20100] },
        hf_unavailable: "refuse",
      },
    },
    "GET /v1/fleets/:fleet": { as: "viewer", params: { fleet: f.main.name } },
    "PATCH /v1/fleets/:fleet": {
      as: "admin",
      params: fleet,
      body: {
        description: "patched",
        image_allowlist: ["ghcr.io/acme/*"],
        windows: [{ days: [0], start: "00:00", end: "24:00", tz: "UTC" }],
        network: { env: {}, rendezvous_timeout_seconds: 60, port_range: null },
        hf_unavailable: "admit",
      },
    },
    "POST /v1/fleets/:fleet/nodes": {
      as: "admin",
      params: fleet,
      body: {
        name: "fz-side-m",
        series: "h200",
        gpus: 2,
        cpus: 8,
        memory_mb: 1024,
        runtime: "docker",
        labels: {},
      },
    },
    "POST /v1/fleets/:fleet/enrollment-tokens": { as: "admin", params: fleet, body: { ttl_minutes: 60 } },
    "GET /v1/fleets/:fleet/maintenance": { as: "viewer", params: fleet },
    "POST /v1/fleets/:fleet/maintenance/drain": { as: "admin", params: fleet, body: { note: "fuzz" } },
    "POST /v1/fleets/:fleet/maintenance/resume": { as: "admin", params: fleet },
    "POST /v1/agents/enroll": { as: "none", body: { token: f.enrollToken } },
    "GET /v1/agents/connect": { as: "agent", headers: { upgrade: "websocket" } },
    "GET /v1/agents/checkpoint": { as: "agent", query: { run, path: "ckpt/model.pt" } },
    "POST /v1/jobs": {
      as: "operator",
      body: f.spec,
      also: [richSpec(f), f.charlm],
      headers: { "idempotency-key": "fz-key-1" },
    },
    "GET /v1/jobs": {
      as: "operator",
      query: { status: "SUBMITTED,QUEUED", fleet: f.main.name, limit: "10" },
    },
    "GET /v1/jobs/:id": { as: "operator", params: jobRun },
    "POST /v1/jobs/:id/stop": { as: "operator", params: { id: f.victim.id }, body: { reason: "fuzz" } },
    "POST /v1/jobs/:id/pause": { as: "operator", params: { id: f.victim.id }, body: { reason: "fuzz" } },
    "POST /v1/jobs/:id/resume": { as: "operator", params: { id: f.victim.id }, body: { reason: "fuzz" } },
    "PUT /v1/blobs/:digest": {
      as: "operator",
      params: { digest: encodeURIComponent(f.blob.digest) },
      raw: { text: f.blob.content, type: "application/octet-stream" },
    },
    "GET /v1/blobs/:digest": { as: "operator", params: { digest: encodeURIComponent(f.blob.digest) } },
    "GET /v1/usage": { as: "admin", query: { user: "fz-op" } },
    "GET /v1/capsule": { as: "viewer" },
    "PUT /v1/capsule": { as: "admin", body: { files: f.capsule } },
    "GET /v1/jobs/:id/metrics": {
      as: "operator",
      params: jobRun,
      query: { run, key: "loss", after: "-1", limit: "10" },
    },
    "GET /v1/jobs/:id/logs": {
      as: "operator",
      params: jobRun,
      query: { run, offset: "0", limit: "10", rank: "0", stream: "stdout", follow: "0" },
    },
    "GET /v1/jobs/:id/hparams": { as: "operator", params: jobRun, query: { run } },
    "GET /v1/jobs/:id/hardware": {
      as: "operator",
      params: jobRun,
      query: { run, key: "gpu.util", node: "box", gpu: "0", after: TS, limit: "10" },
    },
    "GET /v1/jobs/:id/events": { as: "operator", params: jobRun, query: { run } },
    "GET /v1/jobs/:id/environment": { as: "operator", params: jobRun, query: { run } },
    "GET /v1/jobs/:id/validation": {
      as: "operator",
      params: jobRun,
      query: { run, step: "1", after: "-1", limit: "10" },
    },
    "GET /v1/jobs/:id/artifacts": { as: "operator", params: jobRun, query: { run } },
    "GET /v1/jobs/:id/artifacts/download": {
      as: "operator",
      params: jobRun,
      query: { run, path: "ckpt/a.bin" },
    },
    "POST /v1/webhooks": {
      as: "operator",
      body: { url: CLOSED, events: ["job.succeeded"], fleet: f.main.name, description: "fuzz" },
    },
    "GET /v1/webhooks": { as: "admin", query: { user: "fz-op" } },
    "GET /v1/webhooks/:id": { as: "operator", params: { id: f.webhookId } },
    "DELETE /v1/webhooks/:id": { as: "operator", params: { id: f.webhookId } },
    "POST /v1/webhooks/:id/rotate-secret": { as: "operator", params: { id: f.webhookId } },
    "POST /v1/webhooks/:id/test": { as: "operator", params: { id: f.webhookId } },
    "GET /v1/webhooks/:id/deliveries": {
      as: "operator",
      params: { id: f.webhookId },
      query: { state: "failed", limit: "5", cursor: "1" },
    },
    "GET /v1/webhooks/:id/deliveries/:delivery": {
      as: "operator",
      params: { id: f.webhookId, delivery: f.deliveryId },
    },
    "POST /v1/webhooks/:id/deliveries/:delivery/redeliver": {
      as: "operator",
      params: { id: f.webhookId, delivery: f.deliveryId },
    },
    "GET /v1/audit": {
      as: "admin",
      query: {
        actor: "admin",
        action: "fleet.",
        target: "fleet:fz-main",
        since: "2024-01-01",
        until: TS,
        limit: "5",
      },
    },
    "POST /v1/auth/device": { as: "none" },
    "POST /v1/auth/device/token": { as: "none", body: { device_code: f.device.code } },
    "GET /device": { as: "none", html: true, query: { user_code: f.device.userCode } },
    "POST /device": {
      as: "none",
      html: true,
      raw: {
        // The page needs a console session (and its CSRF token): without one it sends the browser to
        // sign in, whatever the form says.
        text: new URLSearchParams({ user_code: f.device.userCode, action: "deny" }).toString(),
        type: "application/x-www-form-urlencoded",
      },
    },
    // Job-side ingest, with the run's token.
    "GET /v1/ingest/blobs/:digest": { as: "ingest", params: { digest: encodeURIComponent(digest) } },
    "GET /v1/ingest/checkpoint": { as: "ingest", query: { run, path: "ckpt/model.pt" } },
    "POST /v1/ingest/metrics": {
      as: "ingest",
      body: {
        run_id: run,
        points: [
          { key: "loss", step: 1, value: 0.5, ts: TS },
          { key: "acc", step: 1, value: 1 },
        ],
      },
    },
    "POST /v1/ingest/logs": {
      as: "ingest",
      body: { run_id: run, chunks: ["a line", "another"], seq: 0, rank: 0, stream: "stdout", eof: false },
      also: [{ run_id: run, chunks: ["console text\r\nmore", "\u001b[1mbold"], eof: true, rank: null }],
    },
    "POST /v1/ingest/hparams": { as: "ingest", body: { run_id: run, params: { lr: 0.1, layers: [1, 2] } } },
    "POST /v1/ingest/hardware": {
      as: "ingest",
      body: {
        run_id: run,
        points: [
          {
            key: "gpu.util",
            value: 50,
            node_id: null,
            worker_id: "w0",
            gpu_idx: 0,
            gpu_uuid: "GPU-1",
            ts: TS,
          },
        ],
      },
    },
    "POST /v1/ingest/environment": {
      as: "ingest",
      body: { run_id: run, hostname: "box", python: "3.11", packages: { torch: "2.4" } },
    },
    "POST /v1/ingest/environment/nodes": {
      as: "ingest",
      body: { run_id: run, nodes: [{ hostname: "box", cpu: { cores: 8 }, gpu: [{ name: "h200" }] }] },
    },
    "POST /v1/ingest/validation": {
      as: "ingest",
      body: {
        run_id: run,
        step: 1,
        chunk_index: 0,
        total_chunks: 2,
        total_samples: 2,
        samples: [{ idx: 0, reward: 1, user: "q", assistant: "a" }],
        avg_reward: 1,
        dist: { bins: [1, 2] },
      },
    },
    "POST /v1/ingest/lifecycle": {
      as: "ingest",
      body: { run_id: run, event: "started", ts: TS, rank: 0, exit_code: null, reason: null, infra: false },
      also: [
        { run_id: run, event: "failed", ts: 1714564800, rank: 0, exit_code: 3, reason: "boom", infra: true },
      ],
    },
    "POST /v1/ingest/rendezvous": {
      as: "ingest",
      body: { run_id: run, node_rank: 0, nnodes: 1, addr: "10.0.0.1", port: 29500, wait_ms: 0 },
    },
    "POST /v1/ingest/artifact/upload": {
      as: "ingest",
      body: { run_id: run, path: "ckpt/a.bin", size_bytes: f.blob.content.length, digest: f.blob.digest },
    },
    "PUT /v1/ingest/artifact/blob/:run/*": {
      as: "ingest",
      params: { run, "*": "ckpt/a.bin" },
      query: { digest: f.blob.digest },
      raw: { text: f.blob.content, type: "application/octet-stream" },
    },
    "POST /v1/ingest/artifact": {
      as: "ingest",
      body: {
        run_id: run,
        kind: "checkpoint",
        path: "ckpt/a.bin",
        step: 1,
        size_bytes: 18,
        metrics: { loss: 1 },
      },
      also: [{ run_id: run, kind: "hf_export", path: "ckpt/a.bin", digest: f.blob.digest, size_bytes: 18 }],
    },
  };
}

/** A custom job with every optional part: a Hub model and dataset, a secret, a sweep, lifecycle limits. */
function richSpec(f: Fixture): JobSpecInput {
  return {
    ...f.spec,
    metadata: {
      name: "fz-rich",
      experiment: "exp",
      project: "proj",
      labels: { team: "fz" },
      sweep: { id: "sw1", index: 0, params: { lr: 0.1, warm: true, opt: "adam" } },
    },
    model: { hf_repo: "fz/model", revision: "main" },
    data: { hf_dataset: "fz/data" },
    hyperparams: { lr: 0.1, layers: 2, warm: true },
    secrets: ["FZ_SECRET"],
    lifecycle: {
      priority: 5,
      max_retries: 0,
      retry_on_user_failure: true,
      resumable: true,
      max_runtime_seconds: 60,
    },
  };
}

/** The seed of a route, or for a route added without one: admin (or the run's token), ids for params. */
export function seedFor(f: Fixture, route: string): Seed {
  const seed = routeSeeds(f)[route];
  if (seed) return seed;
  const path = route.split(" ")[1]!;
  const params = Object.fromEntries([...path.matchAll(/:(\w+)|\*/g)].map((m) => [m[1] ?? "*", f.main.name]));
  return {
    as: path.startsWith("/v1/ingest/") ? "ingest" : path.startsWith("/v1/") ? "admin" : "none",
    params,
    // The web console's pages (and / that leads to them) answer a person: HTML, not coded JSON.
    html: path === "/" || path === "/console" || path.startsWith("/console/"),
  };
}
