"""``python3 runner.pyz run``: check the run directory, run the recipe, report what happens.

Order of business: manifest -> digests -> Python/framework capability -> entrypoint. Only when all of
them pass does the training start; the exit code says which check failed otherwise (sfrunner.codes).
After the start, the runner's job is to stay out of the way: ingest problems are retried in background
threads and never change what the training does or how it exits.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback

import sfrunner
from sfrunner import checks, distributed, manifest, masking
from sfrunner.codes import BAD_MANIFEST, NAMES, RUNNER_ERROR, CapsuleError
from sfrunner.console import echo, say
from sfrunner.events import CheckpointWatcher, EventPoster, lifecycle
from sfrunner.logship import LogShipper
from starforge import _environment
from starforge._ingest import Deadline, IngestClient

DEFAULT_DRAIN_S = 30.0  # after the child exits, how long to keep trying to deliver what is left
DEFAULT_STOP_GRACE_S = 25.0  # after a forwarded SIGTERM, how long before the child's group gets SIGKILL
LEFTOVER_GRACE_S = 2.0  # after the child exits, how long its orphans get before (and after) TERM
# Signals the runner passes on to the training's process group. TERM/INT/HUP mean "stop"; USR1/USR2
# are forwarded as is (Slurm and friends use them as "checkpoint now" warnings).
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# Exit codes of a training that was stopped (or stopped itself as on a stop signal): 128+TERM, 128+INT.
_STOPPED_CODES = (128 + signal.SIGTERM, 128 + signal.SIGINT)
_FORWARDED = _STOP_SIGNALS + (signal.SIGUSR1, signal.SIGUSR2)


def _env_float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def runner_path():
    """runner.pyz itself (or the source folder when run unpacked): what goes first on PYTHONPATH."""
    return os.path.dirname(os.path.dirname(os.path.abspath(sfrunner.__file__)))


def cli_value(v):
    """A typed hyperparameter as a CLI value: JSON spelling for numbers/bools (true, 0.1), raw strings."""
    return v if isinstance(v, str) else json.dumps(v)


def child_env(root, m):
    env = dict(os.environ)
    exp = m["experiment_dir"]
    work = os.path.join(root, "workspace")
    out = os.path.join(root, "out")
    os.makedirs(out, exist_ok=True)
    exp_dir = work if exp in ("", ".") else os.path.join(work, exp)
    # A catalog recipe may come with no workspace at all; it still runs in (an empty) FORGE_EXP_DIR.
    os.makedirs(exp_dir, exist_ok=True)
    env["FORGE_RUN_ROOT"] = root
    env["FORGE_WORK_DIR"] = work
    env["FORGE_EXP_DIR"] = exp_dir
    env["FORGE_OUT_DIR"] = out
    env["SF_HPARAMS"] = json.dumps(m["hyperparams"], sort_keys=True)
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = runner_path() + (os.pathsep + old if old else "")
    # A Python child writing to a pipe buffers by blocks: without this its lines would reach the log
    # tab minutes late, or not at all if it is killed.
    env.setdefault("PYTHONUNBUFFERED", "1")
    # The runner ships everything the training prints (line by line, exactly once): starforge.report
    # must not send a second copy of it.
    env["SF_RUNNER_SHIPS_OUTPUT"] = "1"
    # Where the runner writes why and by when the run is stopped, as soon as it is (starforge.report
    # `stop_notice()` reads it; a shell can `source` it).
    os.makedirs(os.path.join(root, ".starforge"), exist_ok=True)
    env["SF_STOP_NOTICE_FILE"] = os.path.join(root, ".starforge", "stop-notice.env")
    # The agent sets these; the manifest is the fallback when the runner is started by hand.
    env.setdefault("STARFORGE_RUN_ID", m["run_id"])
    env.setdefault("FORGE_JOB_ID", m["job_id"])
    env.setdefault("FORGE_RANK", str(m["rank"]))
    env.setdefault("FORGE_WORLD_SIZE", str(m["world_size"]))
    return env


def command(m, exp_dir):
    """The training command for the recipe's entrypoint; never a substitute for a missing one."""
    ep = m["recipe"]["entrypoint"]
    if ep["kind"] == "script":
        script = os.path.join(exp_dir, ep["path"])
        if not os.path.isfile(script):
            raise CapsuleError(BAD_MANIFEST, "entrypoint script %s does not exist" % script)
        return ["bash", script]
    checks.check_module(ep["module"])
    args = ["--%s=%s" % (k, cli_value(v)) for k, v in sorted(m["hyperparams"].items())]
    return [sys.executable, "-m", ep["module"]] + args


