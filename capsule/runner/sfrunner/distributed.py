"""Distributed runs: the ranks meet before the training starts, and each process gets the torchrun env.

The agent sets what the control plane knew at launch (SF_PROCESSES, NNODES, NODE_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, RANK of the node's first process, FORGE_ADVERTISE_ADDR). What nobody knew then is
where rank 0 listens: node rank 0 picks a free port (from SF_RENDEZVOUS_PORTS when the fleet set a
range), every node rank registers its address with the run's Durable Object over ingest
(POST /rendezvous, a long poll) and waits until the world is complete, at most
SF_RENDEZVOUS_TIMEOUT_SECONDS. Nothing dials in to the control plane and the agents keep dialling out:
the ranks only need to reach each other. A rank that never joins fails the run with a reason naming it.
"""

import os
import socket
import time

from sfrunner.codes import RENDEZVOUS_FAILED, CapsuleError
from starforge._ingest import Deadline

DEFAULT_TIMEOUT_S = 300.0
# One long poll; below the ingest client's request timeout (15 s) so a healthy wait never looks hung.
POLL_MS = 10000
PROGRESS_EVERY_S = 15.0
# A long poll ends at the latest at the rank's deadline; its answer gets this long past the deadline to
# arrive, so it is not cut off by the request's timeout.
ANSWER_MARGIN_S = 2.0


def _int_env(env, name, default):
    try:
        return int(env.get(name, default))
    except (TypeError, ValueError):
        return default


def layout(env):
    """The process layout the agent gave this node, or None when the recipe is not distributed."""
    mode = env.get("SF_PROCESSES")
    if mode not in ("per_node", "per_gpu"):
        return None
    return {
        "mode": mode,
        "nnodes": max(1, _int_env(env, "NNODES", 1)),
        "node_rank": _int_env(env, "NODE_RANK", 0),
        "world": max(1, _int_env(env, "WORLD_SIZE", 1)),
        "local": max(1, _int_env(env, "LOCAL_WORLD_SIZE", 1)),
        "base": _int_env(env, "RANK", 0),
    }


def port_range(env):
    """SF_RENDEZVOUS_PORTS "lo-hi" as (lo, hi), or None for any free port."""
    spec = (env.get("SF_RENDEZVOUS_PORTS") or "").strip()
    if not spec:
        return None
    try:
        lo, hi = (int(x) for x in spec.split("-", 1))
    except ValueError:
        raise CapsuleError(RENDEZVOUS_FAILED, "SF_RENDEZVOUS_PORTS=%r is not a range like 29500-29599" % spec)
    if not 1 <= lo <= hi <= 65535:
        raise CapsuleError(RENDEZVOUS_FAILED, "SF_RENDEZVOUS_PORTS=%r is not a range of ports" % spec)
    return lo, hi


def free_port(ports=None):
    """A port nothing listens on now, on every interface (where torch's store will listen)."""
    candidates = range(ports[0], ports[1] + 1) if ports else [0]
    for port in candidates:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("", port))
            return s.getsockname()[1]
        except OSError:
            continue
        finally:
            s.close()
    raise CapsuleError(
        RENDEZVOUS_FAILED, "no free port for rank 0 in the fleet's range %d-%d on this node" % ports
    )


def _ranks(ranks):
    return ", ".join(str(r) for r in ranks)


