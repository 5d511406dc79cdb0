"""What the runner checks before it runs anything: file digests and the recipe's capabilities.

bootstrap.sh already checked the digests with the image's own tools; the runner checks again because
it is the last thing between a tampered or half-synced workspace and a GPU job, and because it may be
started without bootstrap.sh (e.g. by hand while debugging an image).
"""

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys

from sfrunner.codes import CAPABILITY_MISSING, DIGEST_MISMATCH, CapsuleError
from sfrunner.manifest import parse_version


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


def verify_files(root, files):
    """Check every listed file in manifest order; raise on the first missing or mismatching one."""
    for rel, expected in files.items():
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            raise CapsuleError(DIGEST_MISMATCH, "%s: missing (expected %s)" % (rel, expected))
        try:
            actual = sha256_file(path)
        except OSError as e:
            raise CapsuleError(DIGEST_MISMATCH, "%s: unreadable (%s)" % (rel, e.strerror or e))
        if actual != expected:
            raise CapsuleError(DIGEST_MISMATCH, "%s: expected %s, found %s" % (rel, expected, actual))


def _fmt(version_tuple):
    return ".".join(str(x) for x in version_tuple)


def _missing(message):
    raise CapsuleError(CAPABILITY_MISSING, message)


def check_python(required):
    have = tuple(sys.version_info[:3])
    if have < parse_version(required):
        _missing("Python >= %s is required; found Python %s at %s" % (required, _fmt(have), sys.executable))


def _torch_version():
    """Ask a separate interpreter: importing torch into the runner would cost memory for the whole
    run, and a broken torch install can crash the process that imports it."""
    code = "import torch, sys; sys.stdout.write(str(torch.__version__))"
    try:
        out = subprocess.run(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=300,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if out.returncode != 0:
        err = out.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, err[-1] if err else "exit code %d" % out.returncode
    return out.stdout.decode("utf-8", "replace").strip(), None


def check_framework(framework):
    """requires.framework: python -> interpreter version; custom -> bash; torch -> importable torch."""
    kind, version = framework["kind"], framework["version"]
    if kind == "python":
        check_python(version)
    elif kind == "custom":
        if shutil.which("bash") is None:
            _missing("framework 'custom' runs train.sh with bash, but there is no bash on PATH")
    elif kind == "torch":
        found, err = _torch_version()
        if found is None:
            _missing("framework torch >= %s is required, but `import torch` failed with %s: %s"
                     % (version, sys.executable, err))
        if parse_version(found) < parse_version(version):
            _missing("framework torch >= %s is required; found torch %s" % (version, found))
    else:
        _missing("framework kind %r is not one this runner can check (python, custom, torch)" % kind)


def check_module(module):
    """A python entrypoint's module must be shipped in runner.pyz (recipes live there)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        _missing("recipe module %r is not in this runner (runner.pyz)" % module)
