#!/usr/bin/env bash
# A stress check (not in swift test): 100,000 simulated devices across 4 device containers of the compose stack, as a
# team load-testing its provider would run them. The repository's docker-compose.yml, unchanged, with the device
# service scaled to CONTAINERS and APNSIM_DEVICE_COUNT devices in each (they share 4 links to the gateway per
# container, docs/device-link.md). Every device must link and register, then h2load on the host sends one push to
# each through the published port, and every one must be displayed. Prints how long each took and what each
# container used (podman stats), the figures docs/containers.md gives for sizing.
#
# Usage: bash Interop/compose_scale_check.sh PYTHON [DEVICES_PER_CONTAINER] [CONTAINERS]   (from the repository root;
#        default 25000 x 4; Interop/image.sh builds apnsim:latest first)
set -euo pipefail
cd "$(dirname "$0")/.."
python=$1 per_container=${2:-25000} containers=${3:-4}
total=$(( per_container * containers ))
source Interop/containers/podman.sh
ensure_podman >/dev/null
podman image exists apnsim:latest || bash Interop/image.sh
work=$(mktemp -d /tmp/apnsim-compose-scale.XXXXXX)
token=$(random_secret)
control=http://127.0.0.1:8197

source Interop/containers/compose.sh
source Benchmarks/lib.sh   # provider_jwt
export COMPOSE_PROJECT_NAME=apnsimscale APNSIM_CONTROL_TOKEN=$token APNSIM_DEVICE_COUNT=$per_container
cleanup() {
  compose down -v -t 10 >/dev/null 2>&1 || true
  compose_engine_stop
  rm -rf "$work"
}
trap cleanup EXIT
compose_engine "$work"
remove_leftovers apnsimscale apnsimcheck apnsim-run
ports_free 2197 8197

say "compose up: $containers device containers x $per_container devices"
compose up -d --scale device="$containers" >"$work/up.log" 2>&1 || { cat "$work/up.log"; exit 1; }
within 120 ready || { compose logs gateway | tail -20; why_unreachable "$control/readyz" "$(compose ps -q gateway)"; exit 1; }
registered() { # how many dev-… devices are online with their app registered
  curl -sf -H "Authorization: Bearer $token" "$control/v1/devices" > "$work/devices.json" || { echo 0; return; }
  "$python" -c 'import json, sys; print(sum(1 for d in json.load(open(sys.argv[1])) if d["id"].startswith("dev-") and d["online"] and d["apps"]))' "$work/devices.json"
}
linked_at=$(date +%s)
count=0
for _ in $(seq 200); do
  count=$(registered)
  say "$count of $total devices registered"
  (( count == total )) && break
  sleep 3
done
(( count == total )) || { echo "only $count of $total devices registered"; compose logs device | tail -20; exit 1; }
say "all $total registered in $(( $(date +%s) - linked_at )) s after the gateway was ready"
podman stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.CPUPerc}}' | sort | sed 's/^/  registered, idle: /'

"$python" -c '
import json, sys
for d in json.load(open(sys.argv[1])):
    if d["id"].startswith("dev-"): print("https://127.0.0.1:2197/3/device/" + d["apps"][0]["token"])' "$work/devices.json" > "$work/urls"
printf '{"aps":{"alert":{"title":"scale","body":"one for each device"}}}' > "$work/payload.json"
say "h2load: one push to each of the $total devices"
h2load_once "$work/urls" "$work/h2load.out" -d "$work/payload.json" -H "authorization: bearer $(provider_jwt)" \
  -H "apns-topic: com.example.app" -H "apns-push-type: alert"
grep -q "status codes: $total 2xx" "$work/h2load.out" || { cat "$work/h2load.out"; exit 1; }
completed() {
  curl -sf -H "Authorization: Bearer $token" "$control/v1/health" |
    "$python" -c 'import json, sys; h = json.load(sys.stdin); print(h["completedDeliveries"] + h["droppedDeliveries"])'
}
for _ in $(seq 120); do (( $(completed) >= total )) && break; sleep 1; done
(( $(completed) >= total )) || { echo "only $(completed) of $total pushes have an outcome"; exit 1; }
shown=$(curl -sf -H "Authorization: Bearer $token" "$control/v1/deliveries?limit=$(( total + 1 ))" |
  "$python" -c 'import json, sys; print(len({d["device"] for d in json.load(sys.stdin) if d.get("outcome") == "displayed"}))')
say "a push displayed on $shown of $total devices"
podman stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.CPUPerc}}' | sort | sed 's/^/  after the push: /'
# A process gives back what a burst freed within 5 s of its end (Allocator): what each holds then is what it needs.
sleep 10
podman stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.CPUPerc}}' | sort | sed 's/^/  10 s later: /'
(( shown == total ))
say "compose down"