def meet(client, run_id, lay, addr, port, timeout_s, say):
    """Register this node rank and wait until every node rank has. Returns the complete answer
    (master addr/port, hosts by node rank); raises CapsuleError(RENDEZVOUS_FAILED) with a reason."""
    nnodes, node_rank = lay["nnodes"], lay["node_rank"]
    if not client.enabled:
        raise CapsuleError(
            RENDEZVOUS_FAILED,
            "a %d-node run meets its peers through ingest, and ingest is disabled here" % nnodes,
        )
    start = time.monotonic()
    deadline = start + timeout_s
    missing, last_said, reached = list(range(nnodes)), start, False
    body = {"run_id": run_id, "node_rank": node_rank, "nnodes": nnodes, "addr": addr}
    if node_rank == 0:
        body["port"] = port
    say("rendezvous: node rank %d of %d at %s%s, waiting up to %ds for the others"
        % (node_rank, nnodes, addr, ":%d" % port if node_rank == 0 else "", timeout_s))
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            if not reached:
                raise CapsuleError(
                    RENDEZVOUS_FAILED,
                    "rendezvous failed: the control plane could not be reached for %ds" % timeout_s,
                )
            raise CapsuleError(
                RENDEZVOUS_FAILED,
                "rendezvous timed out after %ds: node rank%s %s never joined"
                % (timeout_s, "s" if len(missing) > 1 else "", _ranks(missing)),
            )
        # The server holds a poll up to wait_ms, never past the deadline: ending polls ANSWER_MARGIN_S
        # early instead would make the last stretch a loop of zero-wait polls (no long poll, no pause).
        body["wait_ms"] = int(min(POLL_MS, left * 1000))
        answer = client.post("/rendezvous", body, Deadline(deadline + ANSWER_MARGIN_S))
        if answer is None:
            if time.monotonic() < deadline:
                # A permanent refusal (4xx): asking again cannot help.
                why = client.last_refusal[2] if client.last_refusal else "see the runner's output"
                raise CapsuleError(RENDEZVOUS_FAILED, "the control plane refused the rendezvous: %s" % why)
            continue
        state = answer.get("state")
        if state is None:  # 409 and friends come back as their error body
            err = answer.get("error") or {}
            raise CapsuleError(
                RENDEZVOUS_FAILED,
                "the control plane refused the rendezvous: %s" % (err.get("message") or answer),
            )
        reached = True
        if state == "complete":
            say("rendezvous complete in %.1fs: %d nodes, master %s:%d"
                % (time.monotonic() - start, nnodes, answer["master"]["addr"], answer["master"]["port"]))
            return answer
        if state == "failed":
            raise CapsuleError(RENDEZVOUS_FAILED, "rendezvous failed: %s" % answer.get("reason"))
        missing = answer.get("missing") or missing
        if time.monotonic() - last_said >= PROGRESS_EVERY_S:
            last_said = time.monotonic()
            say("rendezvous: waiting for node rank%s %s (%ds left)"
                % ("s" if len(missing) > 1 else "", _ranks(missing), left))


def rendezvous_env(env, client, run_id, lay, say):
    """The variables the rendezvous adds: MASTER_ADDR, MASTER_PORT and FORGE_HOSTS (node ranks' addresses)."""
    timeout_s = _int_env(env, "SF_RENDEZVOUS_TIMEOUT_SECONDS", int(DEFAULT_TIMEOUT_S))
    ports = port_range(env)
    if lay["nnodes"] == 1:
        # One node: nothing to meet; rank 0 is local.
        addr = "127.0.0.1"
        return {"MASTER_ADDR": addr, "MASTER_PORT": str(free_port(ports)), "FORGE_HOSTS": addr}
    addr = env.get("FORGE_ADVERTISE_ADDR") or socket.gethostname()
    port = free_port(ports) if lay["node_rank"] == 0 else None
    answer = meet(client, run_id, lay, addr, port, timeout_s, say)
    return {
        "MASTER_ADDR": answer["master"]["addr"],
        "MASTER_PORT": str(answer["master"]["port"]),
        "FORGE_HOSTS": ",".join(answer["hosts"]),
    }


def process_envs(env, lay):
    """One environment per process the runner starts: per_node one (the launcher, RANK of the node's
    first process), per_gpu one per GPU with its RANK, LOCAL_RANK and its own GPU."""
    if lay is None or lay["mode"] == "per_node":
        return [dict(env)]
    visible = [d for d in (env.get("CUDA_VISIBLE_DEVICES") or "").split(",") if d.strip()]
    out = []
    for i in range(lay["local"]):
        e = dict(env)
        e["RANK"] = str(lay["base"] + i)
        e["LOCAL_RANK"] = str(i)
        # The i-th GPU this node was given (renumbered from 0 in a container that sees only its own).
        e["CUDA_VISIBLE_DEVICES"] = visible[i] if len(visible) == lay["local"] else str(i)
        out.append(e)
    return out
