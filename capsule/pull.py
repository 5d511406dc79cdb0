"""Pull mode: build a run directory on a node that cannot see its agent's disk (a Slurm step without a
shared directory, a Kubernetes pod), from the control plane, with the run's own token.

    python3 pull.py ROOT RANK PLAN_JSON

PLAN_JSON (written by the agent, one line):
    {"endpoint": "<ingest endpoint>",
     "files": [{"path": "workspace/train.sh", "digest": "sha256:…", "mode": 493, "from": "blob"},
               {"path": "resume/step-1.json", "digest": "sha256:…", "mode": 420,
                "from": "checkpoint", "run": "run_…", "artifact": "checkpoints/step-1.json"}],
     "ranks": {"0": {"token": "<run token>",
                     "inline": [{"path": ".starforge/env.sh", "content": "…", "mode": 384}]}}}

Every file is fetched by digest (GET <endpoint>/blobs/<digest>, or <endpoint>/checkpoint for a
checkpoint of an earlier run), hashed while it is written, and kept only when the digest matches; then
bootstrap.sh checks every digest again, as on any runtime. A network failure or a 5xx is retried with
backoff; a refusal, a missing blob or a wrong digest ends with exit 65 (nothing runs); a path that would
leave ROOT or a bad plan with 68. Standard library only (training images have Python, nothing else).
"""
import hashlib
import json
import os
import shutil
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

INPUT_MISSING = 65
BAD_MANIFEST = 68
ATTEMPTS = 6
CHUNK = 1 << 20


class PullError(Exception):
    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code


def say(message):
    sys.stderr.write("starforge pull: %s\n" % message)
    sys.stderr.flush()


def inside(root, rel):
    """The absolute path of `rel` under `root`; refuses anything that would leave it."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel:
        raise PullError(BAD_MANIFEST, "unsafe path %r in the pull plan" % (rel,))
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise PullError(BAD_MANIFEST, "unsafe path %r in the pull plan" % (rel,))
    return os.path.join(root, *parts)


def source_url(endpoint, f):
    if f.get("from") == "checkpoint":
        query = urllib.parse.urlencode({"run": f["run"], "path": f["artifact"]})
        return "%s/checkpoint?%s" % (endpoint, query)
    return "%s/blobs/%s" % (endpoint, f["digest"])


def fetch(url, token, dest, digest):
    """Streams `url` to `dest`, hashing it; retried on network errors and 5xx, final on anything else."""
    tmp = dest + ".part"
    for attempt in range(ATTEMPTS):
        try:
            req = urllib.request.Request(url, headers={"X-StarForge-Token": token})
            h = hashlib.sha256()
            with urllib.request.urlopen(req, timeout=60) as res, open(tmp, "wb") as out:
                while True:
                    chunk = res.read(CHUNK)
                    if not chunk:
                        break
                    h.update(chunk)
                    out.write(chunk)
            got = "sha256:" + h.hexdigest()
            if got != digest:
                os.unlink(tmp)
                raise PullError(INPUT_MISSING, "%s: digest mismatch (expected %s, got %s); nothing runs"
                                % (os.path.basename(dest), digest, got))
            os.replace(tmp, dest)
            return
        except urllib.error.HTTPError as e:
            if e.code < 500:
                detail = e.read(500).decode("utf-8", "replace")
                raise PullError(INPUT_MISSING, "the control plane refused %s: HTTP %d %s; nothing runs"
                                % (url.split("?")[0], e.code, detail))
            why = "HTTP %d" % e.code
        except (urllib.error.URLError, OSError) as e:
            why = str(getattr(e, "reason", e))
        if attempt + 1 < ATTEMPTS:
            delay = min(2 ** attempt, 15)
            say("fetching %s failed (%s); again in %d s" % (url.split("?")[0], why, delay))
            time.sleep(delay)
    raise PullError(INPUT_MISSING, "cannot fetch %s after %d tries; nothing runs" % (url.split("?")[0], ATTEMPTS))


def pull(root, rank, plan):
    try:
        endpoint = plan["endpoint"].rstrip("/")
        mine = plan["ranks"][str(rank)]
        token = mine["token"]
        files = plan["files"]
    except (KeyError, TypeError, AttributeError) as e:
        raise PullError(BAD_MANIFEST, "the pull plan has no %s for rank %s" % (e, rank))
    fetched = {}
    for f in files:
        dest = inside(root, f["path"])
        parent = os.path.dirname(dest)
        if not os.path.isdir(parent):
            os.makedirs(parent)
        if f["digest"] in fetched:
            shutil.copyfile(fetched[f["digest"]], dest)  # the same bytes under another name
        else:
            fetch(source_url(endpoint, f), token, dest, f["digest"])
            fetched[f["digest"]] = dest
        os.chmod(dest, int(f.get("mode", 0o644)) & 0o777)
    for f in mine.get("inline", []):
        dest = inside(root, f["path"])
        parent = os.path.dirname(dest)
        if not os.path.isdir(parent):
            os.makedirs(parent)
        with open(dest, "w") as out:
            out.write(f["content"])
        os.chmod(dest, int(f.get("mode", 0o644)) & 0o777)
    for d in ("out", "workspace"):
        if not os.path.isdir(os.path.join(root, d)):
            os.makedirs(os.path.join(root, d))
    return len(files)


def main(argv):
    if len(argv) != 4:
        say("usage: pull.py ROOT RANK PLAN_JSON")
        return BAD_MANIFEST
    root, rank, plan_file = argv[1], argv[2], argv[3]
    try:
        with open(plan_file) as fh:
            plan = json.load(fh)
        if not os.path.isdir(root):
            os.makedirs(root)
        n = pull(root, rank, plan)
    except PullError as e:
        say(str(e))
        return e.code
    except (OSError, ValueError) as e:
        say("the pull plan cannot be used: %s" % e)
        return BAD_MANIFEST
    say("rank %s: %d file(s) fetched and verified into %s" % (rank, n, root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