def _pump(pipe, stream, shipper, secrets=()):
    """Copy the child's output line by line, its secrets masked: echo it, and queue it for ingest."""
    for raw in iter(lambda: pipe.readline(1 << 20), b""):
        if secrets:
            raw = masking.mask(raw, secrets)
        echo(stream, raw)
        line = raw.decode("utf-8", "replace")
        if line.endswith("\n"):
            line = line[:-1]
            if line.endswith("\r"):
                line = line[:-1]
        shipper.add(stream, line)
    pipe.close()


class _Signals:
    """Forward signals to the training's process groups; stop them all (TERM, then KILL after a grace)
    on a stop signal or when one of several processes failed."""

    def __init__(self):
        self.procs = []
        self.received = None
        self.stopping_at = None
        self.killed = False

    def handler(self, signum, _frame):
        if signum in _STOP_SIGNALS and self.received is None:
            self.received = signum
            self._stopping()
        self.forward(signum)

    def _stopping(self):
        if self.stopping_at is None:
            self.stopping_at = time.monotonic()

    def stop_all(self):
        """One process of several failed: the others cannot go on without it (a collective would hang)."""
        self._stopping()
        self.forward(signal.SIGTERM)

    def forward(self, signum):
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass

    def tick(self, grace):
        if self.stopping_at is not None and not self.killed and time.monotonic() - self.stopping_at > grace:
            why = signal.Signals(self.received).name if self.received is not None else "the stop"
            say("the training ignored %s for %.0fs: killing it" % (why, grace))
            self.killed = True
            self.forward(signal.SIGKILL)


def _quote(value):
    """A value a POSIX shell reads back as is (single quotes; a quote inside closes, escapes, reopens)."""
    return "'" + str(value).replace("'", "'\\''") + "'"


class _StopNotice:
    """On the first stop signal, ask the control plane why and by when (GET /v1/ingest/notice), write it
    to SF_STOP_NOTICE_FILE for the training, and wait for the workload that long before killing it."""

    def __init__(self, client, path):
        self.client = client
        self.path = path
        self.grace = None  # seconds the agent gives, once known
        self._asked = False

    def ask(self):
        if self._asked or not self.client.enabled or not self.path:
            return
        self._asked = True
        threading.Thread(target=self._fetch, daemon=True).start()

    def _fetch(self):
        try:
            answer = self.client.get("/notice", Deadline(time.monotonic() + 5.0))
            notice = (answer or {}).get("notice")
            if not notice:
                return
            lines = [
                "SF_STOP_CAUSE=%s" % _quote(notice.get("cause", "stopped")),
                "SF_STOP_DEADLINE=%s" % _quote(notice.get("deadline", "")),
                "SF_STOP_GRACE_SECONDS=%s" % _quote(notice.get("grace_seconds", "")),
                "SF_STOP_PREEMPTED_BY=%s" % _quote(notice.get("preempted_by") or ""),
                "SF_STOP_REASON=%s" % _quote(notice.get("reason", "")),
            ]
            tmp = self.path + ".tmp"
            with open(tmp, "w") as f:
                f.write("\n".join(lines) + "\n")
            os.replace(tmp, self.path)
            if isinstance(notice.get("grace_seconds"), (int, float)):
                self.grace = float(notice["grace_seconds"])
            say("stop notice: %s, SIGKILL after %s" % (notice.get("cause"), notice.get("deadline")))
        except Exception as e:  # a notice is a courtesy: never let it break the stop
            say("could not read the stop notice: %s" % e)


def _exit_status(returncode):
    """Popen's -N (killed by signal N) as the shell's 128+N, which is what `docker wait` shows too."""
    return returncode if returncode >= 0 else 128 - returncode


