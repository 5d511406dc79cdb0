"""The job's secrets masked in what the training prints, before the runner echoes a line (into
`docker logs`, a Slurm output file, the process runtime's log) or ships it. The agent names the
secrets in SF_SECRET_NAMES (names only; the values are already in the environment). The control
plane masks shipped lines again before storing them; this keeps the node's own copies clean too.
Same rule as the control plane: each value, and each line of a multi-line value, of 8+ characters."""

import os

MASK = b"***"
MIN_CHARS = 8


def needles(environ=None):
    env = os.environ if environ is None else environ
    found = set()
    for name in env.get("SF_SECRET_NAMES", "").split(","):
        value = env.get(name.strip()) if name.strip() else None
        if not value:
            continue
        if len(value) >= MIN_CHARS:
            found.add(value.encode("utf-8", "surrogateescape"))
        for line in value.splitlines():
            line = line.strip()
            if len(line) >= MIN_CHARS:
                found.add(line.encode("utf-8", "surrogateescape"))
    return sorted(found, key=len, reverse=True)


def mask(raw, patterns):
    for p in patterns:
        if p in raw:
            raw = raw.replace(p, MASK)
    return raw
