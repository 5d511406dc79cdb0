"""capsule.json: load and validate (the Python mirror of contract/capsule.schema.ts CapsuleManifest).

The runner checks the shape itself instead of trusting it, because a manifest it misreads could make it
run the wrong thing, and "no silent fallback" is the platform's promise.
"""

import json
import re

from sfrunner.codes import BAD_MANIFEST, CapsuleError

CAPSULE_VERSION = 1
DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)*$")


def _bad(message):
    raise CapsuleError(BAD_MANIFEST, message)


def safe_relpath(path, what):
    """A path relative to the run directory that cannot escape it (no absolute path, no '..')."""
    if not isinstance(path, str) or not path or "\x00" in path or "\n" in path or "\t" in path:
        _bad("%s must be a non-empty relative path, got %r" % (what, path))
    parts = path.split("/")
    if path.startswith("/") or ".." in parts or "" in parts[:-1]:
        _bad("%s must stay inside the run directory, got %r" % (what, path))
    return path


def _obj(m, key, where):
    v = m.get(key)
    if not isinstance(v, dict):
        _bad("%s.%s must be an object" % (where, key))
    return v


def _str(m, key, where):
    v = m.get(key)
    if not isinstance(v, str) or not v:
        _bad("%s.%s must be a non-empty string" % (where, key))
    return v


def _int(m, key, where, minimum):
    v = m.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        _bad("%s.%s must be an integer >= %d" % (where, key, minimum))
    return v


def parse_version(text):
    """'3.11.2' or '1.13.0a0+cpu' -> (3, 11, 2) / (1, 13, 0): the leading numeric dotted part."""
    out = []
    for piece in str(text).split("."):
        digits = re.match(r"[0-9]*", piece).group(0)
        if not digits:
            break
        out.append(int(digits))
        if len(digits) != len(piece):  # '0a0', '1+cpu': the numeric part ends inside this piece
            break
    return tuple(out)


def load(path):
    """Read and validate capsule.json; raises CapsuleError(BAD_MANIFEST) with the reason."""
    try:
        with open(path, "rb") as f:
            m = json.loads(f.read().decode("utf-8"))
    except OSError as e:
        _bad("cannot read %s: %s" % (path, e.strerror or e))
    except ValueError as e:
        _bad("%s is not valid JSON: %s" % (path, e))
    if not isinstance(m, dict):
        _bad("capsule.json must be a JSON object")
    if m.get("capsule_version") != CAPSULE_VERSION:
        _bad("capsule_version is %r; this runner speaks %d" % (m.get("capsule_version"), CAPSULE_VERSION))
    for key in ("run_id", "job_id"):
        _str(m, key, "capsule")
    _int(m, "attempt", "capsule", 1)
    _int(m, "rank", "capsule", 0)
    _int(m, "world_size", "capsule", 1)

    recipe = _obj(m, "recipe", "capsule")
    _str(recipe, "name", "recipe")
    _str(recipe, "version", "recipe")
    ep = _obj(recipe, "entrypoint", "recipe")
    if ep.get("kind") == "script":
        safe_relpath(_str(ep, "path", "recipe.entrypoint"), "recipe.entrypoint.path")
    elif ep.get("kind") == "python":
        module = _str(ep, "module", "recipe.entrypoint")
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$", module):
            _bad("recipe.entrypoint.module %r is not a Python module name" % module)
    else:
        _bad("recipe.entrypoint.kind must be 'script' or 'python', got %r" % ep.get("kind"))

    requires = _obj(m, "requires", "capsule")
    requires.setdefault("python", "3.8")
    if not isinstance(requires["python"], str) or not VERSION_RE.match(requires["python"]):
        _bad("requires.python must be a version like '3.8', got %r" % requires["python"])
    fw = _obj(requires, "framework", "requires")
    for key in ("kind", "version", "runtime_id"):
        _str(fw, key, "requires.framework")

    hp = _obj(m, "hyperparams", "capsule")
    for k, v in hp.items():
        if not isinstance(v, (str, int, float, bool)):
            _bad("hyperparams.%s must be a string, number or boolean" % k)

    exp = m.get("experiment_dir")
    if not isinstance(exp, str):
        _bad("capsule.experiment_dir must be a string")
    if exp not in ("", "."):  # "" / ".": the experiment is the workspace root
        safe_relpath(exp, "experiment_dir")
    files = _obj(m, "files", "capsule")
    for p, d in files.items():
        safe_relpath(p, "files key")
        if not isinstance(d, str) or not DIGEST_RE.match(d):
            _bad("files[%r] must be sha256:<64 hex>, got %r" % (p, d))
    for name in ("bootstrap.sh", "runner.pyz"):
        if ".starforge/capsule/" + name not in files:
            _bad("files must list .starforge/capsule/%s" % name)

    ingest = _obj(m, "ingest", "capsule")
    _str(ingest, "endpoint", "ingest")
    return m
