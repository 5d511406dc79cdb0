#!/usr/bin/env bash
# Makes sure a python3 on this machine can import torch, for the multi-node tests (the process runtime
# runs torch/ddp on the host) and the capsule's torch recipe tests. Debian 12's python3-torch (1.13, CPU)
# is installed when missing. Idempotent. Prints the python3 that has torch.
#
# Usage: scripts/ensure-torch.sh   (installing needs root)
set -euo pipefail

say() { printf 'ensure-torch: %s\n' "$*" >&2; }
find_torch() {
  local py
  for py in python3 /usr/bin/python3; do
    if "$py" -c 'import torch' >/dev/null 2>&1; then
      "$py" -c 'import sys; print(sys.executable)'
      return 0
    fi
  done
  return 1
}

if find_torch; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  say "no python3 here can import torch, and installing Debian's python3-torch needs root: sudo apt-get install python3-torch"
  exit 1
fi
say "installing Debian's python3-torch (1.13, CPU)"
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
find_torch || { say "python3-torch is installed but no python3 imports torch"; exit 1; }
