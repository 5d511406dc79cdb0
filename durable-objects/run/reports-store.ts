/**
 * The Run DO's rows for what a run reports besides logs and metrics: hardware samples, environment
 * probes and nodes, validation samples. Keys make every retry harmless: hardware by (key, node, worker,
 * gpu, ts), probes by content digest, nodes by hostname, validation samples by (step, idx).
 */
/** An absent node/worker id is '' and an absent GPU index -1 inside keys; views show null. */
export const NO_ID = "";
export const NO_GPU = -1;

export interface HardwareRow {
  [k: string]: SqlStorageValue;
  key: string;
  node_id: string;
  worker_id: string;
  gpu_idx: number;
  ts: number;
  value: number;
  gpu_uuid: string | null;
}

export interface HardwareFilter {
  key?: string;
  /** Matches a sample's node_id or worker_id: "the host" whichever way the client names it. */
  node?: string;
  gpu?: number;
}

export interface ProbeRow {
  [k: string]: SqlStorageValue;
  digest: string;
  hostname: string | null;
  body: string;
  received_at: number;
}

export interface NodeRow {
  [k: string]: SqlStorageValue;
  hostname: string;
  body: string;
  updated_at: number;
}

export interface ValidationStepRow {
  [k: string]: SqlStorageValue;
  step: number;
  total_chunks: number;
  total_samples: number;
  avg_reward: number | null;
  dist: string | null;
  updated_at: number;
  chunks_received: number;
  samples_received: number;
}

export interface ValidationSampleRow {
  [k: string]: SqlStorageValue;
  idx: number;
  reward: number | null;
  body: string;
}

