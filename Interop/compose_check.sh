#!/usr/bin/env bash
# The image and the compose stack run as provider teams run them, under Debian's podman (Interop/image.sh builds
# apnsim:latest first). docker-compose, Docker's own tool, drives podman through the Docker API it serves, with the
# repository's docker-compose.yml unchanged:
#
#   1. docker run as the README and docs/containers.md show: the sandbox answers ready, and stops on SIGTERM within 10 s.
#   2. compose up with the device service scaled to 3 containers; aioapns on the host sends a Braze rich push to a
#      device in each, and each is displayed with the image from the media container.
#   0. compose up without APNSIM_CONTROL_TOKEN refuses, naming the variable: the file holds no token of its own.
#   3. every device taken offline, a push held for each, the gateway container killed with SIGKILL and started
#      again: every push answered 200 is displayed, the devices re-link by themselves, the control API lists them.
#      Then one device container stopped, a push held for each of its devices, the gateway SIGKILLed and started
#      again, the device container started: its devices come back with the same tokens and display what was held.
#   4. the observability profile's Prometheus scrapes the gateway's GET /metrics with deploy/prometheus/prometheus.yml
#      and its query API counts the pushes above. No registry is reachable, so its image is a stand-in built from
#      Debian's prometheus package (Interop/containers/prometheus-stand-in.Containerfile); Grafana and Jaeger have no
#      Debian package and are not run here (metrics_check.sh runs the dashboard's queries against Prometheus).
#   5. the channel-management ports answer; compose down ends everything within 10 s and leaves no container,
#      network, volume or process behind.
#
# Usage: bash Interop/compose_check.sh PYTHON      (a Python with aioapns; from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
python=$1
source Interop/containers/podman.sh
ensure_podman >/dev/null
podman image exists apnsim:latest || bash Interop/image.sh
work=$(mktemp -d /tmp/apnsim-compose.XXXXXX)
project=apnsimcheck
token=$(random_secret)
control=http://127.0.0.1:8197

source Interop/containers/compose.sh
export COMPOSE_PROJECT_NAME=$project APNSIM_CONTROL_TOKEN=$token APNSIM_DEVICE_COUNT=2
cleanup() {
  compose --profile observability down -v -t 10 >/dev/null 2>&1 || true
  podman rm -f apnsim-run >/dev/null 2>&1 || true
  compose_engine_stop
  rm -rf "$work"
}
trap cleanup EXIT
compose_engine "$work"
remove_leftovers apnsim-run "$project" apnsimscale
ports_free 2197 2198 8197 8199 2195 2196 9090

say "0. compose up without APNSIM_CONTROL_TOKEN"
if refusal=$(env -u APNSIM_CONTROL_TOKEN docker-compose -f docker-compose.yml up -d --no-build 2>&1); then
  echo "compose up started without APNSIM_CONTROL_TOKEN:"; echo "$refusal"; exit 1
fi
grep -q "APNSIM_CONTROL_TOKEN" <<<"$refusal" || { echo "compose up refused without naming APNSIM_CONTROL_TOKEN:"; echo "$refusal"; exit 1; }
[[ -z "$(podman ps -aq --filter "label=com.docker.compose.project=$project")" ]] || { echo "the refused compose up left containers"; exit 1; }
echo "refused: $(grep -m1 APNSIM_CONTROL_TOKEN <<<"$refusal")"

