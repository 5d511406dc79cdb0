#!/usr/bin/env bash
# Installs what the test tiers need on a fresh Debian 12 machine, each package set in one apt transaction,
# so .ci/run can do it once and alongside other work instead of once per tier. Idempotent: what is
# already here is neither installed again nor rebuilt. Needs root.
#
# Usage: scripts/setup-host.sh tools    python3 with torch (the capsule and multi-node tiers), systemd-analyze
#                                       (forgelet install-service), openssl (TLS certificates of the tests)
#        scripts/setup-host.sh tiers    Docker's engine and debootstrap (tier 4), Debian's Slurm packages,
#                                       chromium (the UI tier); then starts dockerd and builds both images
#                                       (scripts/start-dockerd.sh, scripts/build-image.sh: cached by inputs)
# Each tier's own script (npm run test:e2e, test:slurm, test:ui, ...) still checks and sets up what it
# needs by itself; after this they find it done.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup-host: %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

# apt-get install of the packages whose command is missing: "<command>:<package> ..." (a made-up command
# such as __torch__ never exists: its package is wanted whenever the caller lists it).
install_missing() {
  local want=() pair
  for pair in "$@"; do
    have "${pair%%:*}" || want+=("${pair#*:}")
  done
  [ "${#want[@]}" -gt 0 ] || return 0
  say "installing ${want[*]}"
  # Without `apt-get update` first when the lists are there already; with it when the install fails.
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
  fi
}

case "${1:-}" in
  tools)
    start=$SECONDS
    want=(systemd-analyze:systemd openssl:openssl)
    python3 -c 'import torch' >/dev/null 2>&1 || want+=(__torch__:python3-torch)
    install_missing "${want[@]}"
    bash scripts/ensure-torch.sh >/dev/null
    say "tools ready in $((SECONDS - start)) s"
    ;;
  tiers)
    start=$SECONDS
    # docker.io with its recommends (containerd, runc, tini, iptables: what the engine runs with), as
    # scripts/start-dockerd.sh installs it; everything else without recommends, as the tiers' scripts do.
    if ! have dockerd; then
      say "installing docker.io"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null; }
    fi
    want=(debootstrap:debootstrap slurmctld:slurmctld slurmd:slurmd slurmrestd:slurmrestd
      scontrol:slurm-client munged:munge chromium:chromium)
    # The JWT plugin and the browser's fonts have no command of their own.
    compgen -G "/usr/lib/*/slurm-wlm/auth_jwt.so" >/dev/null || want+=(__jwt__:slurm-wlm-jwt-plugin)
    [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || want+=(__fonts__:fonts-dejavu-core)
    install_missing "${want[@]}"
    say "packages ready in $((SECONDS - start)) s"
    bash scripts/start-dockerd.sh
    bash scripts/build-image.sh --minimal
    bash scripts/build-image.sh
    say "tiers ready in $((SECONDS - start)) s"
    ;;
  *)
    echo "usage: scripts/setup-host.sh tools|tiers" >&2
    exit 2
    ;;
esac
