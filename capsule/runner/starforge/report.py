"""``starforge.report``: metrics, hyperparameters, hardware and terminal output from training code to
StarForge ingest. The original platform's API, unchanged::

    from starforge.report import init, log, log_hparams, finish, enabled, StarForgeCallback
    init(hparams={"lr": 3e-4})                  # reads STARFORGE_RUN_ID / _ENDPOINT / _TOKEN -> bool
    log({"train": {"loss": 0.5}}, step=10)      # -> key "train.loss"
    log({"loss": 0.4}, prefix="eval")           # -> key "eval.loss" at step 11
    trainer = Trainer(..., callbacks=[StarForgeCallback()])   # HuggingFace / TRL
    finish()                                    # also runs at exit

Rules this module keeps, because training code must never pay for the platform's problems:

* No token (or STARFORGE_ENABLED set to something other than "1") -> every call is a no-op.
* No call ever raises into training code, whatever the server does; ``log`` never blocks on the
  network: items are queued and a background thread posts them every STARFORGE_FLUSH_INTERVAL seconds
  (1.5) in batches of at most 256.
* ``finish`` (also run at interpreter exit) waits a bounded time for the queue to drain.

What ``init`` starts besides: an environment probe (``POST /environment``) and this host's entry of the
job's nodes (``POST /environment/nodes``); a hardware monitor (``POST /hardware``: CPU and memory from
/proc, GPUs from nvidia-smi) every STARFORGE_MONITOR_INTERVAL seconds (10); and, outside the capsule's
runner, a copy of what the training prints (``POST /logs``). Our additions are keyword arguments the
original does not have: ``init(run_id=, endpoint=, token=, capture_output=, all_ranks=)``.

In a distributed run (RANK set) only rank 0 reports metrics, under their own keys; with
``STARFORGE_ALL_RANKS=1`` or ``init(all_ranks=True)`` every rank also reports them as ``rank<R>/<key>``.
"""

import atexit
import datetime
import math
import os
import shlex
import threading

from starforge import _environment
from starforge._capture import OutputCapture
from starforge._ingest import Deadline, IngestClient, now_iso

__all__ = ["init", "log", "log_hparams", "finish", "enabled", "stop_notice", "StarForgeCallback"]

MAX_ITEMS_PER_BATCH = 256  # the ingest contract's MAX_METRIC_POINTS
MAX_KEY_LENGTH = 256
DEFAULT_FLUSH_INTERVAL_S = 1.5
DEFAULT_MONITOR_INTERVAL_S = 10.0
# A dead server must not exhaust memory: past this many queued items, new ones are dropped.
MAX_QUEUED_ITEMS = 200000
DEFAULT_FINISH_TIMEOUT_S = 10.0
SEPARATOR = "."
# Prefixes that already end in a separator are used as they are ("train/" + "loss").
_SEPARATORS = "./_-:"
# Where each queued kind goes; one request carries items of one kind.
_PATHS = {"point": "/metrics", "hw": "/hardware", "chunk": "/logs", "hparams": "/hparams",
          "env": "/environment", "nodes": "/environment/nodes"}
_BATCHED = {"point": "points", "hw": "points", "chunk": "chunks"}
_LABELS = (("point", "metric points"), ("hw", "hardware samples"), ("hparams", "hparams"),
           ("env", "environment probe"), ("nodes", "node entry"), ("chunk", "log chunks"))

_lock = threading.Lock()
_reporter = None
_atexit_registered = False
# After finish(), calls are no-ops until the next init(): a late log() must not quietly start a second
# reporter that nobody will finish.
_finished = False


def _env_float(name, default):
    try:
        value = float(os.environ.get(name, default))
        return value if value > 0 else default
    except ValueError:
        return default


def _finish_timeout():
    try:
        return max(0.0, float(os.environ.get("SF_REPORT_FLUSH_TIMEOUT", DEFAULT_FINISH_TIMEOUT_S)))
    except ValueError:
        return DEFAULT_FINISH_TIMEOUT_S


