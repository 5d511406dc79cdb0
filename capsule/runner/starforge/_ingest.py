"""A small HTTP client for job-side ingest, shared by the runner and ``starforge.report``.

Standard library only (training images cannot pip-install anything). Every call retries transient
failures (network errors, 408, 429, 5xx) with capped exponential backoff until its deadline; a
permanent refusal (any other 4xx) is not retried, because sending the same bytes again cannot help.
Nothing here raises: callers get ``None`` (failure) or the decoded JSON answer.
"""

import datetime
import json
import random
import sys
import threading
import time
import urllib.error
import urllib.request

# One request never blocks longer than this; a hung connection is a transient failure like any other.
REQUEST_TIMEOUT_S = 15.0
BACKOFF_FIRST_S = 0.2
BACKOFF_MAX_S = 5.0
_RETRYABLE_STATUS = {408, 425, 429}
# 409 means the server already has what we sent (e.g. a duplicate artifact): done, not an error.
_ALREADY_DONE_STATUS = {409}


def now_iso():
    """UTC now as ISO-8601 with milliseconds and a Z, the shape the original client sends."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (now.microsecond // 1000)


def _error_message(body):
    """The message of our API's error body {"error": {"code", "message"}}, or None."""
    try:
        err = json.loads(body.decode("utf-8")).get("error") or {}
        return "%s: %s" % (err["code"], err["message"])
    except Exception:
        return None


class Deadline:
    """A point in monotonic time after which retries stop; ``None`` means "retry forever".

    It is mutable on purpose: a log batch that is being retried while training runs must keep trying
    forever, but once the child has exited the runner sets one shared drain deadline so that the
    retries already in flight give up in time.
    """

    def __init__(self, at=None):
        self.at = at
        self._wake = threading.Event()

    def set_in(self, seconds):
        self.at = time.monotonic() + max(0.0, seconds)
        self._wake.set()

    def expired(self):
        return self.at is not None and time.monotonic() >= self.at

    def sleep(self, seconds):
        """Sleep up to ``seconds``, waking early when the deadline is moved or reached."""
        if self.at is not None:
            seconds = min(seconds, max(0.0, self.at - time.monotonic()))
        self._wake.wait(seconds)
        self._wake.clear()


class IngestClient:
    def __init__(self, endpoint, token, run_id, log_prefix="starforge", say=None):
        self.endpoint = (endpoint or "").rstrip("/")
        self.token = token
        self.run_id = run_id
        self._prefix = log_prefix
        self._say_fn = say  # the runner passes its own, which keeps its output lines whole
        self._rng = random.Random()  # jitter only; never touches the training's global RNG
        self._warned = set()
        # The last permanent refusal: (path, HTTP status, the server's message), for callers that must
        # say why (the rendezvous puts it in the run's failure reason).
        self.last_refusal = None

    @property
    def enabled(self):
        return bool(self.endpoint and self.token and self.run_id)

    def _say(self, message):
        if self._say_fn is not None:
            self._say_fn(message)
            return
        try:
            sys.stderr.write("%s: %s\n" % (self._prefix, message))
            sys.stderr.flush()
        except Exception:
            pass

    def _warn(self, key, message):
        """One line per kind of trouble, so a dead server does not flood the training's stderr."""
        if key not in self._warned:
            self._warned.add(key)
            self._say(message)

    def _recovered(self, key):
        if key in self._warned:
            self._warned.discard(key)
            self._say("ingest %s is reachable again" % key)

    def _attempt(self, method, url, data, headers, deadline=None):
        """One HTTP request. Returns (status, body_bytes); status 0 means it never got an answer."""
        req = urllib.request.Request(url, data=data, method=method)
        for k, v in headers.items():
            req.add_header(k, v)
        timeout = REQUEST_TIMEOUT_S
        if deadline is not None and deadline.at is not None:
            # A server that accepts and never answers must not stretch the drain past its deadline.
            timeout = max(1.0, min(timeout, deadline.at - time.monotonic()))
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            try:
                body = e.read()
            except Exception:
                body = b""
            return e.code, body
        except Exception as e:  # connection refused, DNS, timeout, TLS, reset...
            return 0, str(e).encode("utf-8", "replace")

    def _with_retries(self, key, deadline, attempt):
        """Run ``attempt()`` → (status, body) until success, a permanent error or the deadline."""
        delay = BACKOFF_FIRST_S
        while True:
            status, body = attempt()
            if 200 <= status < 300 or status in _ALREADY_DONE_STATUS:
                self._recovered(key)
                return status, body
            retryable = status == 0 or status >= 500 or status in _RETRYABLE_STATUS
            detail = body[:200].decode("utf-8", "replace") if body else ""
            if not retryable:
                self._warn(key + ":%d" % status, "ingest %s refused (HTTP %d): %s" % (key, status, detail))
                self.last_refusal = (key, status, _error_message(body) or detail)
                return status, None
            why = "HTTP %d" % status if status else detail
            self._warn(key, "ingest %s failed (%s), retrying" % (key, why))
            if deadline is not None and deadline.expired():
                return status, None
            if deadline is not None:
                deadline.sleep(delay * (0.5 + self._rng.random()))
            else:
                time.sleep(delay * (0.5 + self._rng.random()))
            delay = min(delay * 2, BACKOFF_MAX_S)

    def post(self, path, body, deadline=None):
        """POST JSON to ``{endpoint}{path}``. Returns the decoded JSON answer ({} if empty) or None."""
        if not self.enabled:
            return None
        try:
            data = json.dumps(body, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as e:
            self._warn("encode" + path, "cannot encode %s payload: %s" % (path, e))
            return None
        headers = {
            "Content-Type": "application/json",
            "X-StarForge-Token": self.token,
            "User-Agent": "starforge-capsule/1",
        }
        url = self.endpoint + path
        status, answer = self._with_retries(
            path, deadline, lambda: self._attempt("POST", url, data, headers, deadline)
        )
        if answer is None:
            return None
        if not answer.strip():
            return {}
        try:
            return json.loads(answer.decode("utf-8"))
        except ValueError:
            return {}

    def get(self, path, deadline=None):
        """GET ``{endpoint}{path}`` with the run's token. Returns the decoded JSON answer or None."""
        if not self.enabled:
            return None
        headers = {"X-StarForge-Token": self.token, "User-Agent": "starforge-capsule/1"}
        url = self.endpoint + path
        status, answer = self._with_retries(path, deadline, lambda: self._attempt("GET", url, None, headers, deadline))
        if not answer:
            return None
        try:
            return json.loads(answer.decode("utf-8"))
        except ValueError:
            return None

    def put_file(self, url, headers, file_path, size, deadline=None):
        """PUT a file's bytes where /artifact/upload said. Streams from disk; True on success."""

        def attempt():
            try:
                f = open(file_path, "rb")
            except OSError as e:
                return 400, str(e).encode()  # the file vanished: permanent, retrying cannot help
            try:
                hdrs = dict(headers or {})
                hdrs["Content-Length"] = str(size)
                return self._attempt("PUT", url, f, hdrs, deadline)
            finally:
                f.close()

        status, answer = self._with_retries("PUT artifact", deadline, attempt)
        return answer is not None
