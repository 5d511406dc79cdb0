"""``starforge.report``: metrics and hyperparameters from training code to StarForge ingest.

Drop-in for the original platform's client::

    from starforge.report import init, log, log_hparams, finish
    init()                                  # reads STARFORGE_RUN_ID / _ENDPOINT / _TOKEN
    log({"train": {"loss": 0.5}}, step=10)  # -> key "train/loss"
    finish()

Rules this module keeps, because training code must never pay for the platform's problems:

* No token (or STARFORGE_ENABLED set to something other than "1") -> every call is a no-op.
* No call ever raises into training code, whatever the server does; ``log`` never blocks on the
  network: points are queued and a background thread posts them in batches of at most 256.
* ``finish`` (also run at interpreter exit) waits a bounded time for the queue to drain.
"""

import atexit
import math
import os
import threading

from starforge._ingest import Deadline, IngestClient, now_iso

__all__ = ["init", "log", "log_hparams", "finish"]

MAX_POINTS_PER_BATCH = 256  # the ingest contract's MAX_METRIC_POINTS
MAX_KEY_LENGTH = 256
FLUSH_INTERVAL_S = 1.0
# A dead server must not exhaust memory: past this many queued points, new ones are dropped.
MAX_QUEUED_POINTS = 200000
DEFAULT_FINISH_TIMEOUT_S = 10.0

_lock = threading.Lock()
_reporter = None
_atexit_registered = False
# After finish(), calls are no-ops until the next init(): a late log() must not quietly start a second
# reporter that nobody will finish.
_finished = False


def _finish_timeout():
    try:
        return max(0.0, float(os.environ.get("SF_REPORT_FLUSH_TIMEOUT", DEFAULT_FINISH_TIMEOUT_S)))
    except ValueError:
        return DEFAULT_FINISH_TIMEOUT_S


