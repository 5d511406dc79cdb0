"""A stand-in for the original StarForge platform's job-side client, written from its public behaviour
(the facts in issue 9), for the compatibility tests. It is deliberately *not* our starforge.report: it
speaks exactly the original wire format, so our ingest is tested against what existing training code
sends, not against what our own client happens to send.

What it does, as the original does:
* reads STARFORGE_ENDPOINT, STARFORGE_RUN_ID, STARFORGE_TOKEN; sends X-StarForge-Token; posts JSON to
  paths relative to the endpoint (json.dumps defaults: NaN goes out as the bare token NaN);
* queues everything and flushes from a background thread every STARFORGE_FLUSH_INTERVAL (1.5 s), at
  most 256 points or chunks per batch;
* re-queues a failed batch at the front and retries it forever, 4xx included;
* /logs: chunks of up to 8 KiB of terminal text with embedded newlines, no seq, no stream, eof at close;
* /hardware points {key, value, node_id, worker_id, gpu_idx, gpu_uuid?, ts} (node_id None outside Ray,
  gpu_idx None for host keys); /artifact by absolute path; /environment, /environment/nodes,
  /validation chunks.

Standard library only. `python3 original_client.py` is not a program; import it.
"""

import datetime
import json
import os
import threading
import time
import urllib.error
import urllib.request

MAX_BATCH = 256
CHUNK = 8192


def iso_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


class OriginalClient:
    def __init__(self):
        self.endpoint = os.environ["STARFORGE_ENDPOINT"].rstrip("/")
        self.run_id = os.environ["STARFORGE_RUN_ID"]
        self.token = os.environ["STARFORGE_TOKEN"]
        self.interval = float(os.environ.get("STARFORGE_FLUSH_INTERVAL", "1.5"))
        self.queue = []  # (path, batch_key or None, payload); batched kinds: items under batch_key
        self.cond = threading.Condition()
        self.closing = False
        self.attempts = []  # (path, status) of every request, for the test's own log
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    # -- what training code calls -------------------------------------------------------------------

    def metric(self, key, step, value):
        self._put("/metrics", "points", {"key": key, "step": step, "value": value, "ts": iso_now()})

    def hardware(self, key, value, worker_id, gpu_idx=None, gpu_uuid=None, ts=None):
        point = {"key": key, "value": value, "node_id": None, "worker_id": worker_id, "gpu_idx": gpu_idx,
                 "ts": ts or iso_now()}
        if gpu_uuid is not None:
            point["gpu_uuid"] = gpu_uuid
        self._put("/hardware", "points", point)

    def terminal_text(self, text):
        """Terminal output as the original ships it: 8 KiB pieces, cut wherever 8 KiB ends."""
        for i in range(0, len(text), CHUNK):
            self._put("/logs", "chunks", text[i:i + CHUNK])

    def hparams(self, params):
        self._put("/hparams", None, {"run_id": self.run_id, "params": params})

    def environment(self, probe):
        self._put("/environment", None, dict(probe, run_id=self.run_id))

    def nodes(self, nodes):
        self._put("/environment/nodes", None, {"run_id": self.run_id, "nodes": nodes})

    def artifact(self, kind, path, step=None, size_bytes=None, metrics=None):
        self._put("/artifact", None, {"run_id": self.run_id, "kind": kind, "path": path, "step": step,
                                      "size_bytes": size_bytes, "metrics": metrics})

    def validation(self, step, samples, per_chunk, avg_reward=None, dist=None):
        total = (len(samples) + per_chunk - 1) // per_chunk
        for i in range(total):
            body = {"run_id": self.run_id, "step": step, "chunk_index": i, "total_chunks": total,
                    "total_samples": len(samples), "samples": samples[i * per_chunk:(i + 1) * per_chunk]}
            if i == total - 1:
                body["avg_reward"] = avg_reward
                body["dist"] = dist
            self._put("/validation", None, body)

    def close(self):
        """Flush everything (retrying forever), then say eof on the log stream."""
        self._put("/logs", "chunks", None)  # the eof marker
        with self.cond:
            self.closing = True
            self.cond.notify()
        self.thread.join()

    # -- the flusher ----------------------------------------------------------------------------------

    def _put(self, path, key, payload):
        with self.cond:
            self.queue.append((path, key, payload))

    def _take(self):
        """The front of the queue as one request: one body, or up to 256 items of one batched path."""
        with self.cond:
            if not self.queue:
                return None
            path, key, first = self.queue[0]
            if key is None:
                return path, first, 1
            items, n, eof = [], 0, False
            for p, _, payload in self.queue:
                if p != path or len(items) >= MAX_BATCH:
                    break
                n += 1
                if payload is None:
                    eof = True
                    break
                items.append(payload)
            body = {"run_id": self.run_id, key: items}
            if eof:
                body["eof"] = True
            return path, body, n

    def _post(self, path, body):
        data = json.dumps(body).encode("utf-8")  # allow_nan=True, as json.dumps defaults to
        req = urllib.request.Request(self.endpoint + path, data=data, method="POST")
        req.add_header("Content-Type", "application/json")
        req.add_header("X-StarForge-Token", self.token)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                self.attempts.append((path, resp.status))
                return 200 <= resp.status < 300
        except urllib.error.HTTPError as e:
            self.attempts.append((path, e.code))
            return False
        except Exception:
            self.attempts.append((path, 0))
            return False

    def _flush(self):
        while True:
            taken = self._take()
            if taken is None:
                return
            path, body, n = taken
            while not self._post(path, body):  # the batch stays at the front and is retried forever
                time.sleep(0.2)
            with self.cond:
                del self.queue[:n]

    def _loop(self):
        while True:
            with self.cond:
                if not self.closing:
                    self.cond.wait(self.interval)
                closing = self.closing
            self._flush()
            if closing:
                return
