#!/usr/bin/env bash
# Starts a Docker daemon on this machine if none answers, for the docker runtime's tests (.ci/run) and
# for developers. Idempotent: a daemon that already answers `docker info` is left alone.
#
# This machine has no registry and traffic to docker's bridge addresses (172.x) is off-limits, so the
# daemon runs without a bridge or iptables rules: containers use `--network host` or `none` only.
# overlay2 is tried first (a container starts in well under a second); vfs works everywhere but copies
# the whole image for each container, so it is the fallback only.
#
# Usage: scripts/start-dockerd.sh            (as root)
# Env:   SF_DOCKER_STATE            where the daemon's log and pid file go (default /var/lib/starforge-ci)
#        SF_DOCKER_STORAGE_DRIVERS  drivers to try in order (default "overlay2 vfs")
set -euo pipefail

STATE="${SF_DOCKER_STATE:-/var/lib/starforge-ci}"
WAIT_S=60

say() { printf 'start-dockerd: %s\n' "$*"; }
driver() { docker info --format '{{.Driver}}' 2>/dev/null; }

if docker info >/dev/null 2>&1; then
  say "a Docker daemon already answers (storage driver: $(driver))"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  say "no Docker daemon answers and starting one needs root; run: sudo $0" >&2
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  say "dockerd is missing; installing Debian's docker.io"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi

mkdir -p "$STATE"
LOG="$STATE/dockerd.log"
PIDFILE="$STATE/dockerd.pid"

# Stops one process by its pid: SIGTERM, up to 10 s to exit, then SIGKILL.
stop_pid() {
  local pid="$1"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -9 "$pid" 2>/dev/null || true
}

# Stops only the daemon this script started (by its pid), never "every dockerd".
stop_ours() {
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [ -n "$pid" ] || return 0
  stop_pid "$pid"
  rm -f "$PIDFILE"
}

# A daemon that was killed (the machine's processes stopped between sessions) leaves pid files behind.
# dockerd trusts /var/run/docker/containerd/containerd.pid: when that pid now belongs to another process,
# it waits for a containerd socket that never answers and gives up ("timeout waiting for containerd to
# start"). A containerd still running from the dead daemon is stopped by its pid; a pid file naming any
# other process (or none) is removed, so dockerd starts a fresh containerd.
clear_stale_pidfiles() {
  local file pid comm
  for file in /var/run/docker/containerd/containerd.pid /var/run/docker.pid; do
    [ -f "$file" ] || continue
    pid="$(tr -dc '0-9' <"$file")"
    comm="$( [ -n "$pid" ] && cat "/proc/$pid/comm" 2>/dev/null || true)"
    case "$file:$comm" in
      */containerd.pid:containerd)
        say "stopping containerd $pid, left behind by a daemon that no longer answers"
        stop_pid "$pid"
        ;;
      */docker.pid:dockerd) continue ;; # a daemon still starting or stopping: dockerd itself says so
      *:) ;;                            # the process is gone: a plain stale file
      *) say "removing $file: pid $pid now belongs to another process ($comm)" ;;
    esac
    rm -f "$file"
  done
}

# Starts dockerd with one storage driver; succeeds once `docker info` answers.
try_driver() {
  local drv="$1" pid
  say "starting dockerd with --storage-driver=$drv (log: $LOG)"
  printf '\n=== %s: dockerd --storage-driver=%s\n' "$(date -u +%FT%TZ)" "$drv" >>"$LOG"
  # setsid: the daemon outlives this script and the shell that ran it.
  setsid dockerd --iptables=false --bridge=none --storage-driver="$drv" </dev/null >>"$LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PIDFILE"
  for _ in $(seq 1 "$WAIT_S"); do
    if docker info >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      say "dockerd with $drv exited; last log lines:"
      grep -v "level=info" "$LOG" | tail -n 5 | sed 's/^/  /'
      rm -f "$PIDFILE"
      return 1
    fi
    sleep 1
  done
  say "dockerd with $drv did not answer within ${WAIT_S}s"
  stop_ours
  return 1
}

for drv in ${SF_DOCKER_STORAGE_DRIVERS:-overlay2 vfs}; do
  clear_stale_pidfiles
  if try_driver "$drv"; then
    say "Docker daemon is up (pid $(cat "$PIDFILE"), storage driver: $(driver))"
    exit 0
  fi
done
say "could not start dockerd; see $LOG" >&2
exit 1
