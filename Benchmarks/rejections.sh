#!/usr/bin/env bash
# What a rejection costs next to an acceptance: h2load sends the same pushes to the release gateway three ways,
# valid (200), with no authorization header (403 MissingProviderToken: the connection keeps Apple's one stream
# until a valid token, so each request waits for the previous answer) and to a malformed token with a valid JWT
# (400 BadDeviceToken, on a connection with its full stream allowance); then all three again with one stream per
# connection, so the three paths are compared at the same concurrency. Prints each rate and the gateway's CPU
# time per request.
#
# Usage: Benchmarks/rejections.sh [REQUESTS]   (default 50000 per line; APNSIM_BIN=PATH measures that binary)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
requests=${1:-50000}
port=${APNSIM_BENCH_PORT:-22297}
control=${APNSIM_BENCH_CONTROL_PORT:-28297}
scratch
need nghttp2-client:h2load openssl:openssl
apnsim=$(release_apnsim)
start_gateway "$port" "$control" 0
token=$(world_token "$control")
jwt=$(provider_jwt)
printf '{"aps":{"alert":{"title":"bench","body":"a push from h2load"},"badge":1}}' > "$work/payload.json"

line() { # line LABEL STREAMS PATH HEADER… — one h2load run; prints rate, answers and CPU per request
  local label=$1 streams=$2 path=$3; shift 3
  local before after
  before=$(cpu_seconds "$gateway")
  h2load -n "$requests" -c 10 -m "$streams" -d "$work/payload.json" "$@" "https://127.0.0.1:$port$path" > "$work/h2load.out"
  after=$(cpu_seconds "$gateway")
  awk -v label="$label" -v streams="$streams" -v before="$before" -v after="$after" -v n="$requests" '
    /^finished in/ {gsub(",", "", $4); rate=$4}
    /^status codes:/ {codes=$3 " 2xx, " $7 " 4xx"}
    END {printf "%-28s %4d streams  %9.0f req/s  %-20s  %6.1f µs CPU per request\n", label, streams, rate, codes, (after - before) * 1e6 / n}' "$work/h2load.out"
}

auth=(-H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert")
for streams in 100 1; do
  line "accepted (200)" "$streams" "/3/device/$token" "${auth[@]}"
  line "no authorization (403)" "$streams" "/3/device/$token" -H "apns-topic: com.example.app" -H "apns-push-type: alert"
  line "bad device token (400)" "$streams" "/3/device/abcd" "${auth[@]}"
done
