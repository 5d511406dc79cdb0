"""Ship the training process's output to POST {endpoint}/logs, line by line, exactly once.

Each (rank, stream) has its own sequence: ``seq`` is the index of ``chunks[0]`` among all lines that
stream produced, starting at 0. A batch is removed from the queue only after the server accepted it,
and a retry re-sends the very same lines with the same seq, so the server can drop duplicates and a
reader sees every line once, in order, with no gaps.
"""

import threading

FLUSH_INTERVAL_S = 0.5  # lines reach readers within a second; half of it leaves room for a slow POST
MAX_LINES_PER_BATCH = 500  # contract MAX_LOG_CHUNKS is 1000
MAX_BYTES_PER_BATCH = 512 * 1024
# contract MAX_LOG_LINE is 16 KiB of UTF-16 code units: 8192 code points can never exceed that.
MAX_CHARS_PER_CHUNK = 8192
# A dead server must not exhaust memory: past this many unsent lines per stream the newest are dropped
# (the gap stays visible to readers as a jump in seq).
MAX_QUEUED_LINES = 200000
STREAMS = ("stdout", "stderr")


def split_line(line):
    """A long line becomes several chunks rather than being truncated: nothing the job prints is lost."""
    if len(line) <= MAX_CHARS_PER_CHUNK:
        return [line]
    return [line[i : i + MAX_CHARS_PER_CHUNK] for i in range(0, len(line), MAX_CHARS_PER_CHUNK)]


class LogShipper:
    def __init__(self, client, run_id, rank, deadline):
        self.client = client
        self.run_id = run_id
        self.rank = rank
        self.deadline = deadline
        self._cond = threading.Condition()
        self._pending = {s: [] for s in STREAMS}  # (seq, chunk), oldest first
        self._next_seq = {s: 0 for s in STREAMS}  # seq of the next line the stream produces
        self._dropped = {s: 0 for s in STREAMS}
        self._closing = False
        self._thread = None
        if client.enabled:
            self._thread = threading.Thread(target=self._run, name="starforge-logs", daemon=True)
            self._thread.start()

    def add(self, stream, line):
        if self._thread is None:
            return
        with self._cond:
            pending = self._pending[stream]
            for chunk in split_line(line):
                seq = self._next_seq[stream]
                self._next_seq[stream] = seq + 1
                if len(pending) >= MAX_QUEUED_LINES:
                    # The dropped line keeps its seq number, so readers see an honest gap, not a lie.
                    self._dropped[stream] += 1
                    continue
                pending.append((seq, chunk))
            if len(pending) >= MAX_LINES_PER_BATCH:
                self._cond.notify()

    def _take(self, stream):
        """The front of a stream's queue as one contiguous batch (removed only once accepted).

        Returns (seq of the first chunk, chunks, whether this batch empties the queue)."""
        with self._cond:
            pending = self._pending[stream]
            if not pending:
                return self._next_seq[stream], [], True
            first = pending[0][0]
            chunks, size = [], 0
            for seq, chunk in pending[:MAX_LINES_PER_BATCH]:
                size += len(chunk) * 2 + 8
                if seq != first + len(chunks) or (chunks and size > MAX_BYTES_PER_BATCH):
                    break
                chunks.append(chunk)
            return first, chunks, len(chunks) == len(pending)

    def _flush_stream(self, stream, final):
        """Send everything queued for a stream; with ``final``, the last batch carries eof=true.
        Returns False when the deadline ran out first."""
        while True:
            seq, chunks, last = self._take(stream)
            if not chunks and not final:
                return True
            body = {"run_id": self.run_id, "chunks": chunks, "seq": seq, "rank": self.rank, "stream": stream}
            if final and last:
                body["eof"] = True
            if self.client.post("/logs", body, self.deadline) is None and self.deadline.expired():
                return False
            # Accepted, or refused for good (a 4xx): either way these lines are done; looping on a
            # refusal would block every later line behind it.
            with self._cond:
                del self._pending[stream][: len(chunks)]
            if last and (final or not chunks):
                return True

    def _run(self):
        while True:
            with self._cond:
                if not self._closing:
                    self._cond.wait(FLUSH_INTERVAL_S)
                if self._closing:
                    return
            for stream in STREAMS:
                try:
                    self._flush_stream(stream, final=False)
                except Exception:
                    pass  # never let a surprise kill the shipper; the next round retries

    def close(self):
        """Stop the background thread and send what is left, eof included, until the deadline
        (which the caller has set: a batch being retried right now gives up at that deadline)."""
        if self._thread is None:
            return
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join()
        for stream in STREAMS:
            try:
                self._flush_stream(stream, final=True)
            except Exception:
                pass
        lost = {s: len(self._pending[s]) + self._dropped[s] for s in STREAMS}
        if any(lost.values()):
            self.client._say(
                "log lines not delivered: stdout %d, stderr %d" % (lost["stdout"], lost["stderr"])
            )
