#!/usr/bin/env bash
# A million devices on one machine (docs/cluster.md, "Scale"): REPLICAS gateways on one PostgreSQL (Debian's, started
# here by Interop/postgres.sh) and PROCESSES device processes sharing DEVICES between them, every process given every
# replica (`--gateway`, each of its links goes to one). Prints how long until every device has registered, the memory of
# the gateways, the device processes and PostgreSQL then, and again once one push to each device, a third through each
# replica (h2load), has been displayed. PostgreSQL's figure is its processes' proportional share (Pss, /proc), so its
# shared buffers count once.
# The goal (issue 61): 1,000,000 devices registered within 180 s; gateways + devices within 10 GiB; every push displayed.
#
# Usage: Benchmarks/cluster_scale.sh [DEVICES] [PROCESSES] [REPLICAS]   (default 1000000 4 3)
#        APNSIM_BIN=PATH Benchmarks/cluster_scale.sh   (measure that binary instead of building this tree: it needs the
#        PostgreSQL trait, as the image's binary has)
# Needs: h2load (Debian nghttp2-client), PostgreSQL (Debian postgresql), openssl; installs them with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
devices=${1:-1000000}
processes=${2:-4}
replicas=${3:-3}
each=$((devices / processes))
(( each * processes == devices )) || { echo "$devices devices do not split evenly over $processes processes" >&2; exit 1; }
scratch
need nghttp2-client:h2load openssl:openssl curl:curl
ulimit -n "$(ulimit -Hn)"
apnsim=$(release_apnsim)

start_postgres "${APNSIM_BENCH_PG_PORT:-25433}"

postgres_mib() { # PostgreSQL's memory: the proportional share (Pss) of its server and every connection's process, in MiB
  local server; server=$(head -1 "$pg/data/postmaster.pid")
  for process in "$server" $(pgrep -P "$server"); do awk '/^Pss:/ {print $2}' "/proc/$process/smaps_rollup" 2>/dev/null || true; done \
    | awk '{s += $1} END {printf "%.0f", s / 1024}'
}
sum_mib() { local total=0 pid; for pid in "$@"; do total=$((total + $(rss_mib "$pid"))); done; echo "$total"; }

# The replicas: provider port 2240N, control 2840N, device link 2540N.
gateways=() links=()
for replica in $(seq "$replicas"); do
  APNSIM_STORE=$address start_gateway $((22400 + replica)) $((28400 + replica)) $((25400 + replica)) --replica "r$replica"
  gateways+=("$gateway")
  links+=(--gateway "127.0.0.1:$((25400 + replica))")
  mv "$work/gateway.log" "$work/gateway-$replica.log"
done
gateways_base=$(sum_mib "${gateways[@]}")
echo "$(stamp) $replicas replicas up ($gateways_base MiB); starting $processes device processes of $each devices"

start=$(date +%s.%N)
device_pids=()
for process in $(seq "$processes"); do
  "$apnsim" device --count "$each" --links 4 --id "p$process" "${links[@]}" --data "$work/devices-$process" \
    >"$work/devices-$process.log" 2>&1 &
  device_pids+=($!); pids+=($!)
done
registered=0
while (( registered < devices )); do
  sleep 2
  registered=0
  for process in $(seq "$processes"); do
    registered=$((registered + $(grep -c "registered, token" "$work/devices-$process.log" || true)))
    kill -0 "${device_pids[$((process - 1))]}" 2>/dev/null || { echo "device process $process ended:"; tail -5 "$work/devices-$process.log"; exit 1; }
  done
  elapsed=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN {printf "%.0f", n - s}')
  printf '\r%s %7d of %d registered, %4d s, gateways %5d MiB, devices %5d MiB, PostgreSQL %5d MiB' "$(stamp)" "$registered" "$devices" \
    "$elapsed" "$(sum_mib "${gateways[@]}")" "$(sum_mib "${device_pids[@]}")" "$(postgres_mib)"
  (( elapsed < 900 )) || { echo; echo "not all registered within 900 s"; exit 1; }
