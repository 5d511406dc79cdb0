#!/usr/bin/env bash
# StarForge Job Capsule bootstrap: the container's entrypoint (`bash .starforge/capsule/bootstrap.sh`).
#
# Checks, in this order, and runs nothing unless all pass:
#   1. capsule.json is there and readable                       else exit 68 BAD_MANIFEST
#   2. a python3 (or python) new enough for the manifest        else exit 66 NO_PYTHON
#   3. capsule.json parses and is of our version                else exit 68 BAD_MANIFEST
#   4. every file it lists has its sha256, using the image's own tools (sha256sum, else shasum,
#      else Python's hashlib)                                   else exit 65 DIGEST_MISMATCH
# then execs `python3 runner.pyz run`, which checks again and runs the training.
#
# Only bash builtins besides the hashing tool and Python: images are minimal, and a missing `cut` or
# `awk` must not be mistaken for a broken workspace.
set -u

RUN_ROOT="${FORGE_RUN_ROOT:-/sf}"
CAPSULE_DIR="$RUN_ROOT/.starforge/capsule"
MANIFEST="$CAPSULE_DIR/capsule.json"
# The oldest Python the runner is written for (sfrunner/codes.py MIN_PYTHON); a manifest asking for
# less still gets at least this.
RUNNER_MIN_PYTHON="3.8"

die() { # die CODE NAME MESSAGE
  printf 'starforge-bootstrap: %s: %s\n' "$2" "$3" >&2
  exit "$1"
}

