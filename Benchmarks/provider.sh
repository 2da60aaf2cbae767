#!/usr/bin/env bash
# Provider-API throughput: h2load sends valid, JWT-authenticated pushes (10 connections x 100 streams) to the
# release build of apnsim (full validation and recording on), then the same load to a bare SwiftNIO HTTP/2 + TLS
# server answering 200 (Benchmarks/NIOReferenceServer), in turn for three rounds, and to nginx serving HTTP/2 + TLS,
# each with the same certificate, in the same run. Prints the rates and apnsim's ratio to each.
# (Benchmarks/instructions.sh counts the instructions a push costs each of apnsim and the SwiftNIO server.)
#
# Then a world of 1,000,000 tokens declared by count and seed (a world file's `tokenSets`) against a world of 100
# declared the same way, in the same run, the same pushes to each: how long the million take to load, and the ratio
# of the two rates (goal: within 5%, loaded within 10 s); and the million's rate with the load spread over 100,000
# of its tokens.
#
# Usage: Benchmarks/provider.sh [REQUESTS] [--store]   (from anywhere; default 200000 requests per run)
#        --store: the gateway keeps its record in a SQLite file, and answers 200 only once a push is committed to it
#        Benchmarks/provider.sh --cluster [REQUESTS [REPLICAS]]   (REPLICAS gateways on one PostgreSQL against one on a
#          SQLite file, durable answers on both sides: Benchmarks/store.sh; default 100000 requests, 3 replicas)
#        APNSIM_BIN=PATH Benchmarks/provider.sh   (measure that binary instead of building this tree)
#        APNSIM_BASELINE_BIN="[NAME=]PATH …" Benchmarks/provider.sh   (also: this build against each, in turn, three rounds
#          each (APNSIM_BENCH_ROUNDS), the same load: what a change costs the provider path. docs/metrics.md and docs/tracing.md measure
#          metrics and tracing-off against the build before them this way; goals: within 5% and 3%)
#        APNSIM_BENCH_WORLDS=0   (skip the 100-token and million-token worlds)
# Needs: h2load (Debian nghttp2-client), nginx (Debian nginx-light), openssl; installs them with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == --cluster ]]; then exec bash Benchmarks/store.sh "${2:-100000}" "${3:-3}"; fi
source Benchmarks/lib.sh
requests=200000
store_flag=()
for argument in "$@"; do
  if [[ "$argument" == --store ]]; then store_flag=(--store STORE); else requests=$argument; fi
