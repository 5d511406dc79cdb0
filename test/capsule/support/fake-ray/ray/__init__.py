"""A stand-in for the subset of Ray's API that capsule/rayjob.py uses (Ray cannot be installed on the test
machine): ``init``, ``remote`` on a class with ``.options(num_gpus=, resources=, max_concurrency=)``,
actor method calls returning refs, ``wait``, ``get``, ``util.get_node_ip_address``. Each actor runs in
this process on its own threads, as a threaded Ray actor would on its node. Test knobs, from the
environment: FAKE_RAY_LOG (a file: one JSON line per actor placement), FAKE_RAY_NODE_IP_<resource>
(the node address an actor with that custom resource sees).
"""
import json
import os
import threading
import time

from . import util  # noqa: F401  (ray.util.get_node_ip_address)

_local = threading.local()


def init(address=None, **_kw):
    if address != "auto":
        raise RuntimeError("fake ray: the launcher must join the existing cluster (address='auto')")


class _Ref(object):
    def __init__(self):
        self.done = threading.Event()
        self.value = None
        self.error = None


def _call(fn, args, node_ip):
    ref = _Ref()

    def body():
        _local.node_ip = node_ip
        try:
            ref.value = fn(*args)
        except BaseException as e:  # noqa: BLE001 (an actor's failure is the caller's to see)
            ref.error = e
        ref.done.set()

    threading.Thread(target=body, daemon=True).start()
    return ref


class _Method(object):
    def __init__(self, inst, name, node_ip):
        self._fn, self._ip = getattr(inst, name), node_ip

    def remote(self, *args):
        return _call(self._fn, args, self._ip)


class _Handle(object):
    def __init__(self, inst, node_ip):
        self._inst, self._ip = inst, node_ip

    def __getattr__(self, name):
        return _Method(self._inst, name, self._ip)


class _ActorClass(object):
    def __init__(self, cls, opts):
        self._cls, self._opts = cls, opts

    def options(self, **opts):
        merged = dict(self._opts)
        merged.update(opts)
        return _ActorClass(self._cls, merged)

    def remote(self, *args):
        resources = self._opts.get("resources") or {}
        if self._opts.get("max_concurrency", 1) < 2:
            raise RuntimeError("fake ray: stop() could never reach a running rank without max_concurrency >= 2")
        placed = sorted(resources)
        log = os.environ.get("FAKE_RAY_LOG")
        if log:
            with open(log, "a") as f:
                f.write(json.dumps({"resources": resources, "num_gpus": self._opts.get("num_gpus", 0)}) + "\n")
        ip = os.environ.get("FAKE_RAY_NODE_IP_" + (placed[0] if placed else ""), "127.0.0.1")
        return _Handle(self._cls(*args), ip)


def remote(*args, **opts):
    if args and callable(args[0]) and not opts:
        return _ActorClass(args[0], {})
    for k in opts:
        if k not in ("max_restarts", "max_task_retries", "num_gpus", "resources", "max_concurrency"):
            raise ValueError("fake ray: %r is not an actor option" % k)
    return lambda cls: _ActorClass(cls, opts)


def wait(refs, num_returns=1, timeout=None):
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        done = [r for r in refs if r.done.is_set()]
        if len(done) >= num_returns or (end is not None and time.monotonic() >= end):
            done = done[:num_returns]
            return done, [r for r in refs if r not in done]
        time.sleep(0.02)


def get(ref):
    ref.done.wait()
    if ref.error is not None:
        raise ref.error
    return ref.value


def _node_ip():
    return getattr(_local, "node_ip", "127.0.0.1")
