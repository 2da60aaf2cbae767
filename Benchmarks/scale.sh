#!/usr/bin/env bash
# One host at scale: `apnsim device --count N` (default 10,000 devices in one process) against one release gateway.
# Prints how long until every device has registered, both processes' memory then (and per device), after one push to
# each device has been displayed (h2load sends them; the gateway's record says when all have an outcome), and after a
# broadcast to an activity on every device: each device's app starts one subscribed to a channel by a push-to-start
# push (h2load again), then one broadcast on the channel reaches them all. Memory is read when each step is done, before
# the listings the script checks with (all deliveries, devices and activities at once), and once more after them.
# The goal (issue 35): 100,000 devices over shared links all registered within 60 s, gateway + devices within
# 1.5 GiB, every push and the broadcast displayed; with a link per device (APNSIM_DEVICE_LINKS=0), 10,000.
#
# Usage: Benchmarks/scale.sh [DEVICES]   (APNSIM_BIN=PATH measures that binary; APNSIM_DEVICE_LINKS=0: a link per device)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
devices=${1:-10000}
port=${APNSIM_BENCH_PORT:-22397}
manage=${APNSIM_BENCH_MANAGE_PORT:-22395}
control=${APNSIM_BENCH_CONTROL_PORT:-28397}
device_port=${APNSIM_BENCH_DEVICE_PORT:-25397}
links=${APNSIM_DEVICE_LINKS:-4}
scratch
need nghttp2-client:h2load openssl:openssl curl:curl
ulimit -n "$(ulimit -Hn)"   # with a link per device, a connection per device on each side
apnsim=$(release_apnsim)

start_gateway "$port" "$control" "$device_port" --development-management-port "$manage"
gateway_base=$(rss_mib $gateway)
echo "$(stamp) gateway up: $gateway_base MiB; starting $devices devices ($([[ $links == 0 ]] && echo "a link each" || echo "sharing $links links"))"

# Deliveries with an outcome, counting those the record has let go (it keeps the newest 100,000; the oldest go first).
completed() { curl -sf "http://127.0.0.1:$control/v1/health" | python3 -c 'import json,sys; h = json.load(sys.stdin); print(h["completedDeliveries"] + h["droppedDeliveries"])'; }
wait_completed() { # wait_completed COUNT — until the record has COUNT completed deliveries, at most 120 s
  for _ in $(seq 1200); do (( $(completed) >= $1 )) && return 0; sleep 0.1; done
  echo "only $(completed) of $1 deliveries completed within 120 s"; exit 1
}

types='[{"name":"DeliveryAttributes","attributes":{"orderID":"String"},"contentState":{"status":"String","etaMinutes":"Int"}}]'
# What a device process weighs with one device: the base the per-device figure leaves out.
"$apnsim" device --id base --ephemeral --device-port "$device_port" --activity-types "com.example.app:$types" >"$work/base.log" 2>&1 &
base=$!; pids+=($base)
wait_for "the one-device process" 30 grep -q "registered, token" "$work/base.log"
device_base=$(rss_mib $base)
kill "$base"; wait "$base" 2>/dev/null || true
gateway_base=$(rss_mib $gateway)

start=$(date +%s.%N)
"$apnsim" device --count "$devices" --links "$links" --id scale --device-port "$device_port" --data "$work/devices" \
  --activity-types "com.example.app:$types" >"$work/devices.log" 2>&1 &
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
jwt=$(provider_jwt)
h2load_once "$work/urls" "$work/h2load.out" -d "$work/payload.json" -H "authorization: bearer $jwt" \
  -H "apns-topic: com.example.app" -H "apns-push-type: alert"
grep -q "status codes: $devices 2xx" "$work/h2load.out" || { cat "$work/h2load.out"; exit 1; }
wait_completed "$devices"
pushed_gateway=$(rss_mib $gateway); pushed_devices=$(rss_mib $device)  # before the listings below, which cost their own
# Devices with a displayed push, not displayed pushes: each device is to get one.
shown=$(curl -sf "http://127.0.0.1:$control/v1/deliveries?limit=$((devices * 2))" | python3 -c 'import json,sys; print(len({d["device"] for d in json.load(sys.stdin) if d.get("outcome") == "displayed"}))')

echo "$(stamp) a channel, and an activity subscribed to it on each device (a push-to-start push to each)"
channel=$(curl -sS --http2 --cacert Certs/ca.pem -D - -o /dev/null -X POST "https://127.0.0.1:$manage/1/apps/com.example.app/channels" \
  -H "authorization: bearer $jwt" -d '{"message-storage-policy":0,"push-type":"LiveActivity"}' \
  | awk 'tolower($1) == "apns-channel-id:" {print $2}' | tr -d '\r')
