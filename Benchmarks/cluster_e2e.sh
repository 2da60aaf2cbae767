#!/usr/bin/env bash
# Send-to-display on the cluster path against one gateway, in the same run (`Benchmarks/e2e.sh --cluster`): h2load sends
# PUSHES valid pushes (10 connections x 100 streams) over 100 simulated devices in one `apnsim device --count 100`
# process, first to one gateway on a SQLite file, then to REPLICAS gateways on one PostgreSQL (Debian's, started here by
# Interop/postgres.sh) with the devices' links spread over them and the pushes a 1/REPLICAS through each (so most reach
# their device through another replica: a hand-off). Both answer 200 only once a push is committed. Waits until every
# push has a displayed record and prints, for each, pushes per second from the first accepted to the last displayed,
# the accepted-to-displayed p50 and p99, and the CPU a push of the gateways, the devices and PostgreSQL (/proc); then
# the cluster's rate over one gateway's.
#
# Usage: Benchmarks/cluster_e2e.sh [PUSHES] [REPLICAS]   (default 20000 and 3)
#        APNSIM_BIN=PATH Benchmarks/cluster_e2e.sh   (measure that binary instead of building this tree: it needs the
#        PostgreSQL trait, as the image's binary has)
#        APNSIM_BENCH_KEEP=1   (on a push refused or not completed: print the refused sends or the records without an
#        outcome, and keep the gateways, devices and PostgreSQL running to look at, until the script is stopped)
# Needs: h2load (Debian nghttp2-client), PostgreSQL (Debian postgresql), openssl; installs them with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
replicas=${2:-3}
pushes=$(( ${1:-20000} / replicas * replicas ))  # as many through each replica
warm=$(( 2000 / replicas * replicas ))
devices=100
scratch
need nghttp2-client:h2load openssl:openssl curl:curl
apnsim=$(release_apnsim)
jwt=$(provider_jwt)
printf '{"aps":{"alert":{"title":"bench","body":"send to display"},"badge":1}}' > "$work/payload.json"

start_postgres "${APNSIM_BENCH_PG_PORT:-25434}"

sum_cpu() { local total=0 pid; for pid in "$@"; do total=$(awk -v t="$total" -v c="$(cpu_seconds "$pid")" 'BEGIN {print t + c}'); done; echo "$total"; }

