/**
 * The rendezvous of a distributed run (docs/multi-node.md): each node rank's runner registers where its
 * peers reach it, and the world is complete when every node rank of the run's placement has. Rows are
 * per lease epoch, so a relaunch never meets the ranks of an earlier lease; a newer epoch clears older
 * ones (RunStore keeps the rows). The answer is a pure function of them.
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
