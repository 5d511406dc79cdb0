"""What the built-in recipes (charlm, tinylm) share: the corpus, CLI parsing, checkpoint files, stops.

Conventions every recipe keeps, so the runner and the control plane can rely on them:
* typed hyperparameters arrive as ``--key=value`` (unknown keys are an error, never ignored);
* checkpoints go to ``$FORGE_OUT_DIR/checkpoints/step-%06d.<ext>``, written to a temp name and renamed,
  so a reader (the runner's watcher) never sees half a file;
* ``SF_RESUME_FROM`` names a checkpoint to continue from, step counter included;
* SIGTERM means "stop soon": finish the current step, checkpoint, exit 143.
"""

import argparse
import os
import pkgutil
import signal

STOP_EXIT = 128 + signal.SIGTERM


def corpus_text():
    """The shipped public-domain corpus, lowercased with whitespace collapsed (a smaller vocabulary
    learns faster, which keeps the default run short on one CPU core)."""
    raw = pkgutil.get_data("charlm", "corpus.txt").decode("utf-8")
    return " ".join(raw.lower().split())


def parse_params(prog, params, argv):
    """params: name -> (type, default, help). Booleans accept true/false like the CLI renders them."""
    parser = argparse.ArgumentParser(prog=prog, allow_abbrev=False)
    for name, (typ, default, doc) in params.items():
        parser.add_argument("--" + name, type=typ, default=default, help="%s (default %s)" % (doc, default))
    return vars(parser.parse_args(argv))


def out_dir():
    return os.environ.get("FORGE_OUT_DIR") or os.path.join(os.getcwd(), "out")


def checkpoint_path(step, ext):
    return os.path.join(out_dir(), "checkpoints", "step-%06d.%s" % (step, ext))


def atomic_write(path, write):
    """``write(tmp_path)`` then rename into place: the file appears complete or not at all."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), ".%s.tmp" % os.path.basename(path))
    write(tmp)
    os.replace(tmp, path)


class StopFlag:
    """Set by SIGTERM/SIGINT; the training loop checks it between steps."""

    def __init__(self):
        self.signum = None
        for s in (signal.SIGTERM, signal.SIGINT):
            signal.signal(s, self._set)

    def _set(self, signum, _frame):
        self.signum = signum

    def __bool__(self):
        return self.signum is not None


def validate_positive(params, names):
    for name in names:
        if params[name] < 1:
            raise SystemExit("--%s must be >= 1, got %s" % (name, params[name]))
