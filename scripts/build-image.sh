#!/usr/bin/env bash
# Builds a Debian image for the docker runtime without any registry: debootstrap a root filesystem from
# this machine's own apt mirror, then `docker import` it. Cached: an image whose `starforge.inputs`
# label equals the digest of this build's inputs (this script, the package list, the suite) is reused.
#
# Usage: scripts/build-image.sh [--minimal] [IMAGE]
#   default        starforge/torch-cpu:bookworm  python3 + numpy + torch 1.13 (CPU), ~3 min, ~1.3 GB
#   --minimal      starforge/python:bookworm     python3 only, ~1 min (simulated workload, stdlib recipes)
# Env:
#   SF_DEBIAN_MIRROR   use this mirror instead of the one apt is configured with
#   SF_DOCKER_STATE    where the build lock lives (default /var/lib/starforge-ci)
# Needs root (debootstrap) and a running daemon (scripts/start-dockerd.sh).
set -euo pipefail

SUITE=bookworm
MINIMAL=0
IMAGE=""
for arg in "$@"; do
  case "$arg" in
    --minimal) MINIMAL=1 ;;
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0
      ;;
    -*)
      echo "build-image: unknown option $arg (see --help)" >&2
      exit 2
      ;;
    *) IMAGE="$arg" ;;
  esac
done
if [ "$MINIMAL" = 1 ]; then
  PACKAGES="python3,bash,coreutils"
  IMAGE="${IMAGE:-starforge/python:bookworm}"
else
  PACKAGES="python3,python3-numpy,python3-torch,bash,coreutils"
  IMAGE="${IMAGE:-starforge/torch-cpu:bookworm}"
fi

say() { printf 'build-image: %s\n' "$*"; }
die() {
  printf 'build-image: %s\n' "$*" >&2
  exit 1
}

DIGEST="$({
  cat "$0"
  printf '%s\n%s\n' "$PACKAGES" "$SUITE"
} | sha256sum | cut -c1-64)"
SHORT="${DIGEST:0:12}"
# IMAGE is repo:tag; the pinned tag is repo:tag-<short digest> (docker tags cannot hold a second colon).
PINNED="${IMAGE}-${SHORT}"
case "$IMAGE" in *:*) ;; *) PINNED="${IMAGE}:${SHORT}" ;; esac

docker info >/dev/null 2>&1 || die "no Docker daemon answers; start one with scripts/start-dockerd.sh"

label_of() { docker image inspect --format '{{index .Config.Labels "starforge.inputs"}}' "$1" 2>/dev/null || true; }

if [ "$(label_of "$IMAGE")" = "$DIGEST" ]; then
  say "$IMAGE is up to date (inputs $SHORT)"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "building an image needs root (debootstrap); run: sudo $0 $*"

# Two builds at once (parallel test files, a developer and CI) would debootstrap twice; serialize them
# and re-check the cache once we hold the lock.
STATE="${SF_DOCKER_STATE:-/var/lib/starforge-ci}"
mkdir -p "$STATE"
exec 9>"$STATE/build-image.lock"
flock 9
if [ "$(label_of "$IMAGE")" = "$DIGEST" ]; then
  say "$IMAGE was built meanwhile (inputs $SHORT)"
  exit 0
fi
if [ "$(label_of "$PINNED")" = "$DIGEST" ]; then
  docker tag "$PINNED" "$IMAGE"
  say "$IMAGE re-tagged from $PINNED"
  exit 0
fi

# The mirror apt already uses here: the first deb822 stanza (or sources.list line) serving $SUITE itself.
mirror_from_apt() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v suite="$SUITE" '
      function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uri != "") { print uri; found = 1; exit } types = suites = uri = "" }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      tolower($1) == "types:" { types = substr($0, index($0, ":") + 1) }
      tolower($1) == "suites:" { suites = substr($0, index($0, ":") + 1); gsub(/^[ \t]+|[ \t]+$/, "", suites) }
      tolower($1) == "uris:" { uri = $2 }
      END { if (!found) flush() }
    ' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -E 's/\[[^]]*\]//' "$f" | awk -v suite="$SUITE" '$1 == "deb" && $3 == suite { print $2 }'
  done
}
MIRROR="${SF_DEBIAN_MIRROR:-$(mirror_from_apt | head -n 1)}"
[ -n "$MIRROR" ] || die "no apt source for $SUITE in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list; set SF_DEBIAN_MIRROR"

if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

START=$(date +%s)
ROOTFS="$(mktemp -d /var/tmp/sf-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
LOG="$STATE/build-image.log"
say "building $IMAGE (inputs $SHORT) from $MIRROR: $PACKAGES"
say "debootstrap log: $LOG"

# debootstrap prints a line per package; show its stages and a running package count instead.
if ! debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" 2>&1 |
  tee "$LOG" |
  awk '
    /^I: Retrieving [^ ]+ / && !/Release|Packages/ { n++; if (n % 25 == 0) printf "build-image:   %d packages retrieved\n", n; fflush(); next }
    /^I: (Installing core|Unpacking the base|Configuring the base)/ { print "build-image:   " $0; fflush(); next }
    /^I: (Validating|Extracting|Unpacking|Configuring|Installing) / { next }
    /^[IEW]: / { print "build-image:   " $0; fflush() }
  '; then
  die "debootstrap failed; see $LOG"
fi
[ -x "$ROOTFS/usr/bin/python3" ] || die "debootstrap finished without python3; see $LOG"

# Package caches and lists only make the image bigger; the image never runs apt.
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*

say "importing $(du -sh "$ROOTFS" | cut -f1) into docker"
# A bare import has no config at all: give it PATH, and OMP_NUM_THREADS because Debian's torch
# otherwise uses a single thread.
tar -C "$ROOTFS" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV OMP_NUM_THREADS=2' \
  --change "LABEL starforge.inputs=$DIGEST" \
  --change 'CMD ["bash"]' \
  - "$IMAGE" >/dev/null
docker tag "$IMAGE" "$PINNED"
# Earlier builds of this image (other input digests) are 0.2-1.3 GB each and nothing runs them any more.
for old in $(docker images --format '{{.Repository}}:{{.Tag}}' "${IMAGE%:*}"); do
  if [[ "$old" =~ ^${IMAGE}-[0-9a-f]{12}$ && "$old" != "$PINNED" ]]; then
    if docker rmi "$old" >/dev/null 2>&1; then say "removed the older build $old"; fi
  fi
done
say "built $IMAGE (also $PINNED) in $(($(date +%s) - START)) s"
