#!/usr/bin/env bash
# Soak: pushes at a fixed rate for a fixed time through the release gateway and 1,000 devices in one device process,
# sampling both processes' memory every 10 s. Prints each sample, then start, end and peak per process. With the
# record limits on (100,000 sends and deliveries by default), memory should level off once the record is full.
#
# Usage: Benchmarks/soak.sh [SECONDS] [PUSHES_PER_SECOND] [DEVICES]   (default 600 s at 2,000/s to 1,000 devices;
# APNSIM_BIN=PATH measures that binary)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
seconds=${1:-600}
rate=${2:-2000}
devices=${3:-1000}
clients=10
port=${APNSIM_BENCH_PORT:-22497}
control=${APNSIM_BENCH_CONTROL_PORT:-28497}
device_port=${APNSIM_BENCH_DEVICE_PORT:-25497}
scratch
need nghttp2-client:h2load openssl:openssl
apnsim=$(release_apnsim)

start_gateway "$port" "$control" "$device_port"
"$apnsim" device --count "$devices" --id soak --device-port "$device_port" --data "$work/devices" >"$work/devices.log" 2>&1 &
device=$!; pids+=($device)
wait_for "$devices devices registering" 60 bash -c "[[ \$(grep -c 'registered, token' '$work/devices.log') -ge $devices ]]"
grep "registered, token" "$work/devices.log" | awk -v p="$port" '{print "https://127.0.0.1:" p "/3/device/" $NF}' > "$work/urls"
printf '{"aps":{"alert":{"title":"soak","body":"steady load"},"badge":1}}' > "$work/payload.json"

echo "$(stamp) $rate pushes/s for $seconds s over $devices devices; memory every 10 s (MiB)"
h2load -i "$work/urls" -D "$seconds" -c "$clients" -m 10 --rps $((rate / clients)) -d "$work/payload.json" \
  -H "authorization: bearer $(provider_jwt)" -H "apns-topic: com.example.app" -H "apns-push-type: alert" > "$work/h2load.out" &
load=$!; pids+=($load)
samples="$work/samples"
elapsed=0
while kill -0 "$load" 2>/dev/null; do
  g=$(rss_mib $gateway); d=$(rss_mib $device)
  echo "$elapsed $g $d" >> "$samples"
  health=$(curl -sf "http://127.0.0.1:$control/v1/health" | python3 -c 'import json,sys; h=json.load(sys.stdin); print(h["sends"], h["droppedSends"], h["completedDeliveries"])')
  printf '%s  t=%4d s  gateway %4d  devices %4d  (record: sends kept, dropped, deliveries done: %s)\n' "$(stamp)" "$elapsed" "$g" "$d" "$health"
  sleep 10; elapsed=$((elapsed + 10))
done
wait "$load" || true
grep -E "^requests:|^status codes:" "$work/h2load.out"
echo
awk '{ if (NR == 1) {gs=$2; ds=$3} ge=$2; de=$3; if ($2 > gp) gp=$2; if ($3 > dp) dp=$3 }
     END { printf "gateway  start %4d  end %4d  peak %4d MiB\ndevices  start %4d  end %4d  peak %4d MiB\n", gs, ge, gp, ds, de, dp }' "$samples"
# Flat means: after the first minute, each process stays within a few MiB of where it was then.
awk '$1 >= 60 { if (!n++) {gl=gh=$2; dl=dh=$3} if ($2 < gl) gl=$2; if ($2 > gh) gh=$2; if ($3 < dl) dl=$3; if ($3 > dh) dh=$3 }
     END { if (n) printf "after the first minute: gateway %d–%d MiB, devices %d–%d MiB (%d samples)\n", gl, gh, dl, dh, n }' "$samples"
