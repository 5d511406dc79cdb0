/**
 * The agent protocol: versioned JSON frames over one outbound WebSocket (forgelet → /v1/agents/connect).
 * One discriminated union per direction, shared by the Fleet DO and forgelet.
 *
 * Rules (docs/agent-protocol.md): every server→agent command carries an `id` and is re-sent until the
 * agent acks it; every agent→server report carries the run id and lease epoch and is re-sent until the
 * server acks it; launch is idempotent by run id; a report with a stale epoch is refused (fencing).
 * Heartbeats are the text frame "ping", answered "pong" by the Durable Object's auto-response without
 * waking it.
 */
import { z } from "zod";
import { LaunchRequest } from "./launch-request.schema.js";

export const AGENT_PROTOCOL_VERSION = 1;
export const HEARTBEAT_PING = "ping";
export const HEARTBEAT_PONG = "pong";

const FrameId = z.string().min(1).max(64);
/** The longest `message` an `error` frame carries. */
export const MAX_FRAME_MESSAGE = 2000;
const v = z.literal(AGENT_PROTOCOL_VERSION);

export const GpuInfo = z.object({
  index: z.number().int().min(0),
  uuid: z.string().max(128).optional(),
  name: z.string().max(128),
  memory_mb: z.number().int().min(0).optional(),
  /** True when the GPU is declared (`--simulate-gpus`) rather than found by nvidia-smi. */
  simulated: z.boolean().default(false),
});
export type GpuInfo = z.infer<typeof GpuInfo>;

/** Node names as Slurm and Kubernetes spell them; a cluster node's id in the fleet is `<agent id>:<name>`. */
export const CLUSTER_NODE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * One node of a cluster an agent fronts (`forgelet run --runtime slurm` on a login node): what the
 * cluster says about it. `state`: `ready` takes new runs; `drain` (drained by an admin, or draining)
 * and `down` (down, failing, not responding) get none, and `reason` says why in the cluster's words.
 */
export const ClusterNode = z.object({
  name: z.string().regex(CLUSTER_NODE_NAME_RE),
  gpu_series: z.string().min(1).max(63),
  gpus: z.number().int().min(0).max(64),
  state: z.enum(["ready", "drain", "down"]),
  reason: z.string().max(500).default(""),
  cpus: z.number().int().min(0),
  memory_mb: z.number().int().min(0),
  labels: z.record(z.string().max(63), z.string().max(200)).default({}),
  /** Where the node's peers reach it (the cluster's node address). */
  advertise_addr: z.string().min(1).max(253),
});
export type ClusterNode = z.infer<typeof ClusterNode>;

/**
 * What a node runs: `image` (a job's container image: docker, kuberay) and/or `bare` (an image-less
 * job on the host's own software: the process runtime, Slurm, a docker agent given --default-image).
 */
export const WORKLOAD_KINDS = ["image", "bare"] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** What a runtime runs when its agent does not say. */
export function defaultWorkloads(runtime: string): WorkloadKind[] {
  return runtime === "docker" || runtime === "kuberay" ? ["image"] : ["bare"];
}

export const Inventory = z.object({
  hostname: z.string().max(253),
  runtime: z.enum(["process", "docker", "kuberay", "slurm"]),
  gpu_series: z.string().min(1).max(63),
  gpus: z.array(GpuInfo).max(64),
  cpus: z.number().int().min(0),
  memory_mb: z.number().int().min(0),
  labels: z.record(z.string().max(63), z.string().max(200)).default({}),
  agent_version: z.string().max(64),
  /** What its nodes run (absent: by runtime, see `defaultWorkloads`). */
  workloads: z.array(z.enum(WORKLOAD_KINDS)).min(1).max(2).optional(),
  /** The address this node's peers reach it at (`forgelet run --advertise-addr`): where rank 0 listens. */
  advertise_addr: z.string().min(1).max(253).optional(),
  /**
   * A cluster agent's nodes (Slurm, Kubernetes): the agent itself runs nothing, and each of these is a
   * node of the fleet, re-sent in `inventory` frames whenever the cluster changes. Absent: the agent's
   * own host is the node.
   */
  nodes: z.array(ClusterNode).max(4096).optional(),
});
export type Inventory = z.infer<typeof Inventory>;

/** What the agent's journal says about a run it was given. */
export const JournalEntry = z.object({
  run_id: z.string(),
  epoch: z.number().int().min(1),
  rank: z.number().int().min(0),
  state: z.enum(["accepted", "launched", "exited"]),
  exit_code: z.number().int().nullable().default(null),
  reason: z.string().max(2000).nullable().default(null),
});
export type JournalEntry = z.infer<typeof JournalEntry>;

/**
 * A workload the agent's runtime holds with StarForge labels that neither its journal nor a launch in
 * progress claims (its journal was lost or replaced): what the agent found at start, and what it did.
 * Host runtimes stop and remove such workloads; cluster runtimes only report them (several agents may
 * front one cluster).
 */
export const Orphan = z.object({
  run_id: z.string().max(200).describe("The run its labels name"),
  rank: z.number().int().min(0).nullable().describe("The rank its labels name; null: they name none"),
  epoch: z.number().int().min(0).nullable().describe("The run's epoch its labels name; null: they name none"),
  /** docker container id, process group, Slurm job id, RayJob name. */
  ref: z
    .string()
    .max(200)
    .describe("The workload in its runtime: container id, process group, Slurm job id or RayJob name"),
  action: z
    .enum(["stopped", "reported"])
    .describe(
      "`stopped`: the agent stopped and removed it (host runtimes); `reported`: left as it is (clusters)",
    ),
});
export type Orphan = z.infer<typeof Orphan>;

/**
 * `waiting`: a cluster agent submitted the rank, and the cluster keeps it waiting (its `reason`, e.g.
 * Slurm's "Resources"), which the job's pending reasons show until it is `launched`.
 */