def _to_float(value):
    """A metric value as a finite float, or None. Accepts numbers, bools, numpy/torch scalars."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        f = float(value)
    elif hasattr(value, "item"):  # a 0-d tensor or numpy scalar; a larger tensor raises -> skipped
        f = float(value.item())
    elif isinstance(value, (str, bytes)) or value is None:
        return None
    else:
        f = float(value)
    # JSON has no NaN/Infinity, and the server's schema wants a plain number.
    return f if math.isfinite(f) else None


def _flatten(prefix, obj, out):
    for k, v in obj.items():
        key = "%s/%s" % (prefix, k) if prefix else str(k)
        if hasattr(v, "items") and callable(v.items):
            _flatten(key, v, out)
            continue
        try:
            f = _to_float(v)
        except Exception:
            f = None
        if f is not None and 0 < len(key) <= MAX_KEY_LENGTH:
            out[key] = f


class _Reporter:
    def __init__(self, run_id, endpoint, token):
        self.client = IngestClient(endpoint, token, run_id, log_prefix="starforge.report")
        enabled_flag = os.environ.get("STARFORGE_ENABLED", "1")
        self.enabled = self.client.enabled and enabled_flag == "1"
        self.next_step = 0
        self._queue = []  # items: ("point", dict) or ("hparams", dict), posted in this order
        self._cond = threading.Condition()
        self._closing = False
        self._deadline = Deadline()  # None while training runs: a slow server is retried forever
        self._dropped = 0
        self._thread = None
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="starforge-report", daemon=True)
            self._thread.start()

    # -- producer side (training thread) ------------------------------------------------------------

    def _enqueue(self, items):
        with self._cond:
            if self._closing:
                return
            # Past the cap the newest are dropped (not the oldest): the sender thread owns the front.
            room = max(0, MAX_QUEUED_POINTS - len(self._queue))
            self._queue.extend(items[:room])
            self._dropped += len(items) - min(room, len(items))
            if len(self._queue) >= MAX_POINTS_PER_BATCH:
                self._cond.notify()

    def log(self, metrics, step):
        if step is None:
            step = self.next_step
        step = int(step)
        if step < 0:
            return
        self.next_step = step + 1
        if not self.enabled or not hasattr(metrics, "items"):
            return
        flat = {}
        _flatten("", metrics, flat)
        ts = now_iso()
        self._enqueue([("point", {"key": k, "step": step, "value": v, "ts": ts}) for k, v in flat.items()])

    def log_hparams(self, params):
        if self.enabled and hasattr(params, "items"):
            self._enqueue([("hparams", {str(k): v for k, v in params.items()})])

    # -- consumer side (background thread) ----------------------------------------------------------

    def _next_batch(self):
        """The front of the queue as one request: up to 256 consecutive points, or one hparams body."""
        with self._cond:
            if not self._queue:
                return None, 0
            kind, first = self._queue[0]
            if kind == "hparams":
                return ("/hparams", {"run_id": self.client.run_id, "params": first}), 1
            points = []
            for kind, item in self._queue[:MAX_POINTS_PER_BATCH]:
                if kind != "point":
                    break
                points.append(item)
            return ("/metrics", {"run_id": self.client.run_id, "points": points}), len(points)

    def _send_all(self):
        while True:
            batch, n = self._next_batch()
            if batch is None:
                return
            path, body = batch
            # A permanent refusal (4xx) drops the batch: resending the same bytes cannot help.
            # A transient failure is retried inside post() until the deadline, then kept for later.
            answer = self.client.post(path, body, self._deadline)
            if answer is None and self._deadline.expired():
                return
            with self._cond:
                del self._queue[:n]

    def _run(self):
        while True:
            with self._cond:
                if not self._closing:
                    self._cond.wait(FLUSH_INTERVAL_S)
                closing = self._closing
            try:
                self._send_all()
            except Exception:
                pass  # never let the reporter thread die on a surprise; the next round retries
            if closing:
                return

    def finish(self):
        if self._thread is None:
            return
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify()
        self._deadline.set_in(_finish_timeout())
        self._thread.join(_finish_timeout() + 1.0)
        with self._cond:
            lost = len(self._queue) + self._dropped
        if lost:
            self.client._say("%d metric points/hparams were not delivered" % lost)


def _get():
    """The current reporter; log() before init() starts one from the environment (never after finish())."""
    global _reporter, _atexit_registered
    with _lock:
        if _reporter is None and not _finished:
            _reporter = _Reporter(
                os.environ.get("STARFORGE_RUN_ID"),
                os.environ.get("STARFORGE_ENDPOINT"),
                os.environ.get("STARFORGE_TOKEN"),
            )
            if not _atexit_registered:
                atexit.register(finish)
                _atexit_registered = True
        return _reporter


def init(run_id=None, endpoint=None, token=None):
    """Start reporting for a run; arguments default to STARFORGE_RUN_ID, _ENDPOINT and _TOKEN."""
    global _reporter, _atexit_registered, _finished
    try:
        with _lock:
            old, _reporter = _reporter, None
        if old is not None:
            old.finish()
        rep = _Reporter(
            run_id or os.environ.get("STARFORGE_RUN_ID"),
            endpoint or os.environ.get("STARFORGE_ENDPOINT"),
            token or os.environ.get("STARFORGE_TOKEN"),
        )
        with _lock:
            _reporter, _finished = rep, False
            if not _atexit_registered:
                atexit.register(finish)
                _atexit_registered = True
    except Exception:
        pass


def log(metrics, step=None):
    """Queue numeric metrics (nested dicts flatten with "/") at ``step`` (None: previous step + 1)."""
    try:
        rep = _get()
        if rep is not None:
            rep.log(metrics, step)
    except Exception:
        pass


def log_hparams(params):
    """Record the run's hyperparameters (a flat or nested dict of JSON values)."""
    try:
        rep = _get()
        if rep is not None:
            rep.log_hparams(params)
    except Exception:
        pass


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


def _after_fork_in_child():
    # A forked child (e.g. a data-loader worker) inherits the queue but not the thread: start afresh.
    global _reporter, _lock
    _reporter = None
    _lock = threading.Lock()  # the parent may have held it at the moment of the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