done
connections=10
streams=100
dev_port=${APNSIM_BENCH_PORT:-22197}
control_port=${APNSIM_BENCH_CONTROL_PORT:-28197}
nginx_port=${APNSIM_BENCH_NGINX_PORT:-22443}
reference_port=${APNSIM_BENCH_REFERENCE_PORT:-22444}
scratch
need nghttp2-client:h2load nginx-light:nginx openssl:openssl
apnsim=$(release_apnsim)
(( ${#store_flag[@]} > 0 )) && store_flag=(--store "$work/store.sqlite")

# One valid token for the whole run, made by Apple's openssl recipe (DER signature).
jwt=$(provider_jwt)
printf '{"aps":{"alert":{"title":"bench","body":"a push from h2load"},"badge":1}}' > "$work/payload.json"

load() { # load URL -> prints requests per second
  h2load -n "$requests" -c "$connections" -m "$streams" -d "$work/payload.json" \
    -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
    -H "content-type: application/json" "$1" > "$work/h2load.out"
  grep -E "^requests:|^status codes:" "$work/h2load.out" >&2
  local ok; ok=$(awk '/^status codes:/{print $3}' "$work/h2load.out")
  if [[ "$ok" != "$requests" ]]; then echo "only $ok of $requests answered 2xx" >&2; cat "$work/h2load.out" >&2; exit 1; fi
  awk '/^finished in/{gsub(",","",$4); print $4}' "$work/h2load.out"
}

# apnsim: the sandbox world, in-memory store (every push recorded).
start_gateway "$dev_port" "$control_port" 0 "${store_flag[@]}"
token=$(world_token "$control_port")

# nginx: same certificate, HTTP/2 over TLS, answering 200 to the same POSTs.
start_nginx "$nginx_port"

# SwiftNIO's own HTTP/2 over TLS with the same certificate, answering 200 and nothing else
# (Benchmarks/NIOReferenceServer): what apnsim's own work costs over the libraries it is built on.
reference=$(release_reference)
"$reference" "$reference_port" Certs/gateway.pem Certs/gateway-key.pem >"$work/reference.log" 2>&1 &
pids+=($!)
wait_for "the SwiftNIO reference server" 10 curl -sfk --http2 -o /dev/null -X POST "https://127.0.0.1:$reference_port/3/device/x"

echo "warming up…"
requests_saved=$requests; requests=20000
load "https://127.0.0.1:$dev_port/3/device/$token" >/dev/null
load "https://127.0.0.1:$reference_port/3/device/$token" >/dev/null
load "https://127.0.0.1:$nginx_port/3/device/$token" >/dev/null
requests=$requests_saved

# apnsim and the reference in turn, APNSIM_BENCH_REFERENCE_ROUNDS rounds (3), so that a slow minute falls on both alike.
apnsim_rates=() reference_rates=()
for round in $(seq "${APNSIM_BENCH_REFERENCE_ROUNDS:-3}"); do
  echo "round $round: apnsim, then the SwiftNIO reference ($requests pushes each, $connections connections x $streams streams)"
  apnsim_rates+=("$(load "https://127.0.0.1:$dev_port/3/device/$token")")
  reference_rates+=("$(load "https://127.0.0.1:$reference_port/3/device/$token")")
done
echo "nginx (same load):"
nginx_rate=$(load "https://127.0.0.1:$nginx_port/3/device/$token")
recorded=$(curl -sf "http://127.0.0.1:$control_port/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sends"])')

python3 - "$recorded" "$nginx_rate" "$( (( ${#store_flag[@]} > 0 )) && echo ", a store file, 200 after commit")" \
  "${apnsim_rates[*]}" "${reference_rates[*]}" <<'PY'
import sys
recorded, nginx, store = sys.argv[1], float(sys.argv[2]), sys.argv[3]
apnsim, reference = [list(map(float, a.split())) for a in sys.argv[4:6]]
mean = lambda xs: sum(xs) / len(xs)
rates = lambda xs: ", ".join("%.0f" % x for x in xs)
print()
print("apnsim     %10.0f pushes/s  (%s; validated and recorded: %s sends in the record%s)" % (mean(apnsim), rates(apnsim), recorded, store))
print("SwiftNIO   %10.0f requests/s  (%s; HTTP/2 + TLS answering 200, nothing else)" % (mean(reference), rates(reference)))
print("nginx      %10.0f requests/s" % nginx)
print("ratio      %10.2f  (apnsim / SwiftNIO, means of rounds in turn; goal >= 0.85)" % (mean(apnsim) / mean(reference)))
print("ratio      %10.2f  (apnsim / nginx; goal >= 0.45)" % (mean(apnsim) / nginx))
PY

# This build against a baseline build, in turn, so that a slow minute of the machine falls on both alike.
if [[ -n "${APNSIM_BASELINE_BIN:-}" ]]; then
  kill "$gateway"; wait "$gateway" 2>/dev/null || true
  rate_of() { # rate_of BINARY -> prints its rate for the load (after a warm-up)
    local bin=$1 saved=$requests
    "$bin" gateway --development-port "$dev_port" --production-port 0 --control-port "$control_port" --device-port 0 \
      "${store_flag[@]}" >"$work/gateway-ab.log" 2>&1 &
    gateway=$!; pids+=("$gateway")
    wait_for "the gateway" 10 curl -sf "http://127.0.0.1:$control_port/v1/health"
    requests=20000; load "https://127.0.0.1:$dev_port/3/device/$token" >/dev/null; requests=$saved
    load "https://127.0.0.1:$dev_port/3/device/$token"
    kill "$gateway"; wait "$gateway" 2>/dev/null || true
  }
  # APNSIM_BASELINE_BIN: one binary, or NAME=PATH pairs separated by spaces, each measured in every round.
  read -r -a baselines <<< "$APNSIM_BASELINE_BIN"
  rates_file="$work/rates"
  : > "$rates_file"
  for round in $(seq "${APNSIM_BENCH_ROUNDS:-3}"); do
    echo "round $round: this build, then ${#baselines[@]} baseline(s)"
    echo "this $(rate_of "$apnsim")" >> "$rates_file"
    for baseline in "${baselines[@]}"; do
      name=${baseline%%=*}; [[ "$baseline" == *=* ]] || name=baseline
      echo "$name $(rate_of "${baseline#*=}")" >> "$rates_file"
    done
  done
  python3 - "$rates_file" <<'PY'
import sys
rates = {}
for line in open(sys.argv[1]):
    name, rate = line.split()
    rates.setdefault(name, []).append(float(rate))
mean = lambda xs: sum(xs) / len(xs)
this = rates.pop("this")
print()
print('%-16s %10.0f pushes/s  (%s)' % ("this build", mean(this), ', '.join('%.0f' % x for x in this)))
for name, base in rates.items():
    print('%-16s %10.0f pushes/s  (%s)' % (name, mean(base), ', '.join('%.0f' % x for x in base)))
for name, base in rates.items():
    print('ratio to %-7s %10.3f  (this / %s, means of rounds in turn; goals: >= 0.95 with metrics on, >= 0.97 with tracing off)'
          % (name, mean(this) / mean(base), name))
PY
  start_gateway "$dev_port" "$control_port" 0 "${store_flag[@]}"
fi
[[ "${APNSIM_BENCH_WORLDS:-1}" == 0 ]] && exit 0

# A world of 100 tokens and one of 1,000,000, both declared by count and seed 35 (so the hundred are the million's
# first hundred): the same load to the hundred in each, so that only the size of the world differs, in turn, two
# rounds. Then, in the world of a million, the load spread over 100,000 of its tokens, each twice: a campaign's
# pattern, where each request's path is new to the connection's HPACK table (the hundred's paths are indexed after
# their first use) and each token's entry is cold in the cache. Ten h2loads of one connection each, one per tenth of
# the tokens (h2load_spread): one h2load's ten connections would each start at the top of the list.
kill "$gateway"; wait "$gateway" 2>/dev/null || true

rates_with_tokens() { # rates_with_tokens COUNT SPREAD… -> prints "LOAD_SECONDS RATE…", a rate for the load over each SPREAD first tokens
  local count=$1 began loaded spread urls rates=(); shift
  sed "s|\.\./Certs/|$PWD/Certs/|" Scenarios/sandbox.yaml > "$work/world-$count.yaml"
  printf '\ntokenSets:\n  - {count: %d, seed: 35, bundleID: com.example.app, environment: development}\n' "$count" >> "$work/world-$count.yaml"
  began=$(date +%s.%N)
  "$apnsim" gateway --world "$work/world-$count.yaml" --development-port "$dev_port" --production-port 0 --control-port "$control_port" \
    --device-port 0 >"$work/gateway-$count.log" 2>&1 &
  gateway=$!; pids+=("$gateway")
  wait_for "the gateway with $count tokens" 60 curl -sf "http://127.0.0.1:$control_port/v1/health"
  loaded=$(awk -v s="$began" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
  local options=(-d "$work/payload.json" -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert")
  for spread in "$@"; do
    urls="$work/urls-$spread"
    "$apnsim" tokens --count "$spread" --seed 35 --url "https://127.0.0.1:$dev_port" > "$urls"
    h2load_spread "$urls" 20000 "$work/h2load.out" "${options[@]}"
    h2load_spread "$urls" "$requests" "$work/h2load.out" "${options[@]}"
    grep -q "^status codes: $requests 2xx" "$work/h2load.out" || { cat "$work/h2load.out" >&2; exit 1; }
    rates+=("$(awk '/^rate:/ {print $2}' "$work/h2load.out")")
  done
  kill "$gateway"; wait "$gateway" 2>/dev/null || true
  echo "$loaded ${rates[*]}"
}
mean() { awk -v a="$1" -v b="$2" 'BEGIN {print (a + b) / 2}'; }
read -r hundred_loaded hundred_1 < <(rates_with_tokens 100 100)
read -r million_loaded million_1 spread_1 < <(rates_with_tokens 1000000 100 100000)
read -r _ hundred_2 < <(rates_with_tokens 100 100)
read -r million_loaded_2 million_2 spread_2 < <(rates_with_tokens 1000000 100 100000)
hundred_rate=$(mean "$hundred_1" "$hundred_2")
million_rate=$(mean "$million_1" "$million_2")
spread_rate=$(mean "$spread_1" "$spread_2")
echo
printf 'world of 100 tokens        %10.0f pushes/s to its 100 tokens (%.0f, %.0f; up in %s s)\n' "$hundred_rate" "$hundred_1" "$hundred_2" "$hundred_loaded"
printf 'world of 1,000,000 tokens  %10.0f pushes/s to the same 100 (%.0f, %.0f; up in %s and %s s; goal: 10 s)\n' \
  "$million_rate" "$million_1" "$million_2" "$million_loaded" "$million_loaded_2"
python3 -c "print('ratio      %10.2f  (million / hundred, the same requests, the means of two rounds; goal >= 0.95)' % ($million_rate / $hundred_rate))"
printf 'world of 1,000,000 tokens  %10.0f pushes/s spread over 100,000 of them (%.0f, %.0f)\n' "$spread_rate" "$spread_1" "$spread_2"
python3 -c "print('ratio      %10.2f  (spread / hundred: new paths for HPACK, cold entries)' % ($spread_rate / $hundred_rate))"