def _to_float(value):
    """A metric value as a finite float ("nan", "inf" or "-inf" when it is not), or None. Numbers, bools,
    numpy/torch scalars; a tensor or array is reduced to its mean; anything else (strings, None, lists) is
    not a metric."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        f = float(value)
    elif isinstance(value, (str, bytes)) or value is None:
        return None
    elif hasattr(value, "item"):  # numpy/torch: a scalar as is, a larger tensor/array by its mean
        n = value.numel() if hasattr(value, "numel") else getattr(value, "size", 1)
        if n != 1:
            value = value.float().mean() if hasattr(value, "float") else value.mean()
        f = float(value.item())
    else:
        return None
    # JSON has no NaN/Infinity: they go as "nan", "inf", "-inf" (not charted; a loss that becomes one is
    # the control plane's NAN_LOSS anomaly).
    return f if math.isfinite(f) else str(f)


def _join(prefix, key):
    if not prefix:
        return str(key)
    return prefix + str(key) if prefix[-1] in _SEPARATORS else prefix + SEPARATOR + str(key)


def _flatten(prefix, obj, out):
    for k, v in obj.items():
        key = _join(prefix, k)
        if hasattr(v, "items") and callable(v.items):
            _flatten(key, v, out)
            continue
        try:
            f = _to_float(v)
        except Exception:
            f = None
        if f is not None and 0 < len(key) <= MAX_KEY_LENGTH:
            out[key] = f


def _jsonable(value, depth=0):
    """Hyperparameters as JSON: containers kept, non-finite floats and other objects as text."""
    if depth > 20:
        return str(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if hasattr(value, "items") and callable(value.items):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v, depth + 1) for v in value]
    if hasattr(value, "item"):
        try:
            return _jsonable(value.item(), depth + 1)
        except Exception:
            pass
    return str(value)


def _world_rank():
    """This process's rank in a distributed run (RANK, the torchrun convention; Slurm's if only that is
    set); 0 outside one."""
    for name in ("RANK", "SLURM_PROCID"):
        v = os.environ.get(name)
        if v is not None and v.strip():
            try:
                return int(v)
            except ValueError:
                return 0
    return 0


def _local_rank_zero():
    """One hardware monitor and node entry per host: processes of local rank 0 (or unranked) only."""
    for name in ("LOCAL_RANK", "SLURM_LOCALID"):
        v = os.environ.get(name)
        if v is not None and v.strip() not in ("", "0"):
            return False
    return True


class _Reporter:
    def __init__(self, run_id, endpoint, token, monitor_hardware, monitor_interval, capture_output,
                 all_ranks=None):
        self.client = IngestClient(endpoint, token, run_id, log_prefix="starforge.report")
        self.enabled = self.client.enabled and os.environ.get("STARFORGE_ENABLED", "1") == "1"
        # Metrics: rank 0's under their own keys; with all_ranks, every rank's also as "rank<R>/<key>".
        self.rank = _world_rank()
        self.all_ranks = os.environ.get("STARFORGE_ALL_RANKS") == "1" if all_ranks is None else bool(all_ranks)
        self.next_step = 0
        self._queue = []  # (kind, item), posted in this order
        self._cond = threading.Condition()
        self._closing = False
        self._deadline = Deadline()  # None while training runs: a slow server is retried forever
        self._dropped = 0
        self._flush_interval = _env_float("STARFORGE_FLUSH_INTERVAL", DEFAULT_FLUSH_INTERVAL_S)
        self._thread = None
        self._monitor = None
        self._monitor_stop = threading.Event()
        self._capture = None
        if not self.enabled:
            return
        self._queue.append(("env", None))
        if _local_rank_zero():
            self._queue.append(("nodes", None))
        if capture_output is None:
            capture_output = os.environ.get("SF_RUNNER_SHIPS_OUTPUT") != "1"
        if capture_output:
            self._capture = OutputCapture()
            self._capture.start()
        self._thread = threading.Thread(target=self._run, name="starforge-report", daemon=True)
        self._thread.start()
        if monitor_hardware and _local_rank_zero():
            interval = monitor_interval or _env_float("STARFORGE_MONITOR_INTERVAL", DEFAULT_MONITOR_INTERVAL_S)
            self._monitor = threading.Thread(
                target=self._watch_hardware, args=(float(interval),), name="starforge-hardware", daemon=True
            )
            self._monitor.start()

    # -- producer side (training thread, hardware monitor) -------------------------------------------

    def _enqueue(self, kind, items):
        with self._cond:
            if self._closing:
                return
            # Past the cap the newest are dropped (not the oldest): the sender thread owns the front.
            room = max(0, MAX_QUEUED_ITEMS - len(self._queue))
            self._queue.extend((kind, item) for item in items[:room])
            self._dropped += len(items) - min(room, len(items))
            if len(self._queue) >= MAX_ITEMS_PER_BATCH:
                self._cond.notify()

    def log(self, metrics, step, prefix):
        if step is None:
            step = self.next_step
        step = int(step)
        if step < 0:
            return
        self.next_step = step + 1
        if not self.enabled or not hasattr(metrics, "items"):
            return
        flat = {}
        _flatten(prefix or "", metrics, flat)
        ts = now_iso()
        keys = []
        if self.rank == 0:
            keys += [(k, k) for k in flat]
        if self.all_ranks:
            keys += [(k, "rank%d/%s" % (self.rank, k)) for k in flat]
        self._enqueue("point", [{"key": key, "step": step, "value": flat[k], "ts": ts}
                                for k, key in keys if len(key) <= MAX_KEY_LENGTH])

    def log_hparams(self, params):
        if self.enabled and hasattr(params, "items"):
            self._enqueue("hparams", [_jsonable(params)])

    def _watch_hardware(self, interval):
        sampler = _environment.HardwareSampler()
        while not self._monitor_stop.wait(interval):
            try:
                self._enqueue("hw", sampler.sample(now_iso()))
            except Exception:
                pass  # a reading that fails is skipped; the next one may work

    # -- consumer side (background thread) ----------------------------------------------------------

    def _body(self, kind, items):
        run_id = self.client.run_id
        if kind in _BATCHED:
            return {"run_id": run_id, _BATCHED[kind]: items}
        if kind == "hparams":
            return {"run_id": run_id, "params": items[0]}
        if kind == "env":
            return dict(_environment.probe(), run_id=run_id)
        return {"run_id": run_id, "nodes": [_environment.node()]}

    def _next_batch(self):
        """The front of the queue as one request: up to 256 consecutive items of one kind."""
        with self._cond:
            if not self._queue:
                return None, None, 0
            kind = self._queue[0][0]
            items = []
            for k, item in self._queue[: MAX_ITEMS_PER_BATCH if kind in _BATCHED else 1]:
                if k != kind:
                    break
                items.append(item)
            return kind, items, len(items)

    def _send_all(self, final=False):
        if self._capture is not None:
            chunks = self._capture.take_chunks(final)
            if chunks:
                self._enqueue_output(chunks)
        while True:
            kind, items, n = self._next_batch()
            if kind is None:
                break
            body = self._body(kind, items)
            # A permanent refusal (4xx) drops the batch: resending the same bytes cannot help.
            # A transient failure is retried inside post() until the deadline, then kept for later.
            answer = self.client.post(_PATHS[kind], body, self._deadline)
            if answer is None and self._deadline.expired():
                return
            with self._cond:
                del self._queue[:n]
        if final and self._capture is not None:
            self.client.post("/logs", {"run_id": self.client.run_id, "chunks": [], "eof": True}, self._deadline)

    def _enqueue_output(self, chunks):
        """Captured output is queued even while closing (it is the last thing the training printed)."""
        with self._cond:
            self._queue.extend(("chunk", c) for c in chunks)

    def _run(self):
        while True:
            with self._cond:
                if not self._closing:
                    self._cond.wait(self._flush_interval)
                closing = self._closing
            try:
                self._send_all(final=closing)
            except Exception:
                pass  # never let the reporter thread die on a surprise; the next round retries
            if closing:
                return

    def flush(self, timeout):
        """Wait (bounded) until what is queued now has been sent; reporting goes on afterwards."""
        if self._thread is None:
            return
        with self._cond:
            self._cond.notify()
        end = Deadline()
        end.set_in(timeout)
        while not end.expired():
            with self._cond:
                if not self._queue:
                    return
            end.sleep(0.05)

    def finish(self):
        if self._thread is None:
            return
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify()
        self._monitor_stop.set()
        if self._capture is not None:
            self._capture.stop()
        self._deadline.set_in(_finish_timeout())
        self._thread.join(_finish_timeout() + 1.0)
        with self._cond:
            counts = {}
            for kind, _ in self._queue:
                counts[kind] = counts.get(kind, 0) + 1
            dropped = self._dropped
        parts = ["%d %s" % (counts[k], label) for k, label in _LABELS if counts.get(k)]
        if dropped:
            parts.append("%d items dropped while the queue was full" % dropped)
        if parts:
            self.client._say("not delivered: " + ", ".join(parts))


def _new_reporter(run_id=None, endpoint=None, token=None, monitor_hardware=True, monitor_interval=None,
                  capture_output=None, all_ranks=None):
    return _Reporter(
        run_id or os.environ.get("STARFORGE_RUN_ID"),
        endpoint or os.environ.get("STARFORGE_ENDPOINT"),
        token or os.environ.get("STARFORGE_TOKEN"),
        monitor_hardware,
        monitor_interval,
        capture_output,
        all_ranks,
    )


def _get():
    """The current reporter; log() before init() starts one from the environment (never after finish())."""
    global _reporter, _atexit_registered
    with _lock:
        if _reporter is None and not _finished:
            _reporter = _new_reporter()
            if not _atexit_registered:
                atexit.register(finish)
                _atexit_registered = True
        return _reporter


def init(hparams=None, monitor_hardware=True, monitor_interval=None, run_id=None, endpoint=None, token=None,
         capture_output=None, all_ranks=None):
    """Start reporting for this run; returns whether reporting is on (a token and an endpoint are set).

    ``hparams`` are recorded as by ``log_hparams``. ``monitor_hardware`` samples CPU, memory and GPUs
    every ``monitor_interval`` seconds (default STARFORGE_MONITOR_INTERVAL, 10). Ours: ``run_id``,
    ``endpoint``, ``token`` override STARFORGE_RUN_ID/_ENDPOINT/_TOKEN; ``capture_output`` ships what the
    training prints (default: on, except under the capsule's runner, which ships it already).
    ``all_ranks`` (default STARFORGE_ALL_RANKS=1): in a distributed run every rank also reports its
    metrics as ``rank<R>/<key>`` (a straggler shows); otherwise only rank 0 reports metrics.
    """
    global _reporter, _atexit_registered, _finished
    try:
        with _lock:
            old, _reporter = _reporter, None
        if old is not None:
            old.finish()
        rep = _new_reporter(run_id, endpoint, token, monitor_hardware, monitor_interval, capture_output,
                            all_ranks)
        with _lock:
            _reporter, _finished = rep, False
            if not _atexit_registered:
                atexit.register(finish)
                _atexit_registered = True
        if hparams is not None:
            rep.log_hparams(hparams)
        return rep.enabled
    except Exception:
        return False


def log(metrics, step=None, prefix=""):
    """Queue numeric metrics at ``step`` (None: previous step + 1). Nested dicts flatten with ".";
    ``prefix`` names them all ("eval" -> "eval.loss"; a prefix ending in "/" or "." is used as is)."""
    try:
        rep = _get()
        if rep is not None:
            rep.log(metrics, step, prefix)
    except Exception:
        pass


def log_hparams(params):
    """Record the run's hyperparameters (a dict of JSON-like values; other objects are sent as text)."""
    try:
        rep = _get()
        if rep is not None:
            rep.log_hparams(params)
    except Exception:
        pass


def stop_notice():
    """Why and by when this run is being stopped, once it is; None before (or outside StarForge).

    The runner writes it as soon as the stop comes (SIGTERM to every rank): a dict with ``cause``
    (``"preempted"`` when a job of a higher priority class needs the GPUs, else ``"stopped"``),
    ``deadline`` (ISO 8601: SIGKILL follows then), ``grace_seconds``, ``seconds_left`` (from now),
    ``preempted_by`` (a job id, or None) and ``reason``. Code that polls between steps can checkpoint
    and exit before the deadline.
    """
    path = os.environ.get("SF_STOP_NOTICE_FILE")
    if not path:
        return None
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        key, sep, raw = line.partition("=")
        if not sep:
            continue
        try:
            parts = shlex.split(raw)
        except ValueError:
            continue
        values[key] = parts[0] if parts else ""
    deadline = values.get("SF_STOP_DEADLINE") or None
    left = None
    if deadline:
        try:
            at = datetime.datetime.strptime(deadline[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
            left = max(0.0, (at - datetime.datetime.now(datetime.timezone.utc)).total_seconds())
        except ValueError:
            left = None
    grace = values.get("SF_STOP_GRACE_SECONDS")
    return {
        "cause": values.get("SF_STOP_CAUSE") or "stopped",
        "deadline": deadline,
        "grace_seconds": int(grace) if grace and grace.isdigit() else None,
        "seconds_left": left,
        "preempted_by": values.get("SF_STOP_PREEMPTED_BY") or None,
        "reason": values.get("SF_STOP_REASON") or "",
    }


def enabled():
    """Whether calls report anything (a reporter is running with a token and an endpoint)."""
    try:
        with _lock:
            rep = _reporter
        return bool(rep is not None and rep.enabled)
    except Exception:
        return False


def finish():
    """Flush what is queued (bounded by SF_REPORT_FLUSH_TIMEOUT seconds) and stop reporting."""
    global _reporter, _finished
    try:
        with _lock:
            rep, _reporter, _finished = _reporter, None, True
        if rep is not None:
            rep.finish()
    except Exception:
        pass


def _flush():
    try:
        with _lock:
            rep = _reporter
        if rep is not None:
            rep.flush(_finish_timeout())
    except Exception:
        pass


class StarForgeCallback:
    """A HuggingFace/TRL ``TrainerCallback`` (duck-typed: transformers need not be installed to import
    it). Only the world's process zero reports, as with other trackers. ``on_train_begin`` starts
    reporting with the training arguments as hyperparameters (or adds them, if ``init`` ran already);
    ``on_log`` and ``on_evaluate`` log at the trainer's global step; ``on_train_end`` flushes. Reporting
    ends with ``finish()`` or at exit, so an evaluation after training is still recorded."""

    def __init__(self, monitor_hardware=True, prefix=""):
        self.monitor_hardware = monitor_hardware
        self.prefix = prefix

    @staticmethod
    def _is_zero(state):
        return bool(getattr(state, "is_world_process_zero", True))

    def on_train_begin(self, args, state, control, **kwargs):
        if not self._is_zero(state):
            return None
        params = None
        try:
            params = args.to_dict() if hasattr(args, "to_dict") else dict(vars(args))
        except Exception:
            params = None
        if enabled():
            if params is not None:
                log_hparams(params)
        else:
            init(hparams=params, monitor_hardware=self.monitor_hardware)
        return None

    def _log(self, state, values):
        if values and self._is_zero(state):
            log(values, step=getattr(state, "global_step", None), prefix=self.prefix)

    def on_log(self, args, state, control, logs=None, **kwargs):
        self._log(state, logs)

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        self._log(state, metrics)

    def on_train_end(self, args, state, control, **kwargs):
        if self._is_zero(state):
            _flush()

    def __getattr__(self, name):
        # Every other trainer event (on_step_end, on_save, ...) is a no-op that leaves `control` as is.
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)


def _after_fork_in_child():
    # A forked child (e.g. a data-loader worker) inherits the queue but not the thread: start afresh,
    # and print straight to the terminal (the parent's capture has no thread here to ship it).
    global _reporter, _lock
    if _reporter is not None and _reporter._capture is not None:
        _reporter._capture.stop()
    _reporter = None
    _lock = threading.Lock()  # the parent may have held it at the moment of the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