say "1. docker run -p 2197:2197 -p 8197:8197 -e APNSIM_CONTROL_TOKEN=… apnsim (the README's line)"
podman run -d --name apnsim-run -p 2197:2197 -p 8197:8197 -e APNSIM_CONTROL_TOKEN="$token" apnsim:latest >/dev/null
within 120 ready || { podman logs apnsim-run; why_unreachable "$control/readyz" apnsim-run; exit 1; }
curl -s "$control/readyz"; echo
[[ "$(curl -s -o /dev/null -w '%{http_code}' "$control/v1/devices")" == 401 ]] || { echo "the control API answered without the token"; exit 1; }
send=$(podman logs apnsim-run | grep -oE "apnsim send --token [0-9a-f]+$" | sed -n 1p)
[[ -n "$send" ]] || { podman logs apnsim-run; echo "the banner has no apnsim send command"; exit 1; }
# shellcheck disable=SC2086  # the printed command's arguments
podman exec apnsim-run $send | grep "status: 200" >/dev/null || { echo "docker exec … $send was not answered 200"; exit 1; }
curl -sf -H "Authorization: Bearer $token" "$control/v1/deliveries?token=${send##* }&wait=30" | grep '"outcome":"displayed"' >/dev/null ||
  { echo "the push sent with the banner's command was not displayed"; exit 1; }
echo "docker exec apnsim-run $send: 200, displayed"
stop_began=$(date +%s%N)
podman stop -t 10 apnsim-run >/dev/null
stopped_ms=$(( ($(date +%s%N) - stop_began) / 1000000 ))
status=$(podman inspect apnsim-run --format '{{.State.ExitCode}}')
# grep reads it all (no -q): under pipefail, grep -q ending at the match left podman logs writing the lines after it
# into a closed pipe, and the line it had found failed the check (CI, 2026-11-26).
podman logs apnsim-run 2>&1 | grep "SIGTERM received, stopping" >/dev/null || { podman logs apnsim-run; echo "SIGTERM was not seen"; exit 1; }
say "stopped on SIGTERM in $stopped_ms ms with status $status"
(( stopped_ms < 10000 && status == 0 )) || { podman logs apnsim-run | tail -20; echo "the container did not stop cleanly within 10 s"; exit 1; }
podman rm apnsim-run >/dev/null

say "2. compose up --scale device=3 ($APNSIM_DEVICE_COUNT devices each)"
compose up -d --no-build --scale device=3 2>&1 | grep -v "^$" || true
within 180 ready || { compose logs gateway; why_unreachable "$control/readyz" "$(compose ps -q gateway)"; exit 1; }
within 180 devices_online 6 || { compose logs --tail 20; exit 1; }
compose ps
"$python" Interop/compose_check.py rich "$control" "$token" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8 2197 http://media:8199/media

say "3. pushes held for offline devices, the gateway killed with SIGKILL and started again"
"$python" Interop/compose_check.py hold "$control" "$token" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8 2197 "$work/held.json"
gateway=$(compose ps -q gateway)
podman kill --signal KILL "$gateway" >/dev/null
podman wait "$gateway" >/dev/null || true
say "gateway killed: $(podman inspect "$gateway" --format '{{.State.Status}}, exit code {{.State.ExitCode}}')"
compose start gateway >/dev/null 2>&1
within 120 ready || { compose logs gateway; why_unreachable "$control/readyz" "$(compose ps -q gateway)"; exit 1; }
within 120 devices_online 6 || { compose logs --tail 20; exit 1; }
say "the gateway is ready again and the 6 devices re-linked by themselves"
"$python" Interop/compose_check.py displayed "$control" "$token" "$work/held.json"

say "3b. one device container stopped, pushes held for its devices, the gateway SIGKILLed and started, the container started"
# sed reads it all: under pipefail, head ending at the first line left compose writing the rest (SIGPIPE, exit 141)
stopped=$(compose ps -q device | sed -n 1p)
stopped_host=$(podman inspect "$stopped" --format '{{.Config.Hostname}}')
"$python" Interop/compose_check.py tokens "$control" "$token" "$stopped_host" >"$work/tokens-before.json"
podman stop -t 10 "$stopped" >/dev/null
"$python" Interop/compose_check.py hold-stopped "$control" "$token" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8 2197 \
  "$work/tokens-before.json" "$work/held-stopped.json"
