# Sourced by Interop/image.sh and Interop/compose_check.sh: Debian's podman installed and set up as this kind of
# machine needs (as root): runc instead of crun, which refuses its hybrid cgroups; cgroupfs; no default rlimits,
# which it may not set. A user's Docker needs none of this (docs/containers.md).
ensure_podman() {
  local need=()
  command -v podman >/dev/null || need+=(podman)
  command -v runc >/dev/null || need+=(runc)
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v podman-compose >/dev/null || need+=(podman-compose)
  if (( ${#need[@]} > 0 )); then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  local conf=/etc/containers/containers.conf
  if ! grep -qs '^runtime = "runc"' "$conf"; then
    mkdir -p /etc/containers
    cat >>"$conf" <<'CONF'

# apnsim's Interop/containers/podman.sh: runc (crun refuses this machine's hybrid cgroups), cgroupfs, and no default
# rlimits (setting them is not permitted here).
[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
  fi
  podman --version
}
