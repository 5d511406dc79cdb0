/**
 * The Fleet DO's SQLite: the reads the rules make (`FleetState`) and the one applier of their effects
 * (`apply`); its schema is store-schema.ts, the adapter's own rows (command sending, the outbox flush,
 * timers) and the writes a transaction holds back are adapter-store.ts. `gpu_alloc`'s primary key (node,
 * index) makes double booking impossible at the storage level, whatever a rule decides: a second booking
 * throws and aborts the transaction. Everything here runs inside the DO's `transactionSync`.
 */

import { FleetAdapterStore } from "./adapter-store.js";
import { isPerJobKey } from "./keys.js";
import { Memo } from "./memo.js";
import type { AllocRow, CommandRow, JobRow, NodeRow, RankRow, RunRow } from "./rows.js";
import type { FleetEffect, Ledger } from "./state.js";
import { JOB_COLUMNS, NODE_COLUMNS, RANK_COLUMNS, RUN_COLUMNS, UPSERT, values } from "./store-schema.js";

export { FLEET_SCHEMA_VERSION } from "./store-schema.js";

export class FleetStore extends FleetAdapterStore implements Ledger {
  steady = false;
  readonly memo = new Memo();
  readonly issued = new Map<string, number>();
  /** Each user's quota body as last read or written (one row per user; read twice by every submit). */
  private readonly quotas = new Map<string, string | null>();

  protected override rolledBack(): void {
    super.rolledBack();
    this.quotas.clear();
    this.memo.clear();
    this.issued.clear();
  }

  // FleetState: what the rules read ---------------------------------------------------

  meta(key: string): string | null {
    // A job's own keys (its abandoned mark is read on every submit) are not cached: one entry per job.
    return isPerJobKey(key) ? this.peekMeta(key) : this.getMeta(key);
  }

  job(id: string): JobRow | null {
    const held = this.heldJobs.get(id);
    if (held) return { ...held };
    return this.sql.exec<JobRow>("SELECT * FROM jobs WHERE id = ?", id).toArray()[0] ?? null;
  }

  jobExists(id: string): boolean {
    return this.heldJobs.has(id) || this.sql.exec("SELECT 1 FROM jobs WHERE id = ?", id).toArray().length > 0;
  }

  queuedCount(): number {
    this.writeHeld();
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE status = 'QUEUED'").one().n;
  }

  queuedWithMeta(prefix: string): Array<{ id: string; value: string }> {
    this.writeHeld();
    return this.sql
      .exec<{ id: string; value: string }>(
        `SELECT j.id AS id, m.value AS value FROM jobs j JOIN meta m ON m.key = ? || j.id
         WHERE j.status = 'QUEUED' ORDER BY j.queue_seq`,
        prefix,
      )
      .toArray();
  }

  jobsByStatus(status: string): JobRow[] {
    this.writeHeld();
    return this.sql.exec<JobRow>("SELECT * FROM jobs WHERE status = ? ORDER BY queue_seq", status).toArray();
  }

  run(id: string): RunRow | null {
    return this.sql.exec<RunRow>("SELECT * FROM runs WHERE id = ?", id).toArray()[0] ?? null;
  }

  runResume(runId: string): string | undefined {
    return this.sql.exec<{ body: string }>("SELECT body FROM run_resume WHERE run_id = ?", runId).toArray()[0]
      ?.body;
  }

  runsOfJob(jobId: string): RunRow[] {
    return this.sql.exec<RunRow>("SELECT * FROM runs WHERE job_id = ? ORDER BY attempt", jobId).toArray();
  }

  runsSince(since: number): RunRow[] {
    return this.sql
      .exec<RunRow>("SELECT * FROM runs WHERE ended_at IS NULL OR ended_at > ?", since)
      .toArray();
  }

  ranks(runId: string): RankRow[] {
    return this.sql.exec<RankRow>("SELECT * FROM run_ranks WHERE run_id = ? ORDER BY rank", runId).toArray();
  }