gateway=$(compose ps -q gateway)
podman kill --signal KILL "$gateway" >/dev/null
podman wait "$gateway" >/dev/null || true
compose start gateway >/dev/null 2>&1
within 120 ready || { compose logs gateway; why_unreachable "$control/readyz" "$(compose ps -q gateway)"; exit 1; }
podman start "$stopped" >/dev/null
within 120 devices_online 6 || { compose logs --tail 20; exit 1; }
"$python" Interop/compose_check.py tokens "$control" "$token" "$stopped_host" >"$work/tokens-after.json"
cmp -s "$work/tokens-before.json" "$work/tokens-after.json" ||
  { echo "container $stopped_host's devices came back with other tokens:"; cat "$work/tokens-before.json" "$work/tokens-after.json"; exit 1; }
echo "container $stopped_host's devices came back with the tokens they had: $(cat "$work/tokens-after.json")"
"$python" Interop/compose_check.py displayed "$control" "$token" "$work/held-stopped.json"

say "4. the observability profile's Prometheus (a stand-in from Debian's package) scrapes the gateway"
prometheus_image=localhost/apnsim-stand-in/prometheus:bookworm
podman image exists "$prometheus_image" || podman build -q --build-arg BASE=localhost/apnsim-stand-in/debian:bookworm \
  -f Interop/containers/prometheus-stand-in.Containerfile -t "$prometheus_image" Interop/containers >/dev/null
PROMETHEUS_IMAGE=$prometheus_image compose --profile observability up -d --no-build prometheus 2>&1 | grep -v "^$" || true
# The gateway's counters started again with its restart in 3: three requests without a provider token to count.
for _ in 1 2 3; do
  curl -s --http2 --cacert Certs/ca.pem --resolve "api.sandbox.push.apple.com:2197:127.0.0.1" -o /dev/null -X POST -d '{}' \
    "https://api.sandbox.push.apple.com:2197/3/device/$(printf '%064x' 1)"
done
scraped() {
  curl -sf 'http://127.0.0.1:9090/api/v1/query?query=sum(apnsim_sends_total)' \
    | "$python" -c 'import json,sys; r = json.load(sys.stdin)["data"]["result"]; sys.exit(0 if r and float(r[0]["value"][1]) >= 3 else 1)'
}
within 120 scraped || { compose --profile observability logs prometheus | tail -20; exit 1; }
say "Prometheus in the compose stack scraped gateway:8197 with the control token: $(curl -sf 'http://127.0.0.1:9090/api/v1/query?query=sum(apnsim_sends_total)' | grep -oE '"value":\[[^]]*\]')"

say "5. the channel-management ports answer, then compose down"
for port in 2195 2196; do
  code=$(curl -s --http2 --cacert Certs/ca.pem --resolve "api.sandbox.push.apple.com:$port:127.0.0.1" -o /dev/null -w '%{http_code}' \
    "https://api.sandbox.push.apple.com:$port/1/apps/com.example.app/all-channels")
  [[ "$code" =~ ^[1-5][0-9][0-9]$ ]] || { echo "nothing answered HTTP/2 on the published port $port"; exit 1; }
  echo "port $port: HTTP/2 answered $code"
done
down_began=$(date +%s%N)
compose --profile observability down -v -t 10 2>&1 | grep -v "^$" || true
down_ms=$(( ($(date +%s%N) - down_began) / 1000000 ))
say "compose down took $down_ms ms"
(( down_ms < 10000 )) || { echo "compose down took more than 10 s"; exit 1; }
left=$(podman ps -a --filter "label=com.docker.compose.project=$project" -q; podman network ls -q --filter "name=$project"; podman volume ls -q --filter "name=$project")
[[ -z "$left" ]] || { echo "left behind: $left"; exit 1; }
# A container's apnsim runs as `apnsim COMMAND` (found on PATH), its monitor as conmon naming the container.
if pgrep -f "^apnsim (gateway|device|media|up)|conmon.*${project}_" >/dev/null; then
  pgrep -af "^apnsim (gateway|device|media|up)|conmon.*${project}_"; echo "processes left behind"; exit 1
fi
say "compose check passed: nothing left behind"
