#!/usr/bin/env bash
# One host at scale: `apnsim device --count N` (default 10,000 devices in one process) against one release gateway.
# Prints how long until every device has registered, both processes' memory then, and after one push to each
# device has been displayed (h2load sends them; the gateway's record says when all have an outcome).
# The goal (issue 7): all registered within 60 s, gateway + devices under 1 GiB, every push displayed.
#
# Usage: Benchmarks/scale.sh [DEVICES]   (APNSIM_BIN=PATH measures that binary)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
devices=${1:-10000}
port=${APNSIM_BENCH_PORT:-22397}
control=${APNSIM_BENCH_CONTROL_PORT:-28397}
device_port=${APNSIM_BENCH_DEVICE_PORT:-25397}
scratch
need nghttp2-client:h2load openssl:openssl
ulimit -n "$(ulimit -Hn)"   # a connection per device on each side
apnsim=$(release_apnsim)

start_gateway "$port" "$control" "$device_port"
echo "$(stamp) gateway up: $(rss_mib $gateway) MiB; starting $devices devices"

start=$(date +%s.%N)
"$apnsim" device --count "$devices" --id scale --device-port "$device_port" --data "$work/devices" >"$work/devices.log" 2>&1 &
device=$!; pids+=($device)
registered=0
while (( registered < devices )); do
  sleep 1
  registered=$(grep -c "registered, token" "$work/devices.log" || true)
  kill -0 "$device" 2>/dev/null || { echo "the device process ended:"; tail -5 "$work/devices.log"; exit 1; }
  printf '\r%s %6d of %d registered, %5.1f s, gateway %4d MiB, devices %4d MiB' "$(stamp)" "$registered" "$devices" \
    "$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN {print n - s}')" "$(rss_mib $gateway)" "$(rss_mib $device)"
done
took=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
echo
registered_gateway=$(rss_mib $gateway); registered_devices=$(rss_mib $device)

grep "registered, token" "$work/devices.log" | awk -v p="$port" '{print "https://127.0.0.1:" p "/3/device/" $NF}' > "$work/urls"
printf '{"aps":{"alert":{"title":"scale","body":"one for each device"}}}' > "$work/payload.json"
echo "$(stamp) one push to each of the $devices devices"
h2load -i "$work/urls" -n "$devices" -c 10 -m 100 -d "$work/payload.json" -H "authorization: bearer $(provider_jwt)" \
  -H "apns-topic: com.example.app" -H "apns-push-type: alert" > "$work/h2load.out"
grep -q "status codes: $devices 2xx" "$work/h2load.out" || { cat "$work/h2load.out"; exit 1; }
displayed=0
for _ in $(seq 600); do
  displayed=$(curl -sf "http://127.0.0.1:$control/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["completedDeliveries"])')
  (( displayed >= devices )) && break
  sleep 0.1
done
shown=$(curl -sf "http://127.0.0.1:$control/v1/deliveries?limit=$((devices * 2))" | python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin) if d.get("outcome") == "displayed"))')

echo
printf 'devices                 %d in one process\n' "$devices"
printf 'all registered in       %s s (goal: 60 s)\n' "$took"
printf 'memory, registered      gateway %d MiB + devices %d MiB = %d MiB (goal: under 1024)\n' "$registered_gateway" "$registered_devices" $((registered_gateway + registered_devices))
printf 'memory, after the push  gateway %d MiB + devices %d MiB = %d MiB\n' "$(rss_mib $gateway)" "$(rss_mib $device)" $(( $(rss_mib $gateway) + $(rss_mib $device) ))
printf 'pushes displayed        %d of %d\n' "$shown" "$devices"
