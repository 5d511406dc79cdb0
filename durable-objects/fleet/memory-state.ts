/**
 * The Fleet state in memory: the same reads as the SQLite store (fleet/store.ts), in the same orders,
 * and the same applier, so the rules can be run and checked in milliseconds without workerd (unit and
 * property tests). Rows are copied in and out, as a database would: a rule that changes a row it read
 * changes nothing until it applies an effect. A second booking of one GPU throws, like the primary key.
 */
import { Memo } from "./memo.js";
import { type OutboxEntry, outboxJobId } from "./outbox-entry.js";
import type { AllocRow, CommandRow, JobRow, NodeRow, RankRow, RunRow } from "./rows.js";
import type { FleetEffect, Ledger, Unconfirmed } from "./state.js";

const copy = <T extends object>(row: T): T => ({ ...row });

export class MemoryFleetState implements Ledger {
  readonly metaRows = new Map<string, string>();
  readonly jobRows = new Map<string, JobRow>();
  readonly runRows = new Map<string, RunRow>();
  readonly rankRows = new Map<string, RankRow>();
  readonly nodeRows = new Map<string, NodeRow>();
  readonly commandRows = new Map<string, CommandRow>();
  readonly allocRows = new Map<string, AllocRow>();
  readonly quotaRows = new Map<string, string>();
  readonly resumeRows = new Map<string, string>();
  readonly timerRows = new Map<string, number>();
  readonly outbox: OutboxEntry[] = [];
  steady = false;
  readonly memo = new Memo();
  readonly issued = new Map<string, number>();

  // reads --------------------------------------------------------------------------------

  meta(key: string): string | null {
    return this.metaRows.get(key) ?? null;
  }