  openRanksOn(nodeId: string): RankRow[] {
    return this.sql
      .exec<RankRow>(
        `SELECT rr.* FROM run_ranks rr JOIN runs r ON r.id = rr.run_id
         WHERE rr.node_id = ? AND r.ended_at IS NULL ORDER BY rr.run_id, rr.rank`,
        nodeId,
      )
      .toArray();
  }

  command(id: string): CommandRow | null {
    return this.sql.exec<CommandRow>("SELECT * FROM commands WHERE id = ?", id).toArray()[0] ?? null;
  }

  openCommands(nodeId: string): CommandRow[] {
    return this.sql
      .exec<CommandRow>(
        "SELECT * FROM commands WHERE node_id = ? AND acked_at IS NULL ORDER BY created_at, id",
        nodeId,
      )
      .toArray();
  }

  node(id: string): NodeRow | null {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes WHERE id = ?", id).toArray()[0] ?? null;
  }

  nodeByName(name: string): NodeRow | null {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes WHERE name = ?", name).toArray()[0] ?? null;
  }

  nodes(): NodeRow[] {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes ORDER BY name").toArray();
  }

  nodesOfAgent(agentId: string): NodeRow[] {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes WHERE agent_id = ? ORDER BY name", agentId).toArray();
  }

  allocations(): AllocRow[] {
    return this.sql
      .exec<AllocRow>("SELECT node_id, idx, run_id FROM gpu_alloc ORDER BY node_id, idx")
      .toArray();
  }

  usedGpus(): Map<string, number[]> {
    // One row per node, grouped by SQLite: a thousand full nodes are a thousand rows, not eight thousand.
    const rows = this.sql
      .exec<{ node_id: string; used: string }>(
        "SELECT node_id, json_group_array(idx) AS used FROM gpu_alloc GROUP BY node_id",
      )
      .toArray();
    return new Map(rows.map((r) => [r.node_id, JSON.parse(r.used) as number[]]));
  }

  allocatedOn(nodeId: string): number[] {
    return this.sql
      .exec<{ idx: number }>("SELECT idx FROM gpu_alloc WHERE node_id = ? ORDER BY idx", nodeId)
      .toArray()
      .map((r) => r.idx);
  }

  quotaBody(userId: string): string | null {
    const known = this.quotas.get(userId);
    if (known !== undefined) return known;
    const body =
      this.sql.exec<{ body: string }>("SELECT body FROM quotas WHERE user_id = ?", userId).toArray()[0]
        ?.body ?? null;
    this.quotas.set(userId, body);
    return body;
  }

  // the one applier ---------------------------------------------------------------------

