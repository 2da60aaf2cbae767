#!/usr/bin/env bash
# Builds apnsim's image from the repository's Dockerfile under podman, offline, and tags it apnsim:latest.
#
# The Dockerfile's base images (swift:6.3-noble to build in, ubuntu:noble to run in) cannot be pulled here: this
# makes stand-ins once and passes them as its two build arguments, the only difference from a user's
# `docker build .`. The run image is Debian from debootstrap; the build image adds this machine's Swift toolchain and
# package mirror (Interop/containers/swift-stand-in.Containerfile). Both are kept between runs, as is the Dockerfile's
# build cache, so a second run rebuilds only what changed.
#
# Usage: bash Interop/image.sh [TAG]        (TAG: apnsim:latest)
set -euo pipefail
cd "$(dirname "$0")/.."
source Interop/containers/podman.sh
tag=${1:-apnsim:latest}
ensure_podman

# The Dockerfile builds with the Swift version apnsim is tested with.
tested=$(swift --version 2>/dev/null | sed -nE 's/.*Swift version ([0-9]+\.[0-9]+).*/\1/p' | sed -n 1p)
named=$(sed -nE 's/^ARG SWIFT_VERSION=([0-9.]+)$/\1/p' Dockerfile)
if [[ "$tested" != "$named" ]]; then
  echo "the Dockerfile names Swift $named, but this machine tests apnsim with Swift $tested: set ARG SWIFT_VERSION=$tested" >&2
  exit 1
fi

base=localhost/apnsim-stand-in/debian:bookworm
swift_image=localhost/apnsim-stand-in/swift:$tested
if ! podman image exists "$base"; then
  echo "making $base with debootstrap (Debian bookworm, minbase)"
  root=$(mktemp -d /tmp/apnsim-rootfs.XXXXXX)
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
  # What Docker Hub's Debian and Ubuntu images leave out too: the downloaded packages and the package lists.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | podman import --change 'CMD ["/bin/bash"]' - "$base" >/dev/null 2>&1
  rm -rf "$root"
fi
if ! podman image exists "$swift_image"; then
  toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
  echo "making $swift_image from $base with the toolchain in $toolchain and the package mirror in /opt/swift-packages"
  podman build -q --build-arg BASE="$base" --volume "$toolchain:/host/swift:ro" --volume /opt/swift-packages:/host/swift-packages:ro \
    -f Interop/containers/swift-stand-in.Containerfile -t "$swift_image" Interop/containers >/dev/null
fi

began=$(date +%s)
podman build --format docker --build-arg BUILD_IMAGE="$swift_image" --build-arg RUNTIME_IMAGE="$base" -t "$tag" . \
  2>&1 | grep -vE '^(Compiling|\[[0-9]+/[0-9]+\] (Compiling|Emitting))' || { echo "podman build failed" >&2; exit 1; }
echo "built $tag in $(( $(date +%s) - began )) s: $(podman image inspect "$tag" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')," \
     "binary $(podman run --rm --entrypoint stat "$tag" -c %s /usr/local/bin/apnsim | awk '{printf "%.0f MB", $1/1e6}')"
