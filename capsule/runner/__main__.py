"""Entry point of runner.pyz: ``python3 runner.pyz run``."""

import sys

# Checked before importing anything else, so a too-old interpreter gets a clear answer, not a
# SyntaxError (bootstrap.sh normally refuses it first; this covers a runner started by hand).
if sys.version_info < (3, 8):
    sys.stderr.write(
        "starforge-runner: NO_PYTHON: Python >= 3.8 is required; found %d.%d at %s\n"
        % (sys.version_info[0], sys.version_info[1], sys.executable)
    )
    sys.exit(66)

from sfrunner.app import main  # noqa: E402  (after the version gate on purpose)

sys.exit(main(sys.argv[1:]))
