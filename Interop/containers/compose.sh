# Sourced by Interop/compose_check.sh and Benchmarks/footprint.sh: docker-compose, Docker's own tool, driving podman
# through the Docker API podman serves, with the repository's docker-compose.yml unchanged.
#
#   compose_engine WORK      serves the Docker API on WORK/podman.sock, exports DOCKER_HOST, and runs the containers'
#                            health checks; compose_engine_stop ends both
#   compose ARGS...          docker-compose -f docker-compose.yml ARGS...
#   within SECONDS CMD...    waits until CMD succeeds (containers start and link on their own time)
compose_engine() {
  local work=$1
  podman system service --time=0 "unix://$work/podman.sock" >"$work/service.log" 2>&1 &
  compose_service=$!
  export DOCKER_HOST="unix://$work/podman.sock"
  for _ in $(seq 100); do [[ -S "$work/podman.sock" ]] && break; sleep 0.1; done
  # Docker runs each container's health check on its interval; podman leaves that to systemd timers, and no systemd
  # runs here: this loop stands in for them, so depends_on: service_healthy and compose ps work as under Docker.
  ( while :; do
      for id in $(podman ps -q --filter health=starting; podman ps -q --filter health=healthy; podman ps -q --filter health=unhealthy); do
        podman healthcheck run "$id" >/dev/null 2>&1 || true
      done
      sleep 2
    done ) &
  compose_checks=$!
}

compose_engine_stop() {
  kill "${compose_service:-}" "${compose_checks:-}" 2>/dev/null || true
}

compose() { docker-compose -f docker-compose.yml "$@"; }

within() {
  local seconds=$1; shift
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s) < deadline )) || { echo "still not so after $seconds s: $*"; return 1; }
    sleep 1
  done
}

# The control API's readiness, and whether COUNT devices of the device service (dev-…) are online.
# Each probe gives up after 5 s, so one that hangs (a forwarded port nobody answers) is tried again within the wait.
ready() { [[ "$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "${control:-http://127.0.0.1:8197}/readyz")" == 200 ]]; }
devices_online() {
  curl -sf -H "Authorization: Bearer $APNSIM_CONTROL_TOKEN" "${control:-http://127.0.0.1:8197}/v1/devices" |
    "$python" -c 'import json, sys; d = [x for x in json.load(sys.stdin) if x["id"].startswith("dev-")]; sys.exit(0 if len(d) == int(sys.argv[1]) and all(x["online"] for x in d) else 1)' "$1"
}
