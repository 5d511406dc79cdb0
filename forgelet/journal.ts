/**
 * The agent's small on-disk journal: what it was given and what became of it. It survives an agent
 * restart, so work that kept running is reattached instead of relaunched, and it is what the agent's
 * hello tells the Fleet DO ("expected vs actual"). Written atomically on every change.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { JournalEntry } from "../contract/agent-frames.schema.js";
import { writeFileAtomic } from "../contract/node-files.js";
import { RUNTIME_KINDS } from "./runtime.js";

export const JournalRecord = z.object({
  run_id: z.string(),
  job_id: z.string(),
  epoch: z.number().int(),
  rank: z.number().int(),
  state: z.enum(["accepted", "launched", "exited"]),
  exit_code: z.number().int().nullable(),
  reason: z.string().nullable(),
  infra: z.boolean().default(false),
  run_dir: z.string(),
  /** Set once the runtime has the workload (with `accepted`: submitted, waiting in a cluster's queue). */
  ref: z.object({ kind: z.enum(RUNTIME_KINDS), id: z.string() }).nullable(),
  /** A stop was requested: the end is reported as `stopped`, not as a failure. */
  stop_requested: z.boolean().default(false),
  /** The final report (exited/stopped/launch_failed) was acknowledged by the server. */
  final_acked: z.boolean().default(false),
});
export type JournalRecord = z.infer<typeof JournalRecord>;

const FileShape = z.object({ version: z.literal(1), records: z.array(JournalRecord) });

export class Journal {
  private readonly file: string;
  private records = new Map<string, JournalRecord>();

  constructor(stateDir: string) {
    this.file = join(stateDir, "journal.json");
    if (existsSync(this.file)) {
      const parsed = FileShape.safeParse(JSON.parse(readFileSync(this.file, "utf8")));
      if (!parsed.success) throw new Error(`journal ${this.file} is corrupt; move it away to start clean`);
      for (const r of parsed.data.records) this.records.set(key(r.run_id, r.rank), r);
    }
  }

  get(runId: string, rank: number): JournalRecord | undefined {
    return this.records.get(key(runId, rank));
  }

  byRun(runId: string): JournalRecord[] {
    return [...this.records.values()].filter((r) => r.run_id === runId);
  }

  all(): JournalRecord[] {
    return [...this.records.values()];
  }

  put(r: JournalRecord): void {
    this.records.set(key(r.run_id, r.rank), JournalRecord.parse(r));
    this.save();
  }

  update(runId: string, rank: number, patch: Partial<JournalRecord>): JournalRecord | undefined {
    const cur = this.get(runId, rank);
    if (!cur) return undefined;
    const next = { ...cur, ...patch };
    this.put(next);
    return next;
  }

  delete(runId: string, rank: number): void {
    if (this.records.delete(key(runId, rank))) this.save();
  }

  /** What the hello frame carries. */
  entries(): JournalEntry[] {
    return this.all().map((r) => ({
      run_id: r.run_id,
      epoch: r.epoch,
      rank: r.rank,
      state: r.state,
      exit_code: r.exit_code,
      reason: r.reason,
    }));
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify({ version: 1, records: this.all() }, null, 2), 0o600);
  }
}

function key(runId: string, rank: number): string {
  return `${runId}#${rank}`;
}