# version_ge A B: is dotted version A >= B? (numeric per component; '11rc1' counts as 11)
version_ge() {
  local a="$1." b="$2." x y i
  for i in 1 2 3; do
    x="${a%%.*}"; a="${a#*.}"; x="${x%%[!0-9]*}"; x=$((10#${x:-0}))
    y="${b%%.*}"; b="${b#*.}"; y="${y%%[!0-9]*}"; y=$((10#${y:-0}))
    if ((x > y)); then return 0; fi
    if ((x < y)); then return 1; fi
  done
  return 0
}

# --- 1. the manifest is there -------------------------------------------------------------------
if [[ ! -f "$MANIFEST" || ! -r "$MANIFEST" ]]; then
  die 68 BAD_MANIFEST "cannot read $MANIFEST (is FORGE_RUN_ROOT=$RUN_ROOT the run directory?)"
fi

# --- 2. find the interpreters -------------------------------------------------------------------
# Python 2 may answer to `python`: the probe is valid Python 2 and 3, so it reports a version either way.
PROBE='import sys; sys.stdout.write("%d.%d.%d" % tuple(sys.version_info[:3]))'
declare -a PY_PATHS=() PY_VERSIONS=()
for name in python3 python; do
  path="$(command -v "$name" 2>/dev/null)" || continue
  version="$("$path" -c "$PROBE" 2>/dev/null)" || continue
  PY_PATHS+=("$path")
  PY_VERSIONS+=("$version")
done
if ((${#PY_PATHS[@]} == 0)); then
  die 66 NO_PYTHON "no python3 or python on PATH (${PATH:-}); the image needs Python >= $RUNNER_MIN_PYTHON"
fi
found=""
PARSER=""
for i in "${!PY_PATHS[@]}"; do
  found+="${found:+, }Python ${PY_VERSIONS[i]} at ${PY_PATHS[i]}"
  if [[ -z "$PARSER" ]] && version_ge "${PY_VERSIONS[i]}" 3; then PARSER="${PY_PATHS[i]}"; fi
done
if [[ -z "$PARSER" ]]; then
  die 66 NO_PYTHON "Python >= $RUNNER_MIN_PYTHON is required; found only $found"
fi

# --- 3. read the manifest -----------------------------------------------------------------------
# Prints requires.python, then one "<hex>\t<path>" line per file in manifest order. Paths that could
# escape the run directory, or that a line-based reader would misread, make the manifest bad.
READ_MANIFEST='
import json, re, sys
def bad(msg):
    sys.stderr.write(msg)
    sys.exit(3)
try:
    with open(sys.argv[1], "rb") as f:
        m = json.loads(f.read().decode("utf-8"))
except Exception as e:
    bad("capsule.json is not valid JSON: %s" % e)
if not isinstance(m, dict):
    bad("capsule.json is not a JSON object")
if m.get("capsule_version") != 1:
    bad("capsule_version is %r; this bootstrap speaks 1" % (m.get("capsule_version"),))
req = m.get("requires")
py = req.get("python", "3.8") if isinstance(req, dict) else None
if not isinstance(py, str) or not re.match(r"^[0-9]+(\.[0-9]+)*$", py):
    bad("requires.python must be a version like 3.8, got %r" % (py,))
files = m.get("files")
if not isinstance(files, dict) or not files:
    bad("files must be a non-empty object of path -> sha256 digest")
for name in ("bootstrap.sh", "runner.pyz"):
    if ".starforge/capsule/" + name not in files:
        bad("files must list .starforge/capsule/" + name)
out = [py]
for p, d in files.items():
    parts = p.split("/")
    if not p or p.startswith("/") or ".." in parts or "" in parts[:-1] or re.search(r"[\x00-\x1f]", p):
        bad("files: %r is not a safe path inside the run directory" % (p,))
    if not isinstance(d, str) or not re.match(r"^sha256:[0-9a-f]{64}$", d):
        bad("files[%r] must be sha256:<64 lowercase hex>, got %r" % (p, d))
    out.append(d[7:] + "\t" + p)
sys.stdout.write("\n".join(out) + "\n")
'
if ! listing="$("$PARSER" -c "$READ_MANIFEST" "$MANIFEST" 2>&1)"; then
  die 68 BAD_MANIFEST "$MANIFEST: $listing"
fi
REQUIRED_PYTHON="${listing%%$'\n'*}"
FILE_LINES="${listing#*$'\n'}"

# --- 2b. pick the interpreter the manifest needs ------------------------------------------------
need="$REQUIRED_PYTHON"
version_ge "$need" "$RUNNER_MIN_PYTHON" || need="$RUNNER_MIN_PYTHON"
PY=""
for i in "${!PY_PATHS[@]}"; do
  if version_ge "${PY_VERSIONS[i]}" "$need"; then PY="${PY_PATHS[i]}"; break; fi
done
if [[ -z "$PY" ]]; then
  die 66 NO_PYTHON "Python >= $need is required (manifest requires.python=$REQUIRED_PYTHON); found $found"
fi

# --- 4. digests ---------------------------------------------------------------------------------
if command -v sha256sum >/dev/null 2>&1; then
  HASHER=sha256sum
elif command -v shasum >/dev/null 2>&1; then
  HASHER=shasum
else
  HASHER=python
fi
HASH_PY='
import hashlib, sys
h = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
sys.stdout.write(h.hexdigest() + "  " + sys.argv[1] + "\n")
'
hash_of() { # prints the hex sha256 of file $1; fails if the tool does
  local line
  case "$HASHER" in
    sha256sum) line="$(sha256sum -- "$1")" || return 1 ;;
    shasum) line="$(shasum -a 256 -- "$1")" || return 1 ;;
    *) line="$("$PY" -c "$HASH_PY" "$1")" || return 1 ;;
  esac
  line="${line#\\}" # GNU tools prefix the line with \ when the file name needs escaping
  printf '%s' "${line%% *}"
}

# A plain loop over the lines (no here-string: older bash writes those to a temp file, and /tmp may be
# read-only in a locked-down container).
rest="$FILE_LINES"$'\n'
while [[ "$rest" == *$'\n'* ]]; do
  line="${rest%%$'\n'*}"
  rest="${rest#*$'\n'}"
  [[ -n "$line" ]] || continue
  expected="${line%%$'\t'*}"
  rel="${line#*$'\t'}"
  file="$RUN_ROOT/$rel"
  if [[ ! -f "$file" ]]; then
    die 65 DIGEST_MISMATCH "$rel: missing (expected sha256:$expected)"
  fi
  if ! actual="$(hash_of "$file")" || [[ -z "$actual" ]]; then
    die 65 DIGEST_MISMATCH "$rel: unreadable ($HASHER failed)"
  fi
  if [[ "$actual" != "$expected" ]]; then
    die 65 DIGEST_MISMATCH "$rel: expected sha256:$expected, found sha256:$actual"
  fi
done

# --- run ----------------------------------------------------------------------------------------
export FORGE_RUN_ROOT="$RUN_ROOT"
exec "$PY" "$CAPSULE_DIR/runner.pyz" run
