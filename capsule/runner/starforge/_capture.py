"""Terminal capture for ``starforge.report``: what the training prints to ``sys.stdout``/``sys.stderr``
still reaches the terminal, and a copy is kept to be shipped as ``POST /logs`` chunks (the original
client's behaviour). Inside the capsule the runner already ships the process's whole output, line by
line and exactly once, so there the capture is off (``SF_RUNNER_SHIPS_OUTPUT=1``) and nothing is sent
twice.
"""

import sys
import threading

CHUNK_CHARS = 8192  # the original client's chunks are at most 8 KiB
MAX_BUFFERED_CHARS = 16 * 1024 * 1024  # a dead server must not exhaust memory


class _Tee:
    """A text stream that writes through to ``target`` and copies into the capture's buffer."""

    def __init__(self, target, capture):
        self._target = target
        self._capture = capture

    def write(self, text):
        n = self._target.write(text)
        if isinstance(text, str):
            self._capture.add(text)
        return n

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):  # fileno, flush, isatty, encoding, buffer...
        return getattr(self._target, name)


class OutputCapture:
    def __init__(self):
        self._lock = threading.Lock()
        self._text = []
        self._size = 0
        self._held_back = False  # the last round kept a line without "\n" back
        self.dropped = 0
        self._saved = None

    def start(self):
        self._saved = (sys.stdout, sys.stderr)
        sys.stdout = _Tee(sys.stdout, self)
        sys.stderr = _Tee(sys.stderr, self)

    def stop(self):
        if self._saved is None:
            return
        # Only undo our own wrapping: a later replacement by the training stays in place.
        if isinstance(sys.stdout, _Tee) and sys.stdout._capture is self:
            sys.stdout = self._saved[0]
        if isinstance(sys.stderr, _Tee) and sys.stderr._capture is self:
            sys.stderr = self._saved[1]
        self._saved = None

    def add(self, text):
        with self._lock:
            if self._size + len(text) > MAX_BUFFERED_CHARS:
                self.dropped += len(text)
                return
            self._text.append(text)
            self._size += len(text)

    def take_chunks(self, final=False):
        """What was printed since the last call, as chunks of at most CHUNK_CHARS, cut after a newline
        where one is near. A trailing line without a newline waits one round for its end (unless
        ``final``), so a line printed in two writes usually travels in one chunk."""
        with self._lock:
            text = "".join(self._text)
            self._text, self._size = [], 0
            if not final and not self._held_back:
                cut = text.rfind("\n") + 1
                if cut < len(text):
                    self._text, self._size = [text[cut:]], len(text) - cut
                    text = text[:cut]
                    self._held_back = True
            else:
                self._held_back = False
        chunks = []
        while text:
            if len(text) <= CHUNK_CHARS:
                chunks.append(text)
                break
            at = text.rfind("\n", 0, CHUNK_CHARS) + 1 or CHUNK_CHARS
            chunks.append(text[:at])
            text = text[at:]
        return chunks
