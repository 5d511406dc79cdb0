#!/usr/bin/env python3
"""Build the Job Capsule: dist/capsule/{runner.pyz, bootstrap.sh, files.json}.

    python3 capsule/build.py [--out DIR]

The capsule is content-addressed (the control plane serves it from R2 by digest and every run records
the digest it ran), so the build is deterministic: the same sources give the same bytes on any machine
and any day. Hence fixed timestamps and permissions, sorted entries, and no compression (a zlib of
another version could deflate the same bytes differently). Prints files.json on stdout.
"""

import argparse
import hashlib
import io
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER_SRC = os.path.join(HERE, "runner")
SHEBANG = b"#!/usr/bin/env python3\n"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say
SHIPPED_SUFFIXES = (".py", ".txt")


def runner_sources():
    """(archive name, path) for every shipped file, sorted; caches and stray files stay out."""
    out = []
    for dirpath, dirnames, filenames in os.walk(RUNNER_SRC):
        dirnames[:] = [d for d in dirnames if d != "__pycache__" and not d.startswith(".")]
        for name in filenames:
            if name.endswith(SHIPPED_SUFFIXES) and not name.startswith("."):
                path = os.path.join(dirpath, name)
                out.append((os.path.relpath(path, RUNNER_SRC).replace(os.sep, "/"), path))
    return sorted(out)


def build_pyz():
    buf = io.BytesIO()
    buf.write(SHEBANG)
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for arcname, path in runner_sources():
            info = zipfile.ZipInfo(arcname, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3  # unix, whatever builds it
            info.external_attr = 0o644 << 16
            with open(path, "rb") as f:
                zf.writestr(info, f.read())
    return buf.getvalue()


def digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def write(path, data, mode):
    # A temp name of this process's own and an atomic rename: two builds at once (CI's lanes each build)
    # never hand a reader half a file.
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "dist", "capsule"))
    args = parser.parse_args(argv)
    if "__main__.py" not in dict(runner_sources()):
        raise SystemExit("capsule/runner/__main__.py is missing")
    os.makedirs(args.out, exist_ok=True)
    pyz = build_pyz()
    with open(os.path.join(HERE, "bootstrap.sh"), "rb") as f:
        bootstrap = f.read()
    write(os.path.join(args.out, "runner.pyz"), pyz, 0o755)
    write(os.path.join(args.out, "bootstrap.sh"), bootstrap, 0o755)
    files = {"bootstrap.sh": digest(bootstrap), "runner.pyz": digest(pyz)}
    listing = json.dumps(files, indent=2, sort_keys=True) + "\n"
    write(os.path.join(args.out, "files.json"), listing.encode(), 0o644)
    sys.stdout.write(json.dumps(files, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
