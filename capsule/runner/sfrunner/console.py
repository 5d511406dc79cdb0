"""The runner's own terminal output. Child lines are echoed as raw bytes and runner messages as text,
from several threads: one lock keeps every line whole, so `docker logs` stays readable."""

import sys
import threading

_lock = threading.Lock()
PREFIX = "starforge-runner"


def echo(stream, raw):
    """Write one line the child printed to our own stdout/stderr, unchanged."""
    out = sys.stdout if stream == "stdout" else sys.stderr
    with _lock:
        try:
            out.buffer.write(raw)
            out.buffer.flush()
        except (OSError, ValueError):
            pass  # our own stdout closed: the training must go on regardless


def say(message):
    """A runner message on stderr (never shipped as the job's log lines)."""
    with _lock:
        try:
            sys.stderr.write("%s: %s\n" % (PREFIX, message))
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
