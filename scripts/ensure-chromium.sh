#!/usr/bin/env bash
# The browser the UI tier drives: Debian's chromium package, installed once with apt (never a download by
# playwright). Prints the version it will use.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium (apt)…"
  if [ "$(id -u)" -ne 0 ]; then
    echo "chromium is missing and installing it needs root: apt-get install chromium" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
chromium --version