  apply(e: FleetEffect): void {
    this.memo.changed(e);
    switch (e.kind) {
      case "meta":
        if (e.value === null) this.deleteMeta(e.key);
        else this.setMeta(e.key, e.value);
        return;
      case "job":
        if (e.row.unconfirmed) this.unconfirmed?.set(e.row.id, { user: e.row.user_id, at: e.row.created_at });
        else this.unconfirmed?.delete(e.row.id);
        if (this.inTransaction) this.heldJobs.set(e.row.id, { ...e.row });
        else this.sql.exec(UPSERT.job, ...values(e.row, JOB_COLUMNS));
        return;
      case "run":
        this.sql.exec(UPSERT.run, ...values(e.row, RUN_COLUMNS));
        return;
      case "rank":
        this.sql.exec(UPSERT.rank, ...values(e.row, RANK_COLUMNS));
        return;
      case "node":
        this.sql.exec(UPSERT.node, ...values(e.row, NODE_COLUMNS));
        return;
      case "node_gone":
        this.sql.exec("DELETE FROM nodes WHERE id = ?", e.id);
        return;
      case "confirmed": {
        for (const id of e.ids) {
          this.unconfirmed?.delete(id);
          const held = this.heldJobs.get(id);
          if (held) held.unconfirmed = 0;
        }
        this.sql.exec(
          "UPDATE jobs SET unconfirmed = 0 WHERE id IN (SELECT value FROM json_each(?))",
          JSON.stringify(e.ids),
        );
        return;
      }
      case "job_gone": {
        // With its run (GPUs, ranks, unsent commands) and the entries it left in the outbox, all held back
        // from agents and D1 while it was unconfirmed.
        this.writeHeld();
        this.unconfirmed?.delete(e.id);
        const run = this.sql
          .exec<{ id: string | null }>("SELECT current_run_id AS id FROM jobs WHERE id = ?", e.id)
          .toArray()[0]?.id;
        if (run) {
          for (const table of ["gpu_alloc", "run_ranks", "commands", "run_resume"])
            this.sql.exec(`DELETE FROM ${table} WHERE run_id = ?`, run);
          this.sql.exec("DELETE FROM runs WHERE id = ?", run);
        }
        this.sql.exec("DELETE FROM jobs WHERE id = ?", e.id);
        if (e.moved) return;
        this.sql.exec(
          `DELETE FROM outbox WHERE json_extract(payload, '$.job.id') = ?1
             OR json_extract(payload, '$.event.job_id') = ?1 OR json_extract(payload, '$.job_id') = ?1
             OR json_extract(payload, '$.run.job_id') = ?1`,
          e.id,
        );
        return;
      }
      case "quota":
        this.sql.exec(
          "INSERT INTO quotas (user_id, body) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET body = excluded.body",
          e.user_id,
          e.body,
        );
        this.quotas.set(e.user_id, e.body);
        return;
      case "alloc":
        // No OR IGNORE: the primary key refuses a double booking and aborts the transaction.
        this.sql.exec(
          "INSERT INTO gpu_alloc (node_id, idx, run_id) VALUES (?, ?, ?)",
          e.alloc.node_id,
          e.alloc.idx,
          e.alloc.run_id,
        );
        return;
      case "free":
        this.sql.exec("DELETE FROM gpu_alloc WHERE run_id = ?", e.run_id);
        return;
      case "command":
        this.noOpenCommands = false;
        this.sql.exec(
          "INSERT INTO commands (id, node_id, run_id, rank, kind, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
          e.row.id,
          e.row.node_id,
          e.row.run_id,
          e.row.rank,
          e.row.kind,
          e.row.payload,
          e.row.created_at,
        );
        return;
      case "settle":
        if (e.rank === null)
          this.sql.exec(
            "UPDATE commands SET acked_at = ? WHERE run_id = ? AND kind = ? AND acked_at IS NULL",
            e.at,
            e.run_id,
            e.command,
          );
        else
          this.sql.exec(
            "UPDATE commands SET acked_at = ? WHERE run_id = ? AND rank = ? AND kind = ? AND acked_at IS NULL",
            e.at,
            e.run_id,
            e.rank,
            e.command,
          );
        return;
      case "ack":
        this.sql.exec("UPDATE commands SET acked_at = ? WHERE id = ? AND acked_at IS NULL", e.at, e.id);
        return;
      case "reopen":
        this.noOpenCommands = false;
        this.sql.exec(
          `UPDATE commands SET acked_at = NULL, sent_at = NULL
           WHERE run_id = ? AND rank = ? AND node_id = ? AND kind = 'launch' AND acked_at IS NOT NULL`,
          e.run_id,
          e.rank,
          e.node_id,
        );
        return;
      case "sent":
        this.sql.exec("UPDATE commands SET sent_at = ? WHERE id = ?", e.at, e.id);
        return;
      case "timer":
        if (e.due === null) this.deleteTimer(e.id);
        else this.setTimer(e.id, e.due);
        return;
      case "outbox":
        if (this.inTransaction) this.heldOutbox.push(JSON.stringify(e.entry), e.at);
        else this.enqueue(e.entry, e.at);
        return;
      case "resume":
        this.sql.exec("INSERT OR IGNORE INTO run_resume (run_id, body) VALUES (?, ?)", e.run_id, e.body);
        return;
    }
  }
}
