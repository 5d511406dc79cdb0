"""Ordered ingest events (lifecycle, hparams, checkpoints) and the checkpoint directory watcher.

Events go through one background thread, in order: the server sees ``started`` before any artifact and
``succeeded``/``failed`` last, and a slow or dead server delays the reports, never the training.
"""

import os
import re
import threading
from collections import deque

from sfrunner.checks import sha256_file
from sfrunner.console import say
from starforge._ingest import now_iso

POLL_INTERVAL_S = 1.0
# Files a writer has not finished yet, by the usual conventions (atomic writers use a temp name).
_INCOMPLETE_SUFFIXES = (".tmp", ".temp", ".part", ".partial", ".incomplete", ".lock")
_STEP_RE = re.compile(r"(?:step|checkpoint|ckpt|iter)[-_]?([0-9]+)")


def step_of(relpath):
    """'step-000100.json' -> 100; 'checkpoint-500/model.bin' -> 500; no number -> None."""
    m = _STEP_RE.search(relpath.split("/")[0].lower())
    return int(m.group(1)) if m else None


class EventPoster:
    def __init__(self, client, deadline):
        self.client = client
        self.deadline = deadline
        self._queue = deque()
        self._cond = threading.Condition()
        self._closing = False
        self._thread = None
        if client.enabled:
            self._thread = threading.Thread(target=self._run, name="starforge-events", daemon=True)
            self._thread.start()

    def submit(self, fn):
        """Queue ``fn()`` (which talks to ingest); runs after everything submitted before it."""
        if self._thread is None:
            return
        with self._cond:
            self._queue.append(fn)
            self._cond.notify()

    def post(self, path, body):
        self.submit(lambda: self.client.post(path, body, self.deadline))

    def _run(self):
        while True:
            with self._cond:
                while not self._queue and not self._closing:
                    self._cond.wait()
                if not self._queue:
                    return
                fn = self._queue.popleft()
            if self.deadline.expired():
                continue  # past the drain deadline: skip the rest rather than hang the exit
            try:
                fn()
            except Exception as e:
                self.client._say("ingest event failed: %s" % e)

    def close(self):
        """Run what is queued (each call gives up at the caller's deadline) and stop."""
        if self._thread is None:
            return
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join()


class CheckpointWatcher:
    """Polls $FORGE_OUT_DIR/checkpoints; each new complete file is uploaded, then registered.

    "Complete" means its size and mtime did not change between two polls (a writer that renames into
    place is complete at once, one that appends is not), or that the training process has exited.
    """

    def __init__(self, out_dir, run_id, poster):
        self.out_dir = out_dir
        self.dir = os.path.join(out_dir, "checkpoints")
        self.run_id = run_id
        self.poster = poster
        self._last_seen = {}  # relpath -> (size, mtime_ns) at the previous poll
        self._done = set()  # (relpath, size, mtime_ns) already handed to the poster
        self._stop = threading.Event()
        self._thread = None
        if poster.client.enabled:
            self._thread = threading.Thread(target=self._run, name="starforge-checkpoints", daemon=True)
            self._thread.start()

    def _scan(self):
        found = {}
        for dirpath, dirnames, filenames in os.walk(self.dir):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.startswith(".") or name.endswith(_INCOMPLETE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue  # renamed or removed between listing and stat
                rel = os.path.relpath(path, self.dir).replace(os.sep, "/")
                found[rel] = (st.st_size, st.st_mtime_ns)
        return found

    def poll(self, final=False):
        found = self._scan()
        # Numeric step order, so step-2 registers before step-10 whatever the padding.
        for rel in sorted(found, key=lambda r: (step_of(r) is None, step_of(r) or 0, r)):
            key = (rel,) + found[rel]
            if key in self._done:
                continue
            if final or self._last_seen.get(rel) == found[rel]:
                self._done.add(key)
                self.poster.submit(lambda rel=rel: self._upload_and_register(rel))
        self._last_seen = found

    def _upload_and_register(self, rel):
        client, deadline = self.poster.client, self.poster.deadline
        path = os.path.join(self.dir, rel)
        try:
            size = os.path.getsize(path)
            digest = sha256_file(path)
        except OSError as e:
            client._say("checkpoint %s vanished before upload: %s" % (rel, e))
            return
        art_path = "checkpoints/" + rel  # relative to FORGE_OUT_DIR, as a user would name it
        target = client.post(
            "/artifact/upload",
            {"run_id": self.run_id, "path": art_path, "size_bytes": size, "digest": digest},
            deadline,
        )
        uploaded = False
        if isinstance(target, dict) and target.get("url"):
            method = str(target.get("method", "PUT")).upper()
            if method != "PUT":
                client._say("checkpoint upload: unsupported method %r" % method)
            else:
                uploaded = client.put_file(target["url"], target.get("headers") or {}, path, size, deadline)
        reg = {"run_id": self.run_id, "kind": "checkpoint", "path": art_path, "size_bytes": size}
        step = step_of(rel)
        if step is not None:
            reg["step"] = step
        if uploaded:
            # The contract's digest means "these bytes were uploaded"; without an upload we say less.
            reg["digest"] = digest
        client.post("/artifact", reg, deadline)
        say("checkpoint %s (step %s, %d bytes) %s"
            % (art_path, step, size, "uploaded" if uploaded else "registered without upload"))

    def _run(self):
        while not self._stop.wait(POLL_INTERVAL_S):
            try:
                self.poll()
            except Exception as e:
                self.poster.client._say("checkpoint watcher: %s" % e)

    def close(self):
        """The training process has exited: whatever is there now is complete."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        try:
            self.poll(final=True)
        except Exception as e:
            self.poster.client._say("checkpoint watcher: %s" % e)


def lifecycle(run_id, rank, event, exit_code=None, reason=None, infra=False):
    body = {"run_id": run_id, "event": event, "ts": now_iso(), "rank": rank}
    if infra:
        body["infra"] = True
    if exit_code is not None:
        body["exit_code"] = exit_code
    if reason:
        body["reason"] = reason[:2000]
    return body