  metaByPrefix(prefix: string): Array<{ key: string; value: string }> {
    return [...this.metaRows]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value }));
  }

  job(id: string): JobRow | null {
    const j = this.jobRows.get(id);
    return j ? copy(j) : null;
  }

  jobExists(id: string): boolean {
    return this.jobRows.has(id);
  }

  queuedCount(): number {
    let n = 0;
    for (const j of this.jobRows.values()) if (j.status === "QUEUED") n += 1;
    return n;
  }

  queuedWithMeta(prefix: string): Array<{ id: string; value: string }> {
    return this.jobsByStatus("QUEUED").flatMap((j) => {
      const value = this.metaRows.get(`${prefix}${j.id}`);
      return value === undefined ? [] : [{ id: j.id, value }];
    });
  }

  jobsByStatus(status: string): JobRow[] {
    return [...this.jobRows.values()]
      .filter((j) => j.status === status)
      .sort((a, b) => a.queue_seq - b.queue_seq)
      .map(copy);
  }

  run(id: string): RunRow | null {
    const r = this.runRows.get(id);
    return r ? copy(r) : null;
  }

  runsOfJob(jobId: string): RunRow[] {
    return [...this.runRows.values()]
      .filter((r) => r.job_id === jobId)
      .sort((a, b) => a.attempt - b.attempt)
      .map(copy);
  }

  runsSince(since: number): RunRow[] {
    return [...this.runRows.values()].filter((r) => r.ended_at === null || r.ended_at > since).map(copy);
  }

  runResume(runId: string): string | undefined {
    return this.resumeRows.get(runId);
  }

  ranks(runId: string): RankRow[] {
    return [...this.rankRows.values()]
      .filter((r) => r.run_id === runId)
      .sort((a, b) => a.rank - b.rank)
      .map(copy);
  }

  openRanksOn(nodeId: string): RankRow[] {
    return [...this.rankRows.values()]
      .filter((r) => r.node_id === nodeId && this.runRows.get(r.run_id)?.ended_at === null)
      .sort((a, b) => (a.run_id === b.run_id ? a.rank - b.rank : a.run_id < b.run_id ? -1 : 1))
      .map(copy);
  }

  command(id: string): CommandRow | null {
    const c = this.commandRows.get(id);
    return c ? copy(c) : null;
  }

  openCommands(nodeId: string): CommandRow[] {
    return [...this.commandRows.values()]
      .filter((c) => c.node_id === nodeId && c.acked_at === null)
      .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(copy);
  }

  node(id: string): NodeRow | null {
    const n = this.nodeRows.get(id);
    return n ? copy(n) : null;
  }

  nodeByName(name: string): NodeRow | null {
    const n = [...this.nodeRows.values()].find((x) => x.name === name);
    return n ? copy(n) : null;
  }

  nodes(): NodeRow[] {
    return [...this.nodeRows.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(copy);
  }

  nodesOfAgent(agentId: string): NodeRow[] {
    return this.nodes().filter((n) => n.agent_id === agentId);
  }

  allocations(): AllocRow[] {
    return [...this.allocRows.values()]
      .sort((a, b) => (a.node_id === b.node_id ? a.idx - b.idx : a.node_id < b.node_id ? -1 : 1))
      .map(copy);
  }

  usedGpus(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (const a of this.allocRows.values()) {
      const list = out.get(a.node_id);
      if (list) list.push(a.idx);
      else out.set(a.node_id, [a.idx]);
    }
    return out;
  }

  allocatedOn(nodeId: string): number[] {
    return this.allocations()
      .filter((a) => a.node_id === nodeId)
      .map((a) => a.idx);
  }

  unconfirmedJob(id: string): Unconfirmed | null {
    const row = this.jobRows.get(id);
    return row?.unconfirmed ? { user: row.user_id, at: row.created_at } : null;
  }

  quotaBody(userId: string): string | null {
    return this.quotaRows.get(userId) ?? null;
  }

  // the applier ---------------------------------------------------------------------------

  apply(e: FleetEffect): void {
    this.memo.changed(e);
    switch (e.kind) {
      case "meta":
        if (e.value === null) this.metaRows.delete(e.key);
        else this.metaRows.set(e.key, e.value);
        return;
      case "job":
        this.jobRows.set(e.row.id, copy(e.row));
        return;
      case "run":
        this.runRows.set(e.row.id, copy(e.row));
        return;
      case "rank":
        this.rankRows.set(`${e.row.run_id}#${e.row.rank}`, copy(e.row));
        return;
      case "node_gone":
        this.nodeRows.delete(e.id);
        return;
      case "confirmed":
        for (const id of e.ids) {
          const row = this.jobRows.get(id);
          if (row) row.unconfirmed = 0;
        }
        return;
      case "job_gone": {
        const run = this.jobRows.get(e.id)?.current_run_id;
        if (run) {
          for (const rows of [this.allocRows, this.rankRows, this.commandRows] as Map<
            string,
            { run_id: string }
          >[])
            for (const [k, r] of rows) if (r.run_id === run) rows.delete(k);
          this.resumeRows.delete(run);
          this.runRows.delete(run);
        }
        this.jobRows.delete(e.id);
        if (e.moved) return;
        for (let i = this.outbox.length - 1; i >= 0; i--)
          if (outboxJobId(this.outbox[i]!) === e.id) this.outbox.splice(i, 1);
        return;
      }
      case "node": {
        const before = this.nodeRows.get(e.row.id);
        const clash = [...this.nodeRows.values()].find((n) => n.name === e.row.name && n.id !== e.row.id);
        if (clash) throw new Error(`UNIQUE constraint failed: nodes.name (${e.row.name})`);
        this.nodeRows.set(e.row.id, { ...copy(e.row), created_at: before?.created_at ?? e.row.created_at });
        return;
      }
      case "quota":
        this.quotaRows.set(e.user_id, e.body);
        return;
      case "alloc": {
        const key = `${e.alloc.node_id}#${e.alloc.idx}`;
        if (this.allocRows.has(key)) throw new Error(`UNIQUE constraint failed: gpu_alloc (${key})`);
        this.allocRows.set(key, copy(e.alloc));
        return;
      }
      case "free":
        for (const [k, a] of this.allocRows) if (a.run_id === e.run_id) this.allocRows.delete(k);
        return;
      case "command":
        if (this.commandRows.has(e.row.id))
          throw new Error(`UNIQUE constraint failed: commands.id (${e.row.id})`);
        this.commandRows.set(e.row.id, { ...copy(e.row), sent_at: null, acked_at: null });
        return;
      case "settle":
        for (const c of this.commandRows.values()) {
          if (
            c.run_id === e.run_id &&
            c.kind === e.command &&
            c.acked_at === null &&
            (e.rank === null || c.rank === e.rank)
          )
            c.acked_at = e.at;
        }
        return;
      case "ack": {
        const c = this.commandRows.get(e.id);
        if (c && c.acked_at === null) c.acked_at = e.at;
        return;
      }
      case "reopen":
        for (const c of this.commandRows.values()) {
          if (
            c.run_id === e.run_id &&
            c.rank === e.rank &&
            c.node_id === e.node_id &&
            c.kind === "launch" &&
            c.acked_at !== null
          ) {
            c.acked_at = null;
            c.sent_at = null;
          }
        }
        return;
      case "sent": {
        const c = this.commandRows.get(e.id);
        if (c) c.sent_at = e.at;
        return;
      }
      case "timer":
        if (e.due === null) this.timerRows.delete(e.id);
        else this.timerRows.set(e.id, Math.min(e.due, this.timerRows.get(e.id) ?? Number.POSITIVE_INFINITY));
        return;
      case "outbox":
        this.outbox.push(e.entry);
        return;
      case "resume":
        if (!this.resumeRows.has(e.run_id)) this.resumeRows.set(e.run_id, e.body);
        return;
    }
  }

  // helpers for tests ----------------------------------------------------------------------

  /** When the earliest timer row is due, or null when none is armed. */
  nextTimerAt(): number | null {
    let next: number | null = null;
    for (const at of this.timerRows.values()) if (next === null || at < next) next = at;
    return next;
  }

  /** Timer rows due at `now`, earliest first, removed as the DO's alarm removes them. */
  takeDueTimers(now: number): string[] {
    const due = [...this.timerRows]
      .filter(([, at]) => at <= now)
      .sort((a, b) => a[1] - b[1])
      .map(([id]) => id);
    for (const id of due) this.timerRows.delete(id);
    return due;
  }
}
