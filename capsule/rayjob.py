"""KubeRay: the RayJob's entrypoint. Runs every rank of a StarForge run on its own Ray node (pod).

    python3 <secret mount>/rayjob.py        (the RayJob's spec.entrypoint; forgelet renders it)

Next to it, from the run's Secret mounted into the head pod: plan.json (the pull plan, capsule/pull.py's
format; it holds each rank's token) and pull.py (a pod cannot see the agent's disk: inputs are pulled by
digest). From the head container's environment, which the Ray job's driver inherits:
    SF_RUN_ID        the run
    SF_NODE_DIR      where each rank builds its run directory on its pod's disk (default /tmp/starforge-runs)
    SF_KEEP_RUNS     "1": keep the run directories (debugging)
    SF_RANK_GPUS     {"<rank>": GPUs}: what each rank's Ray actor asks for (several ranks)

One rank (the usual case) runs right here, on the head, where the entrypoint runs. Several ranks run as
Ray tasks, rank R on the pod that advertises the custom resource ``starforge_rank_R`` (forgelet renders
one such group per rank, pinned to the Kubernetes node the Fleet DO chose), each with the pod's GPUs.
Each rank: pull.py builds its run directory (every file verified by digest), then the capsule's
bootstrap.sh runs with the rank's environment; FORGE_ADVERTISE_ADDR is the Ray node's address (the
pod's IP), where rank 0 listens for its peers. The first rank to fail stops the others; the exit code is
that rank's. SIGTERM (a stop: KubeRay stops the Ray job) reaches every rank's capsule, which checkpoints
and exits; each rank's process group is written to <node dir>/<run>-r<rank>.pgid, which the pods'
preStop hook uses when Kubernetes deletes them (it TERMs the group and waits for it). Standard library only, plus ``ray`` when there are several ranks
(every Ray image has it).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

BAD_PLAN = 68
STEP = (
    'set -a; . "$1/.starforge/env.sh"; set +a; export FORGE_RUN_ROOT="$1"; '
    'if [ -n "$2" ]; then export FORGE_ADVERTISE_ADDR="$2"; fi; '
    # A handler (not an ignore) for TERM: bash keeps waiting; the capsule gets the TERM itself.
    "trap 'true' TERM INT; "
    'bash "$1/.starforge/capsule/bootstrap.sh"'
)


def say(message):
    sys.stderr.write("starforge rayjob: %s\n" % message)
    sys.stderr.flush()


def run_rank(rank, plan_text, pull_src, run_id, node_dir, keep, addr, stopping=None):
    """Pulls rank `rank`'s run directory on this node and runs the capsule in it; returns its exit code."""
    root = os.path.join(node_dir, "%s-r%d" % (run_id, rank))
    pgid_file = root + ".pgid"
    stage = tempfile.mkdtemp(prefix="sf-stage-")  # 0700: the plan holds the rank's token
    procs = []
    # A stop that comes while the rank's process is not started yet (the pull, or between its spawn and
    # `procs.append`) is kept and delivered as soon as there is a process, instead of being lost.
    term = []

    def on_term(signum, _frame):
        term.append(signum)
        for p in procs:
            try:
                os.killpg(p.pid, signum)
            except OSError:
                pass

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_term)
    try:
        plan_file = os.path.join(stage, "plan.json")
        with open(plan_file, "w") as f:
            f.write(plan_text)
        os.chmod(plan_file, 0o600)
        pull_file = os.path.join(stage, "pull.py")
        with open(pull_file, "w") as f:
            f.write(pull_src)
        code = subprocess.call([sys.executable, pull_file, root, str(rank), plan_file])
        if code != 0:
            return code
        if term or (stopping is not None and stopping.is_set()):
            return 128 + signal.SIGTERM
        p = subprocess.Popen(["bash", "-c", STEP, "starforge-rank", root, addr or ""], start_new_session=True)
        procs.append(p)
        if term:
            try:
                os.killpg(p.pid, term[-1])
            except OSError:
                pass
        # The pod's preStop hook (rendered by forgelet) TERMs this group and waits for it before Kubernetes
        # stops the container: a deleted pod gives the capsule its checkpoint time.
        with open(pgid_file, "w") as f:
            f.write(str(p.pid))
        if stopping is not None:
            threading.Thread(target=_stop_when, args=(stopping, p), daemon=True).start()
        return p.wait()
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if os.path.exists(pgid_file):
            os.unlink(pgid_file)
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def _stop_when(event, proc):
    event.wait()
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except OSError:
            pass


def run_on_ray(world, plan_text, pull_src, run_id, node_dir, keep):
    """Several ranks: one Ray task per rank, each on its own pod; the first failure stops the others."""
    import ray  # noqa: PLC0415 (only multi-node runs need it)

    ray.init(address="auto")
    gpus = json.loads(os.environ.get("SF_RANK_GPUS") or "{}")

    @ray.remote(max_restarts=0)
    class Rank:
        """An actor (not a task): a stop reaches its capsule with SIGTERM, not Ray's SIGKILL."""

        def __init__(self):
            self.stopping = threading.Event()

        def run(self, rank):
            addr = ray.util.get_node_ip_address()
            return run_rank(rank, plan_text, pull_src, run_id, node_dir, keep, addr, self.stopping)

        def stop(self):
            self.stopping.set()

    actors = [
        Rank.options(
            num_gpus=gpus.get(str(r), 0),
            resources={"starforge_rank_%d" % r: 1},
            max_concurrency=2,
        ).remote()
        for r in range(world)
    ]
    refs = {a.run.remote(r): r for r, a in enumerate(actors)}

    def stop_all(*_):
        for a in actors:
            a.stop.remote()

    signal.signal(signal.SIGTERM, stop_all)
    signal.signal(signal.SIGINT, stop_all)
    first = None
    pending = list(refs)
    while pending:
        # With a timeout, so a SIGTERM's handler runs while the ranks are still going.
        done, pending = ray.wait(pending, num_returns=1, timeout=1.0)
        for ref in done:
            try:
                code = ray.get(ref)
            except Exception as e:  # the actor or its node died
                say("rank %d was lost: %s" % (refs[ref], e))
                code = 137
            if code != 0 and first is None:
                first = code
                say("rank %d ended with exit code %d: stopping the other ranks" % (refs[ref], code))
                stop_all()
    return first or 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        with open(os.path.join(here, "plan.json")) as f:
            plan_text = f.read()
        with open(os.path.join(here, "pull.py")) as f:
            pull_src = f.read()
        run_id = os.environ["SF_RUN_ID"]
        world = len(json.loads(plan_text)["ranks"])
    except (OSError, KeyError, ValueError, TypeError) as e:
        say("the launch files or environment are incomplete (%s); was this RayJob rendered by forgelet?" % e)
        return BAD_PLAN
    node_dir = os.environ.get("SF_NODE_DIR") or "/tmp/starforge-runs"
    keep = os.environ.get("SF_KEEP_RUNS") == "1"
    if world == 1:
        return run_rank(0, plan_text, pull_src, run_id, node_dir, keep, os.environ.get("SF_ADVERTISE_ADDR"))
    say("run %s: %d ranks, one per Ray node" % (run_id, world))
    return run_on_ray(world, plan_text, pull_src, run_id, node_dir, keep)


if __name__ == "__main__":
    sys.exit(main())
