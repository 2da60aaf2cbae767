#!/usr/bin/env bash
# What a durable store costs the provider path: h2load sends valid pushes (10 connections x 100 streams) to a gateway
# on a SQLite file, then to REPLICAS gateways on one PostgreSQL (Debian's, started here by Interop/postgres.sh), the
# load spread evenly over them, in turn for three rounds; both answer 200 only once a push is committed. Prints the
# rates, their ratio (docs/cluster.md: goal >= 0.5 with 3 replicas), and the CPU each side spent a push: the gateways'
# and PostgreSQL's (its server and every connection's process, /proc).
#
# Usage: Benchmarks/store.sh [REQUESTS] [REPLICAS]   (default 100000 requests a run, 1 replica)
#        APNSIM_BIN=PATH Benchmarks/store.sh   (measure that binary instead of building this tree)
# Needs: h2load (Debian nghttp2-client), PostgreSQL (Debian postgresql), openssl; installs them with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
requests=${1:-100000}
replicas=${2:-1}
connections=10
streams=100
scratch
need nghttp2-client:h2load openssl:openssl
apnsim=$(release_apnsim)
jwt=$(provider_jwt)
printf '{"aps":{"alert":{"title":"bench","body":"a push from h2load"},"badge":1}}' > "$work/payload.json"

start_postgres "${APNSIM_BENCH_PG_PORT:-25432}"

# The gateways: one on a SQLite file, REPLICAS on PostgreSQL, each with its own ports (provider 2230N, control 2830N).
start_gateway 22300 28300 0 --store "$work/store.sqlite"
sqlite_gateway=$gateway
postgres_gateways=()
for replica in $(seq "$replicas"); do
  APNSIM_STORE=$address start_gateway $((22300 + replica)) $((28300 + replica)) 0
  postgres_gateways+=("$gateway")
done
token=$(world_token 28300)

load() { # load PORT… -> the pushes answered a second, REQUESTS spread over the gateways on PORTs, all at once
  local each=$((requests / $#)) started ended
  started=$(date +%s.%N)
  local runs=()
  for port in "$@"; do
    h2load -n "$each" -c "$connections" -m "$streams" -d "$work/payload.json" \
      -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
      -H "content-type: application/json" "https://127.0.0.1:$port/3/device/$token" > "$work/h2load-$port.out" &
    runs+=($!)
  done
  for run in "${runs[@]}"; do wait "$run"; done
  ended=$(date +%s.%N)
  for port in "$@"; do
    local ok; ok=$(awk '/^status codes:/{print $3}' "$work/h2load-$port.out")
    if [[ "$ok" != "$each" ]]; then echo "port $port: only $ok of $each answered 2xx" >&2; cat "$work/h2load-$port.out" >&2; exit 1; fi
  done
  python3 -c "print('%.0f' % ($each * $# / ($ended - $started)))"
}

postgres_ports=()
for replica in $(seq "$replicas"); do postgres_ports+=($((22300 + replica))); done
echo "warming up…"
saved=$requests; requests=10000
load 22300 >/dev/null
load "${postgres_ports[@]}" >/dev/null
requests=$saved

sqlite_rates=() postgres_rates=()
sqlite_cpu=0 gateways_cpu=0 server_cpu=0
for round in $(seq "${APNSIM_BENCH_ROUNDS:-3}"); do
  echo "round $round: a gateway on SQLite, then $replicas on PostgreSQL ($requests pushes each)"
  before=$(cpu_seconds "$sqlite_gateway")
  sqlite_rates+=("$(load 22300)")
  sqlite_cpu=$(python3 -c "print($sqlite_cpu + $(cpu_seconds "$sqlite_gateway") - $before)")
  before_gateways=0; for pid in "${postgres_gateways[@]}"; do before_gateways=$(python3 -c "print($before_gateways + $(cpu_seconds "$pid"))"); done
  before_server=$(postgres_cpu "$pg")
  postgres_rates+=("$(load "${postgres_ports[@]}")")
  after_gateways=0; for pid in "${postgres_gateways[@]}"; do after_gateways=$(python3 -c "print($after_gateways + $(cpu_seconds "$pid"))"); done
  gateways_cpu=$(python3 -c "print($gateways_cpu + $after_gateways - $before_gateways)")
  server_cpu=$(python3 -c "print($server_cpu + $(postgres_cpu "$pg") - $before_server)")
done
recorded=$(curl -sf "http://127.0.0.1:28301/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sends"])')

python3 - "$replicas" "$requests" "${APNSIM_BENCH_ROUNDS:-3}" "$recorded" "$sqlite_cpu" "$gateways_cpu" "$server_cpu" \
  "${sqlite_rates[*]}" "${postgres_rates[*]}" <<'PY'
import sys
replicas, requests, rounds, recorded = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sqlite_cpu, gateways_cpu, server_cpu = map(float, sys.argv[5:8])
sqlite, postgres = [list(map(float, a.split())) for a in sys.argv[8:10]]
mean = lambda xs: sum(xs) / len(xs)
rates = lambda xs: ", ".join("%.0f" % x for x in xs)
pushes = requests * rounds
print()
print("SQLite      %8.0f pushes/s  (%s; one gateway, a store file, 200 after commit)" % (mean(sqlite), rates(sqlite)))
print("PostgreSQL  %8.0f pushes/s  (%s; %d gateway(s) on one server, 200 after commit; %s sends in the record)"
      % (mean(postgres), rates(postgres), replicas, recorded))
print("ratio       %8.2f  (PostgreSQL / SQLite, means of rounds in turn; goal with 3 replicas >= 0.5)" % (mean(postgres) / mean(sqlite)))
print("CPU a push: gateway on SQLite %.1f µs; gateways on PostgreSQL %.1f µs; PostgreSQL itself %.1f µs"
      % (sqlite_cpu / pushes * 1e6, gateways_cpu / pushes * 1e6, server_cpu / pushes * 1e6))
PY
