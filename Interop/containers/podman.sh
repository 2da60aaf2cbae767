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

# A run of these checks that was killed before its EXIT trap (a CI job stopped mid-step) leaves its containers
# running, publishing the ports the next run needs; podman's state outlives the job on a machine that keeps it.
# remove_leftovers NAME_OR_PROJECT...   removes the containers of that name or compose project, and says so
remove_leftovers() {
  local ids
  for name in "$@"; do
    ids=$( { podman ps -aq --filter "name=^${name}\$"; podman ps -aq --filter "label=com.docker.compose.project=$name"; } | sort -u)
    [[ -z "$ids" ]] && continue
    echo "removing what an earlier run left behind ($name): $(podman ps -a --filter "id=$(echo "$ids" | head -1)" --format '{{.Names}} {{.Status}}')…"
    # shellcheck disable=SC2086  # one ID a word
    podman rm -f -t 0 $ids >/dev/null
  done
}

# ports_free PORT...   fails, naming the holder, when anything on this machine already listens on or forwards a
# port a check is about to publish: a probe would then reach it instead of the container under test.
ports_free() {
  local port holders
  for port in "$@"; do
    holders=$(podman ps --format '{{.Names}} {{.Ports}}' | grep -E ":$port->" || true)
    [[ -z "$holders" ]] || { echo "port $port is already published by a container: $holders"; return 1; }
    holders=$(ss -ltnpH "sport = :$port" 2>/dev/null || true)
    [[ -z "$holders" ]] || { echo "port $port is already taken on this machine: $holders"; return 1; }
  done
}

# why_unreachable URL CONTAINER   what a probe that never answered saw, and where the published port leads: printed
# when a check gives up, so the failure names its cause.
why_unreachable() {
  local url=$1 container=$2 port
  port=$(sed -E 's#^[a-z]+://[^:/]+:([0-9]+).*#\1#' <<<"$url")
  echo "--- curl -sv --max-time 5 $url"
  curl -sv --max-time 5 "$url" 2>&1 | grep -vE '^\* (Trying|  CAfile|  CApath)' | tail -15 || true
  echo "--- podman port $container; podman ps -a"
  podman port "$container" 2>&1 || true
  podman ps -a --format '{{.Names}}  {{.Status}}  {{.Ports}}' 2>&1 || true
  echo "--- listeners and forwarding rules for port $port"
  ss -ltnpH "sport = :$port" 2>&1 || true
  { iptables -t nat -S 2>/dev/null; nft list ruleset 2>/dev/null; } | grep -E "dport $port\b|dport $port " || echo "(no nat rule names port $port)"
}

# random_secret   a fresh control token (or password) for one run of a check: ci- and 16 hex digits.
random_secret() { printf 'ci-%s' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"; }

# say TEXT...     TEXT after the seconds since this file was sourced: a check's steps, timed.
checks_began=$(date +%s)
say() { printf '[%3ss] %s\n' "$(( $(date +%s) - checks_began ))" "$*"; }