def run():
    root = os.path.abspath(os.environ.get("FORGE_RUN_ROOT", "/sf"))
    m = manifest.load(os.path.join(root, ".starforge", "capsule", "capsule.json"))

    run_id = os.environ.get("STARFORGE_RUN_ID") or m["run_id"]
    endpoint = os.environ.get("STARFORGE_ENDPOINT") or m["ingest"]["endpoint"]
    token = os.environ.get("STARFORGE_TOKEN") or ""
    reporting = os.environ.get("STARFORGE_ENABLED") == "1" and bool(token)
    client = IngestClient(endpoint, token if reporting else None, run_id, "starforge-runner", say=say)
    try:
        rank = int(os.environ.get("FORGE_RANK", m["rank"]))
    except ValueError:
        rank = m["rank"]

    env = child_env(root, m)
    try:
        checks.verify_files(root, m["files"])
        checks.check_python(m["requires"]["python"])
        checks.check_framework(m["requires"]["framework"])
        argv = command(m, env["FORGE_EXP_DIR"])
    except CapsuleError as e:
        # The agent sees the exit code; the reason is for the person reading the run page.
        client.post(
            "/lifecycle",
            lifecycle(run_id, rank, "failed", e.code, "%s: %s" % (NAMES[e.code], e.message)),
            Deadline(time.monotonic() + 10.0),
        )
        raise

    lay = distributed.layout(env)
    say("run %s rank %d: %s %s (%s)" % (run_id, rank, m["recipe"]["name"], m["recipe"]["version"],
                                         "reporting to " + endpoint if reporting else "ingest disabled"))
    if env.get("SF_RESUME_FROM"):
        say("resuming from %s (step %s)" % (env["SF_RESUME_FROM"], env.get("SF_RESUME_STEP", "unknown")))
    if lay is not None:
        try:
            env.update(distributed.rendezvous_env(env, client, run_id, lay, say))
        except CapsuleError as e:
            # The peers are the infrastructure: a rank that never came is retried like a lost node.
            client.post(
                "/lifecycle",
                lifecycle(run_id, rank, "failed", e.code, "%s: %s" % (NAMES[e.code], e.message), infra=True),
                Deadline(time.monotonic() + 10.0),
            )
            raise
    envs = distributed.process_envs(env, lay)
    per_gpu = lay is not None and lay["mode"] == "per_gpu"
    say("exec: %s (cwd %s)%s" % (" ".join(argv), env["FORGE_EXP_DIR"],
                                 ", %d processes (ranks %s)" % (len(envs), ", ".join(e["RANK"] for e in envs))
                                 if per_gpu else ""))

    deadline = Deadline()
    poster = EventPoster(client, deadline)
    # Log lines carry the rank of the process that printed them: in per_gpu mode each process's own
    # (global) rank, otherwise the node's rank.
    shippers = [LogShipper(client, run_id, int(e["RANK"]) if per_gpu else rank, deadline) for e in envs]
    poster.post("/lifecycle", lifecycle(run_id, rank, "started"))
    if rank == 0:  # one copy of the hyperparameters per run, not one per rank
        poster.post("/hparams", {"run_id": run_id, "params": m["hyperparams"]})
    # Where this rank runs, for the run page (the server keeps one copy per distinct probe and host).
    poster.submit(lambda: client.post("/environment", dict(_environment.probe(), run_id=run_id), deadline))
    poster.submit(lambda: client.post("/environment/nodes", {"run_id": run_id, "nodes": [_environment.node()]},
                                      deadline))

    secrets = masking.needles(env)
    sigs = _Signals()
    for s in _FORWARDED:
        signal.signal(s, sigs.handler)
    procs, readers, failure = [], [], None
    for i, e in enumerate(envs):
        if sigs.received is not None:
            break  # stopped while starting: start no more
        try:
            # Its own session (so its own process group): a stop reaches every process the training
            # started, and a terminal's Ctrl-C reaches it only through us.
            proc = subprocess.Popen(
                argv,
                cwd=env["FORGE_EXP_DIR"],
                env=e,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as err:
            say("cannot start the training: %s" % err)
            failure = (i, 127, "the training could not be started: %s" % err)
            break
        procs.append(proc)
        sigs.procs.append(proc)
        own = [
            threading.Thread(target=_pump, args=(proc.stdout, "stdout", shippers[i], secrets), daemon=True),
            threading.Thread(target=_pump, args=(proc.stderr, "stderr", shippers[i], secrets), daemon=True),
        ]
        for t in own:
            t.start()
        readers.append(own)
    if sigs.received is not None:  # a stop that arrived while we were starting them
        sigs.forward(sigs.received)
    elif failure is not None:
        sigs.stop_all()

    watcher = None
    # Rank 0 alone uploads checkpoints: ranks that share a run directory (a shared file system)
    # would otherwise upload and register every checkpoint once per rank.
    if rank == 0 and procs:
        watcher = CheckpointWatcher(env["FORGE_OUT_DIR"], run_id, poster)
    grace = _env_float("SF_STOP_GRACE_SECONDS", DEFAULT_STOP_GRACE_S)
    notice = _StopNotice(client, env.get("SF_STOP_NOTICE_FILE"))
    while procs:
        if sigs.received is not None:
            notice.ask()
            # The agent's own grace, when longer than ours: a preempted job's class may give it more.
            if notice.grace is not None and notice.grace - 2 > grace:
                grace = notice.grace - 2
        running = False
        for i, proc in enumerate(procs):
            if proc.poll() is None:
                running = True
            elif proc.returncode != 0 and failure is None:
                failure = (i, _exit_status(proc.returncode), _ended(proc.returncode))
                if len(procs) > 1 and sigs.received is None:
                    say("local rank %d (rank %s) %s: stopping the node's other processes"
                        % (i, envs[i].get("RANK", rank), failure[2]))
                    sigs.stop_all()
        if not running:
            break
        sigs.tick(grace)
        time.sleep(0.1)
    for proc, own in zip(procs, readers):
        _end_leftovers(proc, own)
    code = failure[1] if failure is not None else 0

    deadline.set_in(_env_float("SF_INGEST_DRAIN_SECONDS", DEFAULT_DRAIN_S))
    if watcher is not None:
        watcher.close()
    for shipper in shippers:
        shipper.close()  # every log line before the final lifecycle event
    if sigs.received is not None:
        # Whoever signalled the runner knows why (a stop, a pause, a cluster's time limit or preemption):
        # its agent reports the end with that reason, so the runner claims no outcome of its own.
        say("stopped by %s; the agent reports why" % signal.Signals(sigs.received).name)
    elif failure is not None and failure[1] in _STOPPED_CODES:
        # The first process to end ended as a stop ends it (128+TERM/INT, or killed by TERM/INT), and the
        # runner had received no signal (nor sent one: it stops the others only after a first failure):
        # the stop came from elsewhere (a peer rank stopped, which a gang follows; a cluster ending part
        # of the job), where its cause is known. The agent reports it.
        say("the training ended as stopped (exit code %d), by no signal of this runner's; the agent reports why"
            % failure[1])
    elif code == 0:
        poster.post("/lifecycle", lifecycle(run_id, rank, "succeeded", 0))
    else:
        if len(envs) > 1:
            i = failure[0]
            reason = "local rank %d (rank %s): %s; the node's other processes were stopped" % (
                i, envs[i].get("RANK", rank), failure[2])
        else:
            reason = failure[2]
        poster.post("/lifecycle", lifecycle(run_id, rank, "failed", code, reason))
    poster.close()
    say("training finished with exit code %d" % code)
    return code


def _ended(returncode):
    if returncode < 0:
        return "the training was killed by %s" % signal.Signals(-returncode).name
    return "the training exited with code %d" % returncode


def _group_alive(pgid):
    """Does any process of the group still run? Zombies do not count: killpg() succeeds on them, and
    they are gone as soon as their new parent reaps them (which is us when we are a container's PID 1,
    hence the waitpid loop)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
    if os.path.isdir("/proc/self"):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # exited while we looked
            # After "pid (comm)": state, ppid, pgrp, ...
            if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
                return True
        return False
    try:  # no /proc (not Linux): the signal-0 probe, zombies included
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _end_leftovers(proc, readers):
    """The child exited; what it left running in its process group is stopped (TERM, then KILL): the
    run is over and nothing of it may outlive the runner. Orphans still writing get a moment first,
    so their last lines are not cut off."""
    until = time.monotonic() + LEFTOVER_GRACE_S
    for t in readers:
        t.join(max(0.0, until - time.monotonic()))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _group_alive(proc.pid):
            break
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        until = time.monotonic() + LEFTOVER_GRACE_S
        while time.monotonic() < until and _group_alive(proc.pid):
            time.sleep(0.05)
    for t in readers:
        t.join(1.0)  # a reader held open by a process outside the group must not hang the exit


def main(argv):
    if argv[:1] != ["run"]:
        sys.stderr.write("usage: python3 runner.pyz run\n")
        return 2
    try:
        return run()
    except CapsuleError as e:
        say("%s: %s" % (NAMES.get(e.code, e.code), e.message))
        return e.code
    except Exception:
        traceback.print_exc()
        say("%s: the runner failed; this is a bug in the capsule, not in the job" % NAMES[RUNNER_ERROR])
        return RUNNER_ERROR
