/**
 * The rendezvous of a distributed run (docs/multi-node.md): each node rank's runner registers where its
 * peers reach it, and the world is complete when every node rank of the run's placement has. Rows are
 * per lease epoch, so a relaunch never meets the ranks of an earlier lease; a newer epoch clears older
 * ones (RunStore keeps the rows). The answer is a pure function of them; `RendezvousWaiters` holds the
 * ranks that wait for it to be complete.
 */
import type { RendezvousAnswer } from "../../contract/ingest.schema.js";

export interface RendezvousRow {
  epoch: number;
  node_rank: number;
  addr: string;
  port: number | null;
  joined_at: number;
}

/** Where the world stands: who joined, who is missing, and once complete, rank 0's address and port. */
export function rendezvousView(rows: RendezvousRow[], nnodes: number): RendezvousAnswer {
  const byRank = new Map(rows.filter((r) => r.node_rank < nnodes).map((r) => [r.node_rank, r]));
  const all = Array.from({ length: nnodes }, (_, i) => i);
  const missing = all.filter((i) => !byRank.has(i));
  const master = byRank.get(0);
  const complete = missing.length === 0 && master?.port != null;
  return {
    state: complete ? "complete" : "waiting",
    nnodes,
    joined: all.filter((i) => byRank.has(i)),
    missing,
    master: complete ? { addr: master!.addr, port: master!.port! } : null,
    hosts: complete ? all.map((i) => byRank.get(i)!.addr) : null,
    reason: null,
  };
}

/** Ranks waiting at the rendezvous (in memory: a long poll lives only as long as its request). */
export class RendezvousWaiters {
  private readonly waiters = new Set<() => void>();

  /** A rank joined: every waiter looks at the world again. */
  wake(): void {
    for (const wake of this.waiters) wake();
  }

  /** `view` now if complete (or `waitMs` is 0), else once it is or `waitMs` passed, whichever is first. */
  async wait(view: () => RendezvousAnswer, waitMs: number): Promise<RendezvousAnswer> {
    const now = view();
    if (now.state === "complete" || waitMs <= 0) return now;
    await new Promise<void>((resolve) => {
      const check = () => {
        if (view().state !== "complete") return;
        done();
      };
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      this.waiters.add(check);
    });
    return view();
  }
}