function where(f: HardwareFilter): { sql: string; args: Array<string | number> } {
  const parts: string[] = [];
  const args: Array<string | number> = [];
  if (f.key !== undefined) {
    parts.push("key = ?");
    args.push(f.key);
  }
  if (f.node !== undefined) {
    parts.push("(node_id = ? OR worker_id = ?)");
    args.push(f.node, f.node);
  }
  if (f.gpu !== undefined) {
    parts.push("gpu_idx = ?");
    args.push(f.gpu);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", args };
}

/** Shares the Run DO's SQL (RunStore migrates the schema; this class only reads and writes rows). */
export class RunReportsStore {
  constructor(private readonly sql: SqlStorage) {}

  // hardware ----------------------------------------------------------------------------

  /** A retried sample rewrites its row; a newer gpu_uuid replaces an older one. */
  upsertHardware(h: HardwareRow): void {
    this.sql.exec(
      `INSERT INTO hardware_samples (key, node_id, worker_id, gpu_idx, ts, value, gpu_uuid)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key, node_id, worker_id, gpu_idx, ts)
         DO UPDATE SET value = excluded.value, gpu_uuid = COALESCE(excluded.gpu_uuid, gpu_uuid)`,
      h.key,
      h.node_id,
      h.worker_id,
      h.gpu_idx,
      h.ts,
      h.value,
      h.gpu_uuid,
    );
  }

  /** Each series with its sample count and its newest sample. */
  hardwareSeries(f: HardwareFilter): Array<HardwareRow & { count: number }> {
    const w = where(f);
    return this.sql
      .exec<HardwareRow & { count: number }>(
        `SELECT h.key, h.node_id, h.worker_id, h.gpu_idx, h.ts, h.value, s.gpu_uuid, s.count
         FROM hardware_samples h
         JOIN (SELECT key, node_id, worker_id, gpu_idx, MAX(ts) AS ts, COUNT(*) AS count,
                 MAX(gpu_uuid) AS gpu_uuid
               FROM hardware_samples ${w.sql} GROUP BY key, node_id, worker_id, gpu_idx) s
           USING (key, node_id, worker_id, gpu_idx, ts)
         ORDER BY h.key, h.node_id, h.worker_id, h.gpu_idx`,
        ...w.args,
      )
      .toArray();
  }

  /** Samples after `afterTs` in time order (then by series), at most `limit`. */
  hardwarePoints(f: HardwareFilter, afterTs: number, limit: number): HardwareRow[] {
    const w = where(f);
    const cond = w.sql ? `${w.sql} AND ts > ?` : "WHERE ts > ?";
    return this.sql
      .exec<HardwareRow>(
        `SELECT key, node_id, worker_id, gpu_idx, ts, value, gpu_uuid FROM hardware_samples ${cond}
         ORDER BY ts, node_id, worker_id, gpu_idx LIMIT ?`,
        ...w.args,
        afterTs,
        limit,
      )
      .toArray();
  }

  // environment ---------------------------------------------------------------------------

  /** True when the probe was new (an identical one is stored once). */
  insertProbe(p: ProbeRow): boolean {
    return (
      this.sql.exec(
        `INSERT INTO env_probes (digest, hostname, body, received_at) VALUES (?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
        p.digest,
        p.hostname,
        p.body,
        p.received_at,
      ).rowsWritten > 0
    );
  }

  probeCount(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM env_probes").one().n;
  }

  probes(): ProbeRow[] {
    return this.sql.exec<ProbeRow>("SELECT * FROM env_probes ORDER BY received_at, digest").toArray();
  }

  upsertNode(n: NodeRow): void {
    this.sql.exec(
      `INSERT INTO env_nodes (hostname, body, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (hostname) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
      n.hostname,
      n.body,
      n.updated_at,
    );
  }

  nodeCount(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM env_nodes").one().n;
  }

  nodes(): NodeRow[] {
    return this.sql.exec<NodeRow>("SELECT * FROM env_nodes ORDER BY hostname").toArray();
  }

  // validation ----------------------------------------------------------------------------

  /**
   * Records a chunk's step-level facts: the latest totals win, and a summary (avg_reward, dist) once
   * given is not erased by a later chunk without one.
   */
  upsertValidationChunk(c: {
    step: number;
    chunk_index: number;
    total_chunks: number;
    total_samples: number;
    avg_reward: number | null;
    dist: string | null;
    now: number;
  }): void {
    this.sql.exec(
      `INSERT INTO validation_steps (step, total_chunks, total_samples, avg_reward, dist, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (step) DO UPDATE SET total_chunks = excluded.total_chunks,
         total_samples = excluded.total_samples,
         avg_reward = COALESCE(excluded.avg_reward, avg_reward), dist = COALESCE(excluded.dist, dist),
         updated_at = excluded.updated_at`,
      c.step,
      c.total_chunks,
      c.total_samples,
      c.avg_reward,
      c.dist,
      c.now,
    );
    this.sql.exec(
      "INSERT INTO validation_chunks (step, chunk_index) VALUES (?, ?) ON CONFLICT DO NOTHING",
      c.step,
      c.chunk_index,
    );
  }

  upsertSample(step: number, s: { idx: number; reward: number | null; body: string }): void {
    this.sql.exec(
      `INSERT INTO validation_samples (step, idx, reward, body) VALUES (?, ?, ?, ?)
       ON CONFLICT (step, idx) DO UPDATE SET reward = excluded.reward, body = excluded.body`,
      step,
      s.idx,
      s.reward,
      s.body,
    );
  }

  validationSteps(step?: number): ValidationStepRow[] {
    const filter = step === undefined ? "" : "WHERE v.step = ?";
    return this.sql
      .exec<ValidationStepRow>(
        `SELECT v.*,
           (SELECT COUNT(*) FROM validation_chunks c WHERE c.step = v.step) AS chunks_received,
           (SELECT COUNT(*) FROM validation_samples s WHERE s.step = v.step) AS samples_received
         FROM validation_steps v ${filter} ORDER BY v.step`,
        ...(step === undefined ? [] : [step]),
      )
      .toArray();
  }

  samples(step: number, afterIdx: number, limit: number): ValidationSampleRow[] {
    return this.sql
      .exec<ValidationSampleRow>(
        "SELECT idx, reward, body FROM validation_samples WHERE step = ? AND idx > ? ORDER BY idx LIMIT ?",
        step,
        afterIdx,
        limit,
      )
      .toArray();
  }
}