[[ -n "$channel" ]] || { echo "no channel was created"; exit 1; }
curl -sf "http://127.0.0.1:$control/v1/devices" | python3 -c '
import json, sys
for device in json.load(sys.stdin):
    for app in device["apps"] if device["id"].startswith("scale-") else []:
        token = (app.get("pushToStartTokens") or {}).get("DeliveryAttributes")
        if token: print(f"https://127.0.0.1:'"$port"'/3/device/{token}")' > "$work/start-urls"
(( $(wc -l < "$work/start-urls") == devices )) || { echo "$(wc -l < "$work/start-urls") push-to-start tokens for $devices devices"; exit 1; }
printf '{"aps":{"timestamp":%d,"event":"start","attributes-type":"DeliveryAttributes","attributes":{"orderID":"A-1"},"content-state":{"status":"packed","etaMinutes":40},"alert":{"title":"Order","body":"Packed"},"input-push-channel":"%s"}}' \
  "$(date +%s)" "$channel" > "$work/start.json"
h2load_once "$work/start-urls" "$work/h2load-start.out" -d "$work/start.json" -H "authorization: bearer $jwt" \
  -H "apns-topic: com.example.app.push-type.liveactivity" -H "apns-push-type: liveactivity"
grep -q "status codes: $devices 2xx" "$work/h2load-start.out" || { cat "$work/h2load-start.out"; exit 1; }
wait_completed $((devices * 2))

echo "$(stamp) one broadcast to the $devices activities"
apns_id=$(python3 -c 'import uuid; print(uuid.uuid4())')
began=$(date +%s.%N)
status=$(curl -sS --http2 --cacert Certs/ca.pem -o "$work/broadcast.out" -w '%{http_code}' -X POST \
  "https://127.0.0.1:$port/4/broadcasts/apps/com.example.app" -H "authorization: bearer $jwt" -H "apns-channel-id: $channel" \
  -H "apns-push-type: LiveActivity" -H "apns-priority: 10" -H "apns-id: $apns_id" -H "apns-expiration: 0" \
  -d "{\"aps\":{\"event\":\"update\",\"timestamp\":$(( $(date +%s) + 10 )),\"content-state\":{\"status\":\"out for delivery\",\"etaMinutes\":5}}}")
[[ "$status" == 200 ]] || { echo "the broadcast was answered $status: $(cat "$work/broadcast.out")"; exit 1; }
wait_completed $((devices * 3))
broadcast_took=$(awk -v s="$began" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
end_gateway=$(rss_mib $gateway); end_devices=$(rss_mib $device)
sleep 10  # what the processes hold once their work is done: each gives back what it freed every 5 s (Allocator)
settled_gateway=$(rss_mib $gateway); settled_devices=$(rss_mib $device)
# Devices whose activity took the broadcast: each device has one.
applied=$(curl -sf "http://127.0.0.1:$control/v1/activities?channel=$channel" | python3 -c 'import json,sys; print(len({a["device"] for a in json.load(sys.stdin) if a["contentState"].get("status") == "out for delivery"}))')

per_device() { awk -v m="$1" -v n="$devices" 'BEGIN {printf "%.1f", m * 1024 / n}'; }
echo
printf 'devices                 %d in one process, %s\n' "$devices" "$([[ $links == 0 ]] && echo "a link each" || echo "sharing $links links")"
printf 'all registered in       %s s (goal: 60 s)\n' "$took"
printf 'memory, registered      gateway %d MiB + devices %d MiB = %d MiB (goal: 1536)\n' "$registered_gateway" "$registered_devices" $((registered_gateway + registered_devices))
printf 'per device, registered  gateway %s KiB (beyond its %d MiB before them), device process %s KiB (beyond the %d MiB of a process with one)\n' \
  "$(per_device $((registered_gateway - gateway_base)))" "$gateway_base" "$(per_device $((registered_devices - device_base)))" "$device_base"
printf 'memory, after the push  gateway %d MiB + devices %d MiB = %d MiB\n' "$pushed_gateway" "$pushed_devices" $((pushed_gateway + pushed_devices))
printf 'pushes displayed        on %d of %d devices\n' "$shown" "$devices"
printf 'broadcast applied       on the activity of %d of %d devices, %s s after it was sent\n' "$applied" "$devices" "$broadcast_took"
printf 'memory, at the end      gateway %d MiB + devices %d MiB = %d MiB\n' "$end_gateway" "$end_devices" $((end_gateway + end_devices))
printf 'memory, 10 s later      gateway %d MiB + devices %d MiB = %d MiB (goal: 1536)\n' "$settled_gateway" "$settled_devices" $((settled_gateway + settled_devices))
printf 'per device, then        gateway %s KiB, device process %s KiB (a push, an activity and a broadcast to it)\n' \
  "$(per_device $((settled_gateway - gateway_base)))" "$(per_device $((settled_devices - device_base)))"
printf 'after listing them      gateway %d MiB + devices %d MiB (GET /v1/deliveries, /v1/devices, /v1/activities of them all)\n' \
  "$(rss_mib $gateway)" "$(rss_mib $device)"
(( shown == devices && applied == devices ))
