"""Exit codes shared with bootstrap.sh and the contract (contract/capsule.schema.ts CAPSULE_EXIT)."""

DIGEST_MISMATCH = 65
NO_PYTHON = 66
CAPABILITY_MISSING = 67
BAD_MANIFEST = 68
# The ranks of a distributed run did not all meet (sysexits' EX_UNAVAILABLE): a peer never joined,
# the control plane was unreachable, or the run ended while this rank waited.
RENDEZVOUS_FAILED = 69
# The runner itself broke (a bug, not the job's fault): sysexits' EX_SOFTWARE.
RUNNER_ERROR = 70

NAMES = {
    DIGEST_MISMATCH: "DIGEST_MISMATCH",
    NO_PYTHON: "NO_PYTHON",
    CAPABILITY_MISSING: "CAPABILITY_MISSING",
    BAD_MANIFEST: "BAD_MANIFEST",
    RENDEZVOUS_FAILED: "RENDEZVOUS_FAILED",
    RUNNER_ERROR: "RUNNER_ERROR",
}

# The oldest Python the runner and the built-in recipes are written for; bootstrap.sh enforces
# max(this, requires.python) so a manifest asking for less cannot start us on an interpreter we break on.
MIN_PYTHON = (3, 8)


class CapsuleError(Exception):
    """A reason not to run the training, carrying the exit code that says which."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message
