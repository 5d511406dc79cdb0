/**
 * Distributed runs end to end: real bootstrap.sh and runner.pyz processes, one per node rank, meeting
 * at the loopback ingest fake's /rendezvous before the training starts; per_gpu nodes running one
 * training process per GPU, each with its own rank, and stopping together.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { IngestServer } from "./support/ingest-server.js";
import {
  cleanAll,
  cleanTemps,
  makeRunDir,
  type RunDir,
  type Running,
  rankEnv,
  runBootstrap,
  startBootstrap,
  until,
} from "./support/run-dir.js";

const TOKEN = "tok-distributed-test";
const RUN = "run_test"; // rankEnv's STARFORGE_RUN_ID
let server: IngestServer;
const listeners: Server[] = [];
const started: Running[] = [];

beforeEach(async () => {
  server = await new IngestServer(TOKEN).start();
});
afterEach(async () => {
  // A runner a failed assertion left behind is stopped by its pid: TERM (which it forwards to the
  // trainings' own process groups), then KILL for its group; never by name.
  for (const r of started.splice(0)) {
    if (r.child.exitCode === null && r.child.signalCode === null) {
      try {
        process.kill(r.child.pid!, "SIGTERM");
      } catch {}
      await Promise.race([r.done, new Promise((ok) => setTimeout(ok, 5_000))]);
      try {
        process.kill(-r.child.pid!, "SIGKILL");
      } catch {}
    }
  }
  for (const l of listeners.splice(0)) await new Promise((ok) => l.close(ok));
  await server.stop();
  cleanTemps();
});
afterAll(cleanAll);

interface Node {
  nnodes: number;
  nodeRank: number;
  mode?: "per_node" | "per_gpu";
  /** Processes on this node (LOCAL_WORLD_SIZE) and the world's (WORLD_SIZE); RANK = node's first. */
  local?: number;
  world?: number;
  base?: number;
  addr?: string;
  extra?: Record<string, string>;
}

/** What an agent gives one node rank of a distributed run (contract rankEnv + distributedEnv). */
function nodeEnv(run: RunDir, n: Node): Record<string, string> {
  const local = n.local ?? 1;
  return {
    ...rankEnv(run, server.endpoint, TOKEN),
    FORGE_RANK: String(n.nodeRank),
    FORGE_WORLD_SIZE: String(n.nnodes),
    SF_PROCESSES: n.mode ?? "per_node",
    NNODES: String(n.nnodes),
    NODE_RANK: String(n.nodeRank),
    GROUP_RANK: String(n.nodeRank),
    WORLD_SIZE: String(n.world ?? n.nnodes * local),
    LOCAL_WORLD_SIZE: String(local),
    RANK: String(n.base ?? n.nodeRank * local),
    LOCAL_RANK: "0",
    SF_RENDEZVOUS_TIMEOUT_SECONDS: "60",
    ...(n.addr ? { FORGE_ADVERTISE_ADDR: n.addr } : {}),
    ...n.extra,
  };
}

function nodeRunDir(script: string, nodeRank: number, nnodes: number): RunDir {
  return makeRunDir({
    endpoint: server.endpoint,
    workspace: { "train.sh": script },
    mutate: (m) => {
      m.rank = nodeRank;
      m.world_size = nnodes;
    },
  });
}

function start(run: RunDir, env: Record<string, string>): Running {
  const r = startBootstrap(run, env);
  started.push(r);
  return r;
}

/** Prints what a process of the run sees, then marks that it ran. */
const SHOW_ENV = `#!/usr/bin/env bash
set -u
echo "env MASTER_ADDR=$MASTER_ADDR MASTER_PORT=$MASTER_PORT WORLD_SIZE=$WORLD_SIZE RANK=$RANK LOCAL_RANK=\${LOCAL_RANK-} NODE_RANK=$NODE_RANK NNODES=$NNODES FORGE_HOSTS=$FORGE_HOSTS CUDA_VISIBLE_DEVICES=\${CUDA_VISIBLE_DEVICES-}"
touch "$FORGE_OUT_DIR/ran.$RANK"
`;