export const RUN_REPORT_EVENTS = [
  "accepted",
  "waiting",
  "launched",
  "exited",
  "stopped",
  "launch_failed",
] as const;

export const AgentFrame = z.discriminatedUnion("type", [
  z.object({
    v,
    type: z.literal("hello"),
    id: FrameId,
    inventory: Inventory,
    journal: z.array(JournalEntry).max(1024),
    /** What the start-up sweep found (Orphan); kept on the node for admins to see. */
    orphans: z.array(Orphan).max(1024).default([]),
  }),
  z.object({ v, type: z.literal("ack"), id: FrameId, ref: FrameId }),
  /** A cluster agent's refreshed inventory (its nodes changed: GPUs, drain, down); acked by the server. */
  z.object({ v, type: z.literal("inventory"), id: FrameId, inventory: Inventory }),
  z.object({
    v,
    type: z.literal("report"),
    id: FrameId,
    run_id: z.string(),
    epoch: z.number().int().min(1),
    rank: z.number().int().min(0),
    event: z.enum(RUN_REPORT_EVENTS),
    exit_code: z.number().int().nullable().default(null),
    /** Why it ended, in words (OOM-killed, signal, runtime error, digest mismatch…). */
    reason: z.string().max(2000).nullable().default(null),
    /** Infrastructure failure (node, runtime, OOM by the host) vs the workload's own exit. */
    infra: z.boolean().default(false),
    ts: z.string(),
  }),
  z.object({
    v,
    type: z.literal("error"),
    id: FrameId,
    ref: FrameId.nullable(),
    code: z.string(),
    message: z.string().max(MAX_FRAME_MESSAGE),
  }),
]);
export type AgentFrame = z.infer<typeof AgentFrame>;

export const ServerFrame = z.discriminatedUnion("type", [
  z.object({
    v,
    type: z.literal("welcome"),
    id: FrameId,
    node_id: z.string(),
    fleet_id: z.string(),
    /** Reconciliation: runs this node should have, and what to do with any other it still runs. */
    expected: z.array(z.object({ run_id: z.string(), epoch: z.number().int(), rank: z.number().int() })),
    stop: z.array(z.object({ run_id: z.string(), epoch: z.number().int() })),
    heartbeat_seconds: z.number().int().min(1),
  }),
  z.object({
    v,
    type: z.literal("launch"),
    id: FrameId,
    rank: z.number().int().min(0),
    request: LaunchRequest,
  }),
  z.object({
    v,
    type: z.literal("stop"),
    id: FrameId,
    run_id: z.string(),
    epoch: z.number().int(),
    rank: z.number().int().min(0),
    grace_seconds: z.number().int().min(0),
    /**
     * Set when this rank already reported its own exit (its runner said `succeeded` or `failed`) and only
     * the agent's news is late: the workload is finishing, so the agent lets it exit by itself for this
     * long, and stops it (with grace_seconds) only if it is still there after that.
     */
    finish_seconds: z.number().int().min(0).optional(),
    reason: z.string().max(500),
  }),
  z.object({ v, type: z.literal("ack"), id: FrameId, ref: FrameId }),
  /**
   * A renewed node credential, sent over the open socket before the current one expires (docs/agent-
   * protocol.md "Credentials"). The agent stores it (replacing the old one) and acks; it dials with it
   * from then on. The socket itself stays up.
   */
  z.object({
    v,
    type: z.literal("credential"),
    id: FrameId,
    credential: z.string().min(20),
    /** ISO time the new credential expires. */
    expires_at: z.string(),
  }),
  z.object({
    v,
    type: z.literal("error"),
    id: FrameId,
    ref: FrameId.nullable(),
    code: z.string(),
    message: z.string().max(MAX_FRAME_MESSAGE),
  }),
]);
export type ServerFrame = z.infer<typeof ServerFrame>;

/** Codes either side puts in an `error` frame when it refuses a frame. */
export const FRAME_ERROR_CODES = [
  "MALFORMED_FRAME",
  "UNKNOWN_FRAME",
  "UNSUPPORTED_VERSION",
  "STALE_EPOCH",
  "UNKNOWN_RUN",
] as const;

/** Parses one text frame; never throws. */
export function parseFrame<S extends z.ZodType>(
  schema: S,
  text: string,
):
  | { ok: true; frame: z.infer<S> }
  | { ok: false; code: (typeof FRAME_ERROR_CODES)[number]; message: string; ref: string | null } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, code: "MALFORMED_FRAME", message: "frame is not JSON", ref: null };
  }
  const obj = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  // The refusal is an `error` frame too: its `ref` must be a FrameId (else null) and its message fit
  // (found by fuzz-frames: a 5000-character id or version was echoed into a frame the peer must refuse).
  const ref = FrameId.safeParse(obj.id).success ? (obj.id as string) : null;
  if (obj.v !== AGENT_PROTOCOL_VERSION) {
    // Only a scalar is quoted: String() of an array nested 100 000 deep overflows the stack (fuzz-frames).
    const shown = obj.v !== null && typeof obj.v === "object" ? "an object" : String(obj.v).slice(0, 64);
    return {
      ok: false,
      code: "UNSUPPORTED_VERSION",
      message: `protocol version ${shown} is not ${AGENT_PROTOCOL_VERSION}`,
      ref,
    };
  }
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, frame: r.data };
  const typeIssue = r.error.issues.some((i) => i.path.length === 1 && i.path[0] === "type");
  return {
    ok: false,
    code: typeIssue ? "UNKNOWN_FRAME" : "MALFORMED_FRAME",
    message: r.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      .join("; ")
      .slice(0, MAX_FRAME_MESSAGE),
    ref,
  };
}
