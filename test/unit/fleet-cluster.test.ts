/**
 * One agent fronting a cluster (Slurm on a login node): its nodes are the fleet's nodes, with the
 * cluster's GPU counts and states; it carries their commands; they are lost with it; a run the cluster
 * holds in its queue shows the cluster's reason.
 */
import { describe, expect, it } from "vitest";
import { clusterInventory, Fleet, inventory } from "./fleet-harness.js";

function cluster() {
  const f = new Fleet();
  const agent = f.clusterAgent("login-1", [
    { name: "sf-n1", gpus: 4 },
    { name: "sf-n2", gpus: 4 },
  ]);
  return { f, agent, n1: `${agent}:sf-n1`, n2: `${agent}:sf-n2` };
}

describe("a cluster agent", () => {
  it("puts the cluster's nodes in the fleet with their GPUs; its own host holds none", () => {
    const { f, agent, n1, n2 } = cluster();
    expect(f.s.node(agent)).toMatchObject({ gpus: 0, runtime: "slurm", agent_id: null });
    expect(f.s.node(n1)).toMatchObject({
      name: "sf-n1",
      gpus: 4,
      status: "ready",
      agent_id: agent,
      advertise_addr: "sf-n1.cluster",
    });
    expect(f.s.node(n2)).toMatchObject({ gpus: 4, status: "ready" });
    // A 2-node gang lands on both cluster nodes, never on the login host.
    const id = f.submit({ nodes: 2, gpus: 4 });
    const placed = f.s.ranks(f.currentRun(id).id).map((r) => r.node_id);
    expect(placed.sort()).toEqual([n1, n2].sort());
    f.checkInvariants();
  });

  it("gives drained and down nodes no new runs, and says why in the cluster's words", () => {
    const { f, agent, n1 } = cluster();
    f.decide({
      type: "inventory",
      nodeId: agent,
      inventory: clusterInventory("login-1", [
        { name: "sf-n1", gpus: 4, state: "drain", reason: "bad dimm" },
        { name: "sf-n2", gpus: 4, state: "down", reason: "Not responding" },
      ]),
    });
    expect(f.s.node(n1)).toMatchObject({ status: "drain", status_reason: "drain: bad dimm" });
    const id = f.submit({ gpus: 1 });
    expect(f.job(id).status).toBe("QUEUED");
    f.checkInvariants();
    // Back to idle: the queued job is dispatched by the same inventory frame.
    f.decide({
      type: "inventory",
      nodeId: agent,
      inventory: clusterInventory("login-1", [
        { name: "sf-n1", gpus: 4 },
        { name: "sf-n2", gpus: 4, state: "down", reason: "Not responding" },
      ]),
    });
    expect(f.s.node(n1)).toMatchObject({ status: "ready", status_reason: null });
    expect(f.job(id).status).toBe("SUBMITTED");
    expect(f.s.ranks(f.currentRun(id).id)[0]!.node_id).toBe(n1);
  });

  it("keeps a node the cluster stops listing (it may hold runs) but marks it down", () => {
    const { f, agent, n2 } = cluster();
    f.decide({
      type: "inventory",
      nodeId: agent,
      inventory: clusterInventory("login-1", [{ name: "sf-n1", gpus: 4 }]),
    });
    expect(f.s.node(n2)).toMatchObject({
      status: "down",
      status_reason: "down: the cluster no longer lists this node",
    });
  });

  it("ignores node lists from an agent that fronts no cluster, and a former cluster agent's nodes go down", () => {
    const f = new Fleet();
    const plain = f.agent("gpu-a", 4);
    f.decide({
      type: "inventory",
      nodeId: plain,
      inventory: clusterInventory("gpu-a", [{ name: "x", gpus: 8 }]),
    });
    // A plain agent's hello/inventory never adds nodes beyond its own host.
    const { f: g, agent, n1 } = cluster();
    g.decide({ type: "hello", nodeId: agent, inventory: inventory("login-1", 0), journal: [] });
    expect(g.s.node(n1)).toMatchObject({ status: "down" });
    expect(f.s.nodes().map((n) => n.id)).toEqual([plain]);
  });

  it("never shrinks a node below the GPUs its runs hold", () => {
    const { f, agent, n1 } = cluster();
    f.submit({ nodes: 2, gpus: 4 });
    f.decide({
      type: "inventory",
      nodeId: agent,
      inventory: clusterInventory("login-1", [
        { name: "sf-n1", gpus: 2 },
        { name: "sf-n2", gpus: 4 },
      ]),
    });
    expect(f.s.node(n1)!.gpus).toBe(4);
    f.checkInvariants();
  });

  it("acks and refuses commands for the nodes it fronts, and no one else's", () => {
    const { f, agent, n1 } = cluster();
    const other = f.agent("gpu-x", 0);
    f.submit({ gpus: 4 });
    const cmd = f.s.openCommands(n1)[0]!;
    expect(f.decide({ type: "ack", nodeId: other, commandId: cmd.id }).result).toBe(false);
    expect(f.decide({ type: "ack", nodeId: agent, commandId: cmd.id }).result).toBe(true);
  });

  it("loses its nodes with it; back in time, their runs go on, and its journal reattaches them", () => {
    const { f, agent, n1, n2 } = cluster();
    const id = f.submit({ nodes: 2, gpus: 4, maxRetries: 0 });
    f.report(id, "launched");
    f.decide({ type: "node_lost", nodeId: agent });
    expect([f.s.node(n1)!.status, f.s.node(n2)!.status]).toEqual(["lost", "lost"]);
    f.advance(200_000);
    const run = f.currentRun(id);
    const welcome = f.decide({
      type: "hello",
      nodeId: agent,
      inventory: clusterInventory("login-1", [
        { name: "sf-n1", gpus: 4 },
        { name: "sf-n2", gpus: 4 },
      ]),
      journal: [0, 1].map((rank) => ({
        run_id: run.id,
        epoch: run.epoch,
        rank,
        state: "launched" as const,
        exit_code: null,
        reason: null,
      })),
    }).result;
    expect(welcome.expected).toHaveLength(2);
    f.advance(200_000);
    expect(f.job(id).status).toBe("RUNNING");
    expect(f.s.node(n1)!.status).toBe("ready");
    // Lost again, past the grace: the gang fails as an infrastructure failure.
    f.decide({ type: "node_lost", nodeId: agent });
    f.advance(300_000);
    expect(f.job(id).status).toBe("FAILED");
    expect(f.s.allocations()).toEqual([]);
    f.checkInvariants();
  });

  it("a run the cluster holds is PENDING with the cluster's reason, cleared when it starts", () => {
    const { f } = cluster();
    const id = f.submit({ gpus: 2 });
    f.report(id, "accepted");
    f.report(id, "waiting", { reason: "Resources" });
    expect(f.job(id).status).toBe("PENDING");
    expect(JSON.parse(f.job(id).pending_reasons)).toEqual([
      {
        code: "RUNTIME_WAITING",
        message: "the cluster holds rank 0 in its queue: Resources",
        details: { rank: 0, reason: "Resources" },
      },
    ]);
    // The same reason again changes nothing (no new version for the ledger).
    const version = f.job(id).version;
    f.report(id, "waiting", { reason: "Resources" });
    expect(f.job(id).version).toBe(version);
    f.report(id, "launched");
    expect(f.job(id).status).toBe("RUNNING");
    expect(f.job(id).pending_reasons).toBe("[]");
    expect(f.transitions(id)).toEqual([
      "·→QUEUED",
      "QUEUED→SUBMITTED",
      "SUBMITTED→PENDING",
      "PENDING→RUNNING",
    ]);
  });

  it("a waiting report about a run that is over tells the workload to stop", () => {
    const { f } = cluster();
    const id = f.submit({ gpus: 1 });
    const run = f.currentRun(id);
    f.act(id, "stop");
    const out = f.decide({
      type: "run_event",
      input: {
        runId: run.id,
        epoch: run.epoch,
        rank: 0,
        event: "waiting",
        exitCode: null,
        reason: "Priority",
        infra: false,
        source: "agent",
      },
    }).result;
    expect(out.stopWorkload).toBe(true);
  });
  it("a start heard after the rank's own exit lets the workload finish; after a stop it does not", () => {
    // A cluster agent polls its scheduler, so it can hear of the start after the runner reported the end.
    const { f } = cluster();
    const id = f.submit({ gpus: 1 });
    f.report(id, "accepted");
    f.report(id, "waiting", { reason: "Priority" });
    f.report(id, "succeeded", { source: "runner" });
    expect(f.job(id).status).toBe("SUCCEEDED");
    expect(f.report(id, "started")).toEqual([
      { kind: "ignored", stopWorkload: true, finishing: true, runOver: true },
    ]);
    expect(f.job(id).status).toBe("SUCCEEDED");

    const stopped = f.submit({ gpus: 1 });
    f.report(stopped, "accepted");
    f.report(stopped, "launched");
    f.act(stopped, "stop");
    f.report(stopped, "stopped");
    expect(f.report(stopped, "started")).toEqual([{ kind: "ignored", stopWorkload: true, runOver: true }]);

    const failed = f.submit({ gpus: 1 });
    f.report(failed, "accepted");
    f.report(failed, "failed", { exitCode: 3, source: "runner" });
    expect(f.job(failed).status).toBe("FAILED");
    expect(f.report(failed, "launched")).toEqual([
      { kind: "ignored", stopWorkload: true, finishing: true, runOver: true },
    ]);

    // A gang whose rank 1 failed: rank 0 never ended by itself, so it is stopped at once.
    const gang = f.submit({ gpus: 1, nodes: 2 });
    const run = f.currentRun(gang);
    const ev = (rank: number, event: "launched" | "failed", exitCode: number | null) =>
      f.decide({
        type: "run_event",
        input: {
          runId: run.id,
          epoch: run.epoch,
          rank,
          event,
          exitCode,
          reason: null,
          infra: false,
          source: "runner",
        },
      }).result;
    ev(1, "failed", 2);
    expect(f.job(gang).status).toBe("FAILED");
    expect(ev(0, "launched", null)).toEqual({ kind: "ignored", stopWorkload: true, runOver: true });
    f.checkInvariants();
  });
});