done
took=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
echo
registered_gateways=$(sum_mib "${gateways[@]}"); registered_devices=$(sum_mib "${device_pids[@]}"); registered_postgres=$(postgres_mib)
per_replica() { local replica; for replica in $(seq "$replicas"); do
  curl -sf "http://127.0.0.1:$((28400 + replica))/metrics" | awk -v r="r$replica" '$1 == "apnsim_devices_online{replica=\"" r "\"}" {printf "%s %d  ", r, $2}'
done; }
echo "$(stamp) devices linked: $(per_replica)"

# One push to each device, a third of the devices through each replica (most of them linked to another).
grep -h "registered, token" "$work"/devices-*.log | awk '{print $NF}' > "$work/tokens"
for replica in $(seq "$replicas"); do
  awk -v n="$replicas" -v r="$replica" -v p=$((22400 + replica)) 'NR % n == r - 1 {print "https://127.0.0.1:" p "/3/device/" $0}' \
    "$work/tokens" > "$work/urls-$replica"
done
printf '{"aps":{"alert":{"title":"scale","body":"one for each device"}}}' > "$work/payload.json"
jwt=$(provider_jwt)
displayed() { # displayed deliveries, summed over the replicas' /metrics
  local replica; for replica in $(seq "$replicas"); do curl -sf "http://127.0.0.1:$((28400 + replica))/metrics"; done \
    | awk '/^apnsim_deliveries_total\{.*outcome="displayed"/ {s += $2} END {printf "%d", s}'
}
shown_before=$(displayed)
echo "$(stamp) one push to each of the $devices devices, a third through each replica"
pushed_at=$(date +%s.%N)
sending=()
for replica in $(seq "$replicas"); do
  h2load_once "$work/urls-$replica" "$work/h2load-$replica.out" -d "$work/payload.json" -H "authorization: bearer $jwt" \
    -H "apns-topic: com.example.app" -H "apns-push-type: alert" &
  sending+=($!)
done
wait "${sending[@]}"
answered=$(awk 'FNR == 1 {s += $3} END {print s}' "$work"/h2load-*.out)
answered_in=$(awk -v s="$pushed_at" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
echo "$(stamp) $answered of $devices answered 2xx in $answered_in s"
shown=0
for _ in $(seq 600); do
  shown=$(( $(displayed) - shown_before ))
  printf '\r%s %7d displayed' "$(stamp)" "$shown"
  (( shown >= devices )) && break
  sleep 1
done
displayed_in=$(awk -v s="$pushed_at" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
echo
pushed_gateways=$(sum_mib "${gateways[@]}"); pushed_devices=$(sum_mib "${device_pids[@]}"); pushed_postgres=$(postgres_mib)

per_device() { awk -v m="$1" -v n="$devices" 'BEGIN {printf "%.2f", m * 1024 / n}'; }
echo
printf 'devices                 %d in %d processes, %d replicas on PostgreSQL\n' "$devices" "$processes" "$replicas"
printf 'all registered in       %s s (goal: 180 s)\n' "$took"
printf 'memory, registered      gateways %d MiB + devices %d MiB = %d MiB (goal: 10240); PostgreSQL %d MiB beside them\n' \
  "$registered_gateways" "$registered_devices" $((registered_gateways + registered_devices)) "$registered_postgres"
printf 'per device, registered  gateways %s KiB (beyond their %d MiB before), devices %s KiB\n' \
  "$(per_device $((registered_gateways - gateways_base)))" "$gateways_base" "$(per_device "$registered_devices")"
printf 'pushes                  %d answered 2xx in %s s; %d displayed, %s s after the first was sent\n' "$answered" "$answered_in" "$shown" "$displayed_in"
printf 'memory, after the push  gateways %d MiB + devices %d MiB = %d MiB; PostgreSQL %d MiB\n' \
  "$pushed_gateways" "$pushed_devices" $((pushed_gateways + pushed_devices)) "$pushed_postgres"
(( answered == devices && shown >= devices ))
