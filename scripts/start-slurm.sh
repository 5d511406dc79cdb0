#!/usr/bin/env bash
# Starts a real one-host Slurm cluster for the Slurm runtime's tests (.ci/run, npm run test:slurm) and for
# developers: munged, slurmctld, two slurmd nodes (sf-n1, sf-n2) with 4 fake GPUs each, and slurmrestd
# on loopback with JWT auth. Everything lives under one state directory (never /etc). Idempotent: a
# cluster from this script that still answers is left alone.
#
# Usage: scripts/start-slurm.sh            (as root; installs Debian's Slurm packages when missing)
# Env:   SF_SLURM_STATE   state directory (default /var/lib/starforge-ci/slurm)
#        SF_SLURM_PORT    slurmrestd's loopback port (default 6820)
# Prints, last, the lines a client needs: SLURM_CONF=…, SF_SLURMRESTD=…, SF_SLURM_STATE=…
set -euo pipefail

STATE="${SF_SLURM_STATE:-/var/lib/starforge-ci/slurm}"
REST_PORT="${SF_SLURM_PORT:-6820}"
# slurmrestd also listens on a unix socket (what a real login node would use: no token on the network).
REST_SOCKET="$STATE/restd/slurmrestd.socket"
CONF="$STATE/slurm.conf"
NODES=(sf-n1 sf-n2)
GPUS_PER_NODE=4