/** The variables a SHOW_ENV line reports. */
function shownEnv(lines: string[]): Record<string, string> {
  const line = lines.find((l) => l.startsWith("env "));
  if (!line) throw new Error(`no env line in ${JSON.stringify(lines)}`);
  return Object.fromEntries(
    line
      .slice(4)
      .split(" ")
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
}

/** The lifecycle events one rank reported, as [event, exit_code]. */
function eventsOf(rank: number): [string, number | undefined][] {
  return server
    .lifecycle()
    .filter((e) => e.rank === rank)
    .map((e) => [e.event, e.exit_code]);
}

type Lifecycle = { event: string; rank?: number; exit_code?: number; reason?: string; infra?: boolean };

/** Another node rank joining, the way its runner would (POST /rendezvous, no long poll). */
async function peerJoins(body: { node_rank: number; nnodes: number; addr: string; port?: number }) {
  const res = await fetch(`${server.endpoint}/rendezvous`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-starforge-token": TOKEN },
    body: JSON.stringify({ run_id: RUN, wait_ms: 0, ...body }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { state: string };
}

/** A loopback listener on `port` (0: any), closed after the test. */
async function listen(port: number): Promise<number> {
  const l = createServer();
  await new Promise<void>((ok, fail) => {
    l.once("error", fail);
    l.listen(port, "127.0.0.1", () => ok());
  });
  listeners.push(l);
  return (l.address() as { port: number }).port;
}

/** Could something listen on `port` on every interface right now? (Nothing is left listening.) */
async function isFree(port: number): Promise<boolean> {
  const l = createServer();
  return new Promise((ok) => {
    l.once("error", () => ok(false));
    l.listen(port, "0.0.0.0", () => l.close(() => ok(true)));
  });
}

/** Is the process alive? A zombie (exited, not yet reaped by whoever adopted it) is not. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !["Z", "X"].includes(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  } catch {
    return false;
  }
}

/** Live processes in process group `pgid`. */
function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[2] === String(pgid) && !["Z", "X"].includes(fields[0]!);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("rendezvous: the node ranks meet before the training starts", () => {
  it("two nodes: both trainings see rank 0's address and port and every node's address", async () => {
    server.rendezvousWorld(2);
    // Node rank 0 listens at MASTER_ADDR:MASTER_PORT; node rank 1 dials it there, as a collective would.
    const script = `${SHOW_ENV}
python3 - <<'EOF'
import os, socket, time
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
if os.environ["NODE_RANK"] == "0":
    s = socket.socket()
    s.bind((addr, port))
    s.listen(1)
    s.settimeout(30)
    c, _ = s.accept()
    print("rank 0 heard: " + c.recv(100).decode())
else:
    for _ in range(300):
        try:
            socket.create_connection((addr, port), timeout=5).sendall(b"hello from node rank 1")
            break
        except OSError:
            time.sleep(0.1)
    print("rank 1 said hello")
EOF
`;
    const runs = [nodeRunDir(script, 0, 2), nodeRunDir(script, 1, 2)];
    const node0 = start(runs[0]!, nodeEnv(runs[0]!, { nnodes: 2, nodeRank: 0, addr: "127.0.0.2" }));
    await until(() => server.rendezvousJoined().includes(0), 20_000, "node rank 0 at the rendezvous");
    // Rank 0 waits for its peer: no training, no "started" before node rank 1 comes.
    expect(existsSync(runs[0]!.path("out/ran.0"))).toBe(false);
    expect(server.lifecycle()).toEqual([]);
    const node1 = start(runs[1]!, nodeEnv(runs[1]!, { nnodes: 2, nodeRank: 1, addr: "127.0.0.3" }));
    const [res0, res1] = await Promise.all([node0.done, node1.done]);
    expect(res0.code, res0.stderr).toBe(0);
    expect(res1.code, res1.stderr).toBe(0);

    const posted = server.accepted<{ node_rank: number; addr: string; port?: number; nnodes: number }>(
      "/rendezvous",
    );
    const port0 = posted.find((b) => b.node_rank === 0)?.port;
    expect(port0).toBeGreaterThan(0);
    expect(posted.filter((b) => b.node_rank === 0).every((b) => b.addr === "127.0.0.2")).toBe(true);
    expect(posted.filter((b) => b.node_rank === 1)[0]).toMatchObject({ addr: "127.0.0.3", nnodes: 2 });
    expect(posted.find((b) => b.node_rank === 1)?.port).toBeUndefined();
    // Rank 0 long-polled (one request held until the world completed), it did not poll in a loop.
    expect(posted.filter((b) => b.node_rank === 0).length).toBeLessThanOrEqual(2);

    for (const rank of [0, 1]) {
      expect(shownEnv(server.logLines("stdout", rank))).toEqual({
        MASTER_ADDR: "127.0.0.2",
        MASTER_PORT: String(port0),
        WORLD_SIZE: "2",
        RANK: String(rank),
        LOCAL_RANK: "0",
        NODE_RANK: String(rank),
        NNODES: "2",
        FORGE_HOSTS: "127.0.0.2,127.0.0.3",
        CUDA_VISIBLE_DEVICES: "",
      });
      expect(existsSync(runs[rank]!.path(`out/ran.${rank}`))).toBe(true);
      expect(eventsOf(rank)).toEqual([
        ["started", undefined],
        ["succeeded", 0],
      ]);
    }
    // The port was free for rank 0's store: the trainings met through it.
    expect(server.logLines("stdout", 0)).toContain("rank 0 heard: hello from node rank 1");
    expect(server.logLines("stdout", 1)).toContain("rank 1 said hello");
  });

  it("rank 0 listens in the fleet's port range; a range with no free port fails the run (69, infra)", async () => {
    // Two adjacent free ports; the first taken by someone else: rank 0 must skip it.
    let taken = 0;
    for (let tries = 0; tries < 50 && taken === 0; tries++) {
      const p = await listen(0);
      if (p < 65535 && (await isFree(p + 1))) taken = p;
      else await new Promise((ok) => listeners.pop()!.close(ok));
    }
    expect(taken).toBeGreaterThan(0);
    server.rendezvousWorld(2);
    await peerJoins({ node_rank: 1, nnodes: 2, addr: "127.0.0.3" });
    const run = nodeRunDir(SHOW_ENV, 0, 2);
    const ok = await runBootstrap(
      run,
      nodeEnv(run, {
        nnodes: 2,
        nodeRank: 0,
        addr: "127.0.0.2",
        extra: { SF_RENDEZVOUS_PORTS: `${taken}-${taken + 1}` },
      }),
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(shownEnv(server.logLines("stdout", 0)).MASTER_PORT).toBe(String(taken + 1));
    expect(server.accepted<{ port?: number }>("/rendezvous").at(-1)?.port).toBe(taken + 1);

    // A one-port range whose port is taken: nothing to listen on, so the run fails before it meets.
    server.requests.length = 0;
    const full = nodeRunDir(SHOW_ENV, 0, 2);
    const res = await runBootstrap(
      full,
      nodeEnv(full, {
        nnodes: 2,
        nodeRank: 0,
        addr: "127.0.0.2",
        extra: { SF_RENDEZVOUS_PORTS: `${taken}-${taken}` },
      }),
    );
    expect(res.code).toBe(69);
    expect(res.stderr).toContain(`no free port for rank 0 in the fleet's range ${taken}-${taken}`);
    expect(server.lifecycle()).toEqual([
      expect.objectContaining({
        event: "failed",
        rank: 0,
        exit_code: 69,
        infra: true,
        reason: `RENDEZVOUS_FAILED: no free port for rank 0 in the fleet's range ${taken}-${taken} on this node`,
      }),
    ]);
    expect(server.requests.filter((r) => r.path === "/rendezvous")).toEqual([]);
    expect(existsSync(full.path("out/ran.0"))).toBe(false);
  });

  it("a node rank that never joins: exit 69 after the timeout, reported as infra, naming it; no training", async () => {
    server.rendezvousWorld(3);
    await peerJoins({ node_rank: 2, nnodes: 3, addr: "127.0.0.4" }); // rank 2 came; rank 1 never will
    // Answers take a while to come back, as over a real network: the last one, which says who is
    // missing, must still arrive after the server held the poll to the rank's deadline.
    server.rendezvousLatencyMs = 150;
    const run = nodeRunDir(SHOW_ENV, 0, 3);
    const t0 = Date.now();
    const node0 = start(
      run,
      nodeEnv(run, {
        nnodes: 3,
        nodeRank: 0,
        addr: "127.0.0.2",
        extra: { SF_RENDEZVOUS_TIMEOUT_SECONDS: "3" },
      }),
    );
    await until(() => server.rendezvousJoined().includes(0), 20_000, "node rank 0 at the rendezvous");
    const joinedAt = Date.now();
    const res = await node0.done;
    const ended = Date.now();

    expect(res.code).toBe(69);
    // It waited the timeout (not less), and not much more.
    expect(ended - joinedAt).toBeGreaterThanOrEqual(2_500);
    expect(ended - t0).toBeLessThan(15_000);
    const reason = "RENDEZVOUS_FAILED: rendezvous timed out after 3s: node rank 1 never joined";
    expect(server.lifecycle()).toEqual([
      expect.objectContaining({ event: "failed", rank: 0, exit_code: 69, infra: true, reason }),
    ]);
    expect(res.stderr).toContain("rendezvous timed out after 3s: node rank 1 never joined");
    // Long polls of at most the time left, not a request loop.
    const polls = server.requests
      .filter((r) => r.path === "/rendezvous")
      .map((r) => r.body as { node_rank: number; wait_ms: number })
      .filter((b) => b.node_rank === 0);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(polls.length).toBeLessThanOrEqual(5);
    expect(polls[0]!.wait_ms).toBeGreaterThan(0);
    expect(polls.every((b) => b.wait_ms <= 3_000)).toBe(true);
    expect(existsSync(run.path("out/ran.0"))).toBe(false);
    expect(server.logLines("stdout", 0)).toEqual([]);
    expect(server.accepted("/hparams")).toEqual([]);
  });

  it("the run ends while a rank waits: it exits 69 at once with the control plane's reason", async () => {
    server.rendezvousWorld(2);
    const run = nodeRunDir(SHOW_ENV, 1, 2);
    const node1 = start(
      run,
      nodeEnv(run, {
        nnodes: 2,
        nodeRank: 1,
        addr: "127.0.0.3",
        extra: { SF_RENDEZVOUS_TIMEOUT_SECONDS: "30" },
      }),
    );
    await until(() => server.rendezvousJoined().includes(1), 20_000, "node rank 1 at the rendezvous");
    const why = "the run is failed: node rank 0 could not start its container";
    const failedAt = Date.now();
    server.failRendezvous(why);
    const res = await node1.done;

    expect(res.code).toBe(69);
    expect(Date.now() - failedAt).toBeLessThan(5_000);
    const events = server.lifecycle() as Lifecycle[];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: "failed", rank: 1, exit_code: 69, infra: true });
    expect(events[0]!.reason).toBe(`RENDEZVOUS_FAILED: rendezvous failed: ${why}`);
    expect(existsSync(run.path("out/ran.1"))).toBe(false);
  });

  it("a world the control plane disagrees with is refused at once (exit 69), not waited on", async () => {
    server.rendezvousWorld(3); // the run's placement has 3 nodes
    const cases = [
      { nnodes: 2, nodeRank: 1, why: "this run has 3 nodes, not 2" },
      { nnodes: 3, nodeRank: 3, why: "node_rank 3 is outside this run's 3 nodes" },
    ];
    for (const c of cases) {
      server.requests.length = 0;
      const run = nodeRunDir(SHOW_ENV, c.nodeRank, c.nnodes);
      const t0 = Date.now();
      const res = await runBootstrap(run, nodeEnv(run, { ...c, addr: "127.0.0.3" }));
      expect(res.code).toBe(69);
      expect(Date.now() - t0).toBeLessThan(15_000); // the 60 s timeout was not waited out
      expect(res.stderr).toContain("refused (HTTP 400)");
      expect(res.stderr).toContain(c.why);
      expect(server.lifecycle()).toEqual([
        expect.objectContaining({ event: "failed", exit_code: 69, infra: true, rank: c.nodeRank }),
      ]);
      expect(server.lifecycle()[0]?.reason).toBe(
        `RENDEZVOUS_FAILED: the control plane refused the rendezvous: BAD_REQUEST: ${c.why}`,
      );
      expect(existsSync(run.path(`out/ran.${c.nodeRank}`))).toBe(false);
    }
    expect(server.rendezvousJoined()).toEqual([]);
  });

  it("one node: no rendezvous request, rank 0 is local (127.0.0.1 and a free port)", async () => {
    const run = nodeRunDir(SHOW_ENV, 0, 1);
    const res = await runBootstrap(
      run,
      nodeEnv(run, { nnodes: 1, nodeRank: 0, local: 2, addr: "127.0.0.9" }),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(server.requests.filter((r) => r.path === "/rendezvous")).toEqual([]);
    const seen = shownEnv(server.logLines("stdout", 0));
    expect(seen).toMatchObject({
      MASTER_ADDR: "127.0.0.1",
      FORGE_HOSTS: "127.0.0.1",
      WORLD_SIZE: "2",
      RANK: "0",
    });
    expect(Number(seen.MASTER_PORT)).toBeGreaterThan(0);
    expect(await isFree(Number(seen.MASTER_PORT))).toBe(true);
    // per_node: one process (the launcher), however many GPUs the node has.
    expect(readdirSync(run.path("out")).filter((f) => f.startsWith("ran."))).toEqual(["ran.0"]);
    expect(eventsOf(0)).toEqual([
      ["started", undefined],
      ["succeeded", 0],
    ]);
  });
});

describe("per_gpu: one training process per GPU", () => {
  it("each process gets its rank, local rank and GPU; its lines arrive under its own rank", async () => {
    server.rendezvousWorld(2);
    await peerJoins({ node_rank: 0, nnodes: 2, addr: "127.0.0.2", port: 29577 });
    const script = `${SHOW_ENV}
for ((i = 1; i <= 200; i++)); do echo "rank $RANK line $i"; done
echo "rank $RANK warns" >&2
`;
    const run = nodeRunDir(script, 1, 2);
    const res = await runBootstrap(
      run,
      nodeEnv(run, {
        nnodes: 2,
        nodeRank: 1,
        mode: "per_gpu",
        local: 2,
        world: 4,
        base: 2,
        addr: "127.0.0.3",
        extra: { CUDA_VISIBLE_DEVICES: "4,5" },
      }),
    );
    expect(res.code, res.stderr).toBe(0);
    for (const [i, rank] of [2, 3].entries()) {
      const out = server.logLines("stdout", rank);
      expect(shownEnv(out)).toEqual({
        MASTER_ADDR: "127.0.0.2",
        MASTER_PORT: "29577",
        WORLD_SIZE: "4",
        RANK: String(rank),
        LOCAL_RANK: String(i),
        NODE_RANK: "1",
        NNODES: "2",
        FORGE_HOSTS: "127.0.0.2,127.0.0.3",
        CUDA_VISIBLE_DEVICES: String(4 + i),
      });
      // Complete and in order, and only this process's lines.
      expect(out.slice(1)).toEqual(Array.from({ length: 200 }, (_, j) => `rank ${rank} line ${j + 1}`));
      expect(server.logLines("stderr", rank)).toEqual([`rank ${rank} warns`]);
      expect(existsSync(run.path(`out/ran.${rank}`))).toBe(true);
    }
    expect(server.duplicateLines + server.conflictingLines).toBe(0);
    // Nothing under the node's rank: the processes have ranks of their own. Lifecycle stays per node.
    expect(server.logLines("stdout", 1)).toEqual([]);
    expect(server.lifecycle().map((e) => [e.event, e.rank, e.exit_code])).toEqual([
      ["started", 1, undefined],
      ["succeeded", 1, 0],
    ]);
  });

  it("one process failing stops the others at once; the runner exits with its code and leaves nothing", async () => {
    const script = `#!/usr/bin/env bash
set -u
out="$FORGE_OUT_DIR"
echo $$ > "$out/pid.$LOCAL_RANK"
if [[ "$LOCAL_RANK" == 1 ]]; then
  for ((i = 0; i < 400; i++)); do [[ -f "$out/up.0" ]] && break; sleep 0.05; done
  echo "rank $RANK fails"
  exit 3
fi
sleep 300 > /dev/null 2>&1 &
echo $! > "$out/background.0"
trap 'echo "rank $RANK got TERM"; exit 143' TERM
touch "$out/up.0"
for ((i = 0; i < 600; i++)); do sleep 0.05; done # half a minute, unless stopped
echo "rank $RANK ran to the end"
`;
    const run = nodeRunDir(script, 0, 1);
    const t0 = Date.now();
    const res = await runBootstrap(run, nodeEnv(run, { nnodes: 1, nodeRank: 0, mode: "per_gpu", local: 2 }));
    const took = Date.now() - t0;

    expect(res.code, res.stderr).toBe(3);
    expect(took).toBeLessThan(12_000); // well under the 25 s stop grace: rank 0 was TERMed, not waited on
    expect(server.logLines("stdout", 1)).toEqual(["rank 1 fails"]);
    expect(server.logLines("stdout", 0)).toEqual(["rank 0 got TERM"]);
    const events = server.lifecycle() as Lifecycle[];
    expect(events.map((e) => [e.event, e.exit_code, e.rank])).toEqual([
      ["started", undefined, 0],
      ["failed", 3, 0],
    ]);
    expect(events[1]!.reason).toBe(
      "local rank 1 (rank 1): the training exited with code 3; the node's other processes were stopped",
    );
    expect(events[1]!.infra).toBeUndefined();
    for (const name of ["pid.0", "pid.1", "background.0"]) {
      const pid = Number(readFileSync(run.path(`out/${name}`), "utf8"));
      expect(pid).toBeGreaterThan(1);
      expect(running(pid), name).toBe(false);
    }
    for (const name of ["pid.0", "pid.1"]) {
      expect(groupMembers(Number(readFileSync(run.path(`out/${name}`), "utf8"))), name).toEqual([]);
    }
  });

  it("SIGTERM to the runner reaches every process; each stops, and the runner exits 143", async () => {
    const script = `#!/usr/bin/env bash
set -u
echo $$ > "$FORGE_OUT_DIR/pid.$LOCAL_RANK"
trap 'echo "rank $RANK got TERM"; exit 143' TERM
echo "rank $RANK up"
for ((i = 0; i < 600; i++)); do sleep 0.05; done # half a minute, unless stopped
echo "rank $RANK ran to the end"
`;
    const run = nodeRunDir(script, 0, 1);
    const node = start(run, nodeEnv(run, { nnodes: 1, nodeRank: 0, mode: "per_gpu", local: 2 }));
    await until(
      () => [0, 1].every((r) => server.logLines("stdout", r).includes(`rank ${r} up`)),
      20_000,
      "both processes up at the server",
    );
    const sentAt = Date.now();
    // The runner alone (bootstrap.sh exec'd it): the trainings run in sessions of their own, so only
    // the runner's forwarding can reach them.
    process.kill(node.child.pid!, "SIGTERM");
    const res = await node.done;

    expect(res.code).toBe(143);
    expect(Date.now() - sentAt).toBeLessThan(12_000); // they stopped on TERM, no KILL after the grace
    for (const r of [0, 1]) {
      expect(server.logLines("stdout", r)).toEqual([`rank ${r} up`, `rank ${r} got TERM`]);
      const pid = Number(readFileSync(run.path(`out/pid.${r}`), "utf8"));
      expect(running(pid)).toBe(false);
      expect(groupMembers(pid)).toEqual([]);
    }
    // The end is the agent's to report (it knows why the signal came).
    const events = server.lifecycle() as Lifecycle[];
    expect(events.map((e) => [e.event, e.exit_code])).toEqual([["started", undefined]]);
  });
});