# run NAME PROVIDER_PORTS CONTROL_PORT LINK_FLAGS… — starts the devices on the gateways' links, waits until all are
# registered, sends the pushes spread over the provider ports, waits until all are displayed, and writes
# "$work/NAME.deliveries" (the record) and "$work/NAME.cpu" (gateways' devices' PostgreSQL's CPU seconds for the load).
run() {
  local name=$1 ports=$2 control=$3; shift 3
  "$apnsim" device --count "$devices" --id "$name" --links "$replicas" "$@" --data "$work/devices-$name" >"$work/devices-$name.log" 2>&1 &
  local device=$!; pids+=("$device")
  for _ in $(seq 600); do
    (( $(grep -c "registered, token" "$work/devices-$name.log" || true) >= devices )) && break
    sleep 0.1
  done
  (( $(grep -c "registered, token" "$work/devices-$name.log" || true) >= devices )) || { echo "$name: not all $devices devices registered" >&2; exit 1; }
  grep -h "registered, token" "$work/devices-$name.log" | awk '{print $NF}' > "$work/$name.tokens"
  local port part=0 count running=() gateways_before devices_before server_before
  read -r -a ports <<< "$ports"
  count=${#ports[@]}
  for port in "${ports[@]}"; do
    awk -v n="$count" -v i="$part" -v p="$port" 'NR % n == i {print "https://127.0.0.1:" p "/3/device/" $0}' "$work/$name.tokens" > "$work/$name.urls-$part"
    part=$((part + 1))
  done
  send() { # send N — N pushes, N/count through each gateway, all at once; fails unless all are answered 200
    local n=$1 i
    running=()
    for i in $(seq 0 $((count - 1))); do
      h2load -i "$work/$name.urls-$i" -n $((n / count)) -c 10 -m 100 -d "$work/payload.json" -H "authorization: bearer $jwt" \
        -H "apns-topic: com.example.app" -H "apns-push-type: alert" > "$work/$name.h2load-$i" &
      running+=($!)
    done
    wait "${running[@]}"
    for i in $(seq 0 $((count - 1))); do
      grep -q "status codes: $((n / count)) 2xx" "$work/$name.h2load-$i" || { grep -E "^(requests|status codes):" "$work/$name.h2load-$i" >&2; refused; exit 1; }
    done
  }
  completed() { curl -sf "http://127.0.0.1:$control/v1/health" | sed -n 's/.*"completedDeliveries":\([0-9]*\).*/\1/p'; }
  until_completed() { local _; for _ in $(seq 1200); do (( $(completed) >= $1 )) && return; sleep 0.25; done; echo "$name: only $(completed) of $1 completed" >&2; incomplete; exit 1; }
  refused() { curl -sf "http://127.0.0.1:$control/v1/sends?limit=100000" | python3 -c 'import json,sys; [print(json.dumps(r)) for r in json.load(sys.stdin) if r["status"] != 200]' >&2; [[ -z "${APNSIM_BENCH_KEEP:-}" ]] || { echo "kept: $work" >&2; sleep 100000; }; }
  incomplete() { curl -sf "http://127.0.0.1:$control/v1/deliveries?limit=100000" | python3 -c 'import json,sys; [print(json.dumps(r)) for r in json.load(sys.stdin) if not r.get("outcome")]' >&2; [[ -z "${APNSIM_BENCH_KEEP:-}" ]] || { echo "kept: $work" >&2; sleep 100000; }; }
  send "$warm"; until_completed "$warm"  # warming up: connections, tokens in the caches
  curl -sf -X POST "http://127.0.0.1:$control/v1/reset" >/dev/null
  gateways_before=$(sum_cpu "${gateway_pids[@]}"); devices_before=$(sum_cpu "$device"); server_before=$(postgres_cpu "$pg")
  send "$pushes"
  until_completed "$pushes"
  echo "$(awk -v a="$(sum_cpu "${gateway_pids[@]}")" -v b="$gateways_before" 'BEGIN {print a - b}')" \
       "$(awk -v a="$(sum_cpu "$device")" -v b="$devices_before" 'BEGIN {print a - b}')" \
       "$(awk -v a="$(postgres_cpu "$pg")" -v b="$server_before" 'BEGIN {print a - b}')" > "$work/$name.cpu"
  curl -sf "http://127.0.0.1:$control/v1/deliveries?limit=$((pushes * 2))" > "$work/$name.deliveries"
  kill "$device"; wait "$device" 2>/dev/null || true
}

echo "$(stamp) one gateway on a SQLite file: $pushes pushes over $devices devices"
start_gateway 22500 28500 25500 --store "$work/store.sqlite"
gateway_pids=("$gateway")
run single 22500 28500 --gateway 127.0.0.1:25500
kill "$gateway"; wait "$gateway" 2>/dev/null || true

echo "$(stamp) $replicas gateways on PostgreSQL: $pushes pushes over $devices devices, a 1/$replicas through each replica"
gateway_pids=() links=() ports=()
for replica in $(seq "$replicas"); do
  APNSIM_STORE=$address start_gateway $((22500 + replica)) $((28500 + replica)) $((25500 + replica)) --replica "r$replica"
  mv "$work/gateway.log" "$work/gateway-$replica.log"
  gateway_pids+=("$gateway"); links+=(--gateway "127.0.0.1:$((25500 + replica))"); ports+=($((22500 + replica)))
done
run cluster "${ports[*]}" 28501 "${links[@]}"

python3 - "$pushes" "$replicas" "$work/single.deliveries" "$work/single.cpu" "$work/cluster.deliveries" "$work/cluster.cpu" <<'PY'
import json, sys
from datetime import datetime
pushes, replicas = int(sys.argv[1]), int(sys.argv[2])
t = lambda s: datetime.fromisoformat(s).timestamp()

def figures(path, cpu):
    shown = [r for r in json.load(open(path)) if r.get("outcome") == "displayed"]
    assert len(shown) == pushes, f"{path}: {len(shown)} of {pushes} pushes were displayed"
    latencies = sorted((t(r["displayedAt"]) - t(r["acceptedAt"])) * 1000 for r in shown)
    span = max(t(r["displayedAt"]) for r in shown) - min(t(r["acceptedAt"]) for r in shown)
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    gateways, devices, server = (float(x) / pushes * 1e6 for x in open(cpu).read().split())
    return pushes / span, pick(0.5), pick(0.99), gateways, devices, server

single, cluster = figures(sys.argv[3], sys.argv[4]), figures(sys.argv[5], sys.argv[6])
print()
for name, (rate, p50, p99, gateways, devices, server) in (("one gateway", single), (f"{replicas} replicas", cluster)):
    print(f"{name:12} {rate:8.0f} pushes/s sent to displayed  (p50 {p50:.1f} ms, p99 {p99:.1f} ms; CPU a push: gateways "
          f"{gateways:.1f} µs, devices {devices:.1f} µs, PostgreSQL {server:.1f} µs)")
print(f"ratio        {cluster[0] / single[0]:8.2f}  ({replicas} replicas on PostgreSQL / one gateway on SQLite, both 200 after commit; "
      f"{pushes} pushes over 100 devices, every one displayed)")
PY