say() { printf 'start-slurm: %s\n' "$*" >&2; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if [ "$(id -u)" -ne 0 ]; then
  say "starting Slurm daemons needs root; run: sudo $0"
  exit 1
fi

installed() {
  local b
  for b in slurmctld slurmd slurmrestd scontrol sinfo munged; do command -v "$b" >/dev/null || return 1; done
  compgen -G "/usr/lib/*/slurm-wlm/auth_jwt.so" >/dev/null
}
if ! installed; then
  say "installing Debian's Slurm packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurmrestd slurm-client munge slurm-wlm-jwt-plugin >/dev/null
fi

print_env() {
  printf 'SLURM_CONF=%s\nSF_SLURMRESTD=http://127.0.0.1:%s\nSF_SLURMRESTD_SOCKET=unix:%s\nSF_SLURM_STATE=%s\n' \
    "$CONF" "$REST_PORT" "$REST_SOCKET" "$STATE"
}

all_up() {
  alive "$STATE/munged.pid" && alive "$STATE/slurmctld.pid" && alive "$STATE/slurmrestd.pid" || return 1
  [ -S "$REST_SOCKET" ] || return 1
  for n in "${NODES[@]}"; do alive "$STATE/slurmd.$n.pid" || return 1; done
  SLURM_CONF="$CONF" scontrol ping >/dev/null 2>&1
}

mkdir -p "$STATE"/{ctld,spool,log,dev,jobs}
chmod 0755 "$STATE" "$STATE"/{ctld,spool,log,dev}
# The shared directory where run directories go (every node of this one-host cluster sees it).
chmod 1777 "$STATE/jobs"

# --- munge: our own key and socket ------------------------------------------------------------------
if ! alive "$STATE/munged.pid"; then
  [ -s "$STATE/munge.key" ] || { dd if=/dev/urandom of="$STATE/munge.key" bs=1024 count=1 status=none; }
  chmod 0400 "$STATE/munge.key"
  munged --key-file="$STATE/munge.key" --socket="$STATE/munge.socket" --pid-file="$STATE/munged.pid" \
    --seed-file="$STATE/munged.seed" --log-file="$STATE/log/munged.log" --force
fi

# --- JWT key for slurmrestd's tokens -----------------------------------------------------------------
[ -s "$STATE/jwt.key" ] || dd if=/dev/urandom of="$STATE/jwt.key" bs=32 count=1 status=none
chmod 0600 "$STATE/jwt.key"

# --- fake GPUs: character devices slurmd can hand out (CUDA_VISIBLE_DEVICES is set from them) --------
for n in "${NODES[@]}"; do
  for ((i = 0; i < GPUS_PER_NODE; i++)); do
    dev="$STATE/dev/$n-gpu$i"
    [ -e "$dev" ] || mknod -m 0666 "$dev" c 1 3
  done
done

# --- configuration -----------------------------------------------------------------------------------
HOST="$(hostname -s)"
HW="$(slurmd -C | head -1 | sed -E 's/^NodeName=\S+ //; s/ ?UpTime=.*//')"
{
  echo "# Written by scripts/start-slurm.sh: a one-host test cluster. Do not use in production."
  echo "ClusterName=sf"
  echo "SlurmctldHost=$HOST(127.0.0.1)"
  echo "SlurmUser=root"
  echo "SlurmdUser=root"
  echo "SlurmctldPort=6817"
  echo "AuthType=auth/munge"
  echo "AuthInfo=socket=$STATE/munge.socket"
  echo "AuthAltTypes=auth/jwt"
  echo "AuthAltParameters=jwt_key=$STATE/jwt.key"
  echo "CredType=cred/munge"
  echo "StateSaveLocation=$STATE/ctld"
  echo "SlurmdSpoolDir=$STATE/spool/%n"
  echo "SlurmctldPidFile=$STATE/slurmctld.pid"
  echo "SlurmdPidFile=$STATE/slurmd.%n.pid"
  echo "SlurmctldLogFile=$STATE/log/slurmctld.log"
  echo "SlurmdLogFile=$STATE/log/slurmd.%n.log"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_Core_Memory"
  echo "DefMemPerCPU=512"
  echo "GresTypes=gpu"
  echo "JobRequeue=0"
  echo "MailProg=/bin/true"
  echo "AccountingStorageType=accounting_storage/none"
  echo "JobCompType=jobcomp/none"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "ReturnToService=2"
  # A dead slurmd is noticed in seconds, not minutes (the NODE_FAIL test).
  echo "SlurmdTimeout=10"
  echo "MessageTimeout=5"
  # Time between SIGTERM and SIGKILL on a cancel or time limit: the capsule checkpoints in it.
  echo "KillWait=20"
  echo "MinJobAge=600"
  # Finished jobs stay counted for MinJobAge: `npm run bench` submits and cancels ~7,000 held jobs a run,
  # and the default cap (10,000) refused a second run within ten minutes.
  echo "MaxJobCount=200000"
  # Heterogeneous jobs (a run of several pools) are started by the backfill scheduler only: a pass every
  # 2 s instead of every 30, so a test does not wait half a minute for each.
  echo "SchedulerParameters=bf_interval=2"
  port=17001
  for n in "${NODES[@]}"; do
    echo "NodeName=$n NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$port $HW Gres=gpu:$GPUS_PER_NODE State=UNKNOWN"
    port=$((port + 1))
  done
  echo "PartitionName=gpu Nodes=$(IFS=,; echo "${NODES[*]}") Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
} >"$CONF.new"
{
  echo "AutoDetect=off"
  for n in "${NODES[@]}"; do
    echo "NodeName=$n Name=gpu File=$STATE/dev/$n-gpu[0-$((GPUS_PER_NODE - 1))]"
  done
} >"$STATE/gres.conf"
chmod 0644 "$CONF.new" "$STATE/gres.conf"
export SLURM_CONF="$CONF"
# A cluster of this script that answers is left alone, but for a configuration this version of the script
# writes differently: that is applied with `scontrol reconfigure` (the daemons keep running).
if all_up; then
  if cmp -s "$CONF.new" "$CONF"; then
    rm -f "$CONF.new"
    say "the cluster in $STATE already answers"
    print_env
    exit 0
  fi
  mv "$CONF.new" "$CONF"
  say "the cluster in $STATE answers; applying its changed configuration"
  scontrol reconfigure
else
  mv "$CONF.new" "$CONF"
fi

# --- daemons -----------------------------------------------------------------------------------------
# Started from the state directory: a daemon outlives the checkout that started it, and slurmrestd dies
# on its next job submit when its working directory is gone (getcwd).
cd "$STATE"
alive "$STATE/slurmctld.pid" || slurmctld -f "$CONF"
for n in "${NODES[@]}"; do
  mkdir -p "$STATE/spool/$n"
  alive "$STATE/slurmd.$n.pid" || slurmd -f "$CONF" -N "$n"
done
if alive "$STATE/slurmrestd.pid" && [ ! -S "$REST_SOCKET" ]; then
  # Started by an older version of this script, without the unix socket: restart it (by its pid).
  kill "$(cat "$STATE/slurmrestd.pid")"
  for _ in $(seq 1 50); do alive "$STATE/slurmrestd.pid" || break; sleep 0.1; done
fi
if ! alive "$STATE/slurmrestd.pid"; then
  # slurmrestd refuses to run as root and has no daemon mode: it drops to nobody, and setsid keeps it
  # running after this script; its pid is kept so it can be stopped (and restarted by tests) by pid.
  mkdir -p "$STATE/restd" && chmod 1777 "$STATE/restd" && rm -f "$REST_SOCKET"
  SLURM_JWT=daemon setsid slurmrestd -f "$CONF" -a rest_auth/jwt -u nobody -s openapi/v0.0.38 \
    "127.0.0.1:$REST_PORT" "unix:$REST_SOCKET" >>"$STATE/log/slurmrestd.log" 2>&1 </dev/null &
  echo $! >"$STATE/slurmrestd.pid"
fi

# --- wait until the cluster answers: both nodes idle, slurmrestd serving ------------------------------
for _ in $(seq 1 100); do
  idle="$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 ~ /^(idle|mix|alloc)/' | wc -l || true)"
  token="$(scontrol token lifespan=60 2>/dev/null | sed -n 's/^SLURM_JWT=//p' || true)"
  if [ "$idle" = "${#NODES[@]}" ] && [ -n "$token" ] &&
    curl -fsS -o /dev/null -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $token" \
      "http://127.0.0.1:$REST_PORT/slurm/v0.0.38/ping" &&
    curl -fsS -o /dev/null --unix-socket "$REST_SOCKET" -H "X-SLURM-USER-NAME: root" \
      -H "X-SLURM-USER-TOKEN: $token" "http://localhost/slurm/v0.0.38/ping"; then
    say "cluster up: ${NODES[*]} ($GPUS_PER_NODE fake GPUs each), slurmrestd on 127.0.0.1:$REST_PORT and $REST_SOCKET"
    print_env
    exit 0
  fi
  sleep 0.3
done
say "the cluster did not come up in 30 s; logs in $STATE/log:"
tail -n 20 "$STATE"/log/*.log >&2 || true
sinfo -N >&2 || true
exit 1
