#!/usr/bin/env bash
# Connection set-up: CLIENTS h2load clients at once, each opening its own TLS + HTTP/2 connection and sending one
# valid, JWT-authenticated push, against the release build of apnsim and then against nginx serving HTTP/2 + TLS
# with the same certificate, in the same run. Prints both rates (connections with their push answered, per second)
# and apnsim's ratio to nginx. The stress suite checks that every such first request is answered; this measures
# how fast.
#
# Usage: Benchmarks/connections.sh [CLIENTS] [ROUNDS]   (from anywhere; default 3000 clients, 3 rounds each)
#        APNSIM_BIN=PATH Benchmarks/connections.sh     (measure that binary instead of building this tree)
# Needs: h2load (Debian nghttp2-client), nginx (Debian nginx-light), openssl; installs them with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
clients=${1:-3000}
rounds=${2:-3}
dev_port=${APNSIM_BENCH_PORT:-22197}
control_port=${APNSIM_BENCH_CONTROL_PORT:-28197}
nginx_port=${APNSIM_BENCH_NGINX_PORT:-22443}
ulimit -n "$(( clients * 2 + 1024 ))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
scratch
need nghttp2-client:h2load nginx-light:nginx openssl:openssl
apnsim=$(release_apnsim)
jwt=$(provider_jwt)
printf '{"aps":{"alert":{"title":"bench","body":"a first push"}}}' > "$work/payload.json"

connect() { # connect URL -> prints connections per second (each with its push answered 2xx)
  h2load -n "$clients" -c "$clients" -m 1 -d "$work/payload.json" \
    -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
    -H "content-type: application/json" "$1" > "$work/h2load.out"
  local ok; ok=$(awk '/^status codes:/{print $3}' "$work/h2load.out")
  if [[ "$ok" != "$clients" ]]; then echo "only $ok of $clients first pushes answered 2xx" >&2; cat "$work/h2load.out" >&2; exit 1; fi
  awk '/^finished in/{gsub(",","",$4); print $4}' "$work/h2load.out"
}

start_gateway "$dev_port" "$control_port" 0
token=$(world_token "$control_port")
start_nginx "$nginx_port"

printf '%-6s %14s %14s %8s\n' round "apnsim conn/s" "nginx conn/s" ratio
for round in $(seq "$rounds"); do
  apnsim_rate=$(connect "https://127.0.0.1:$dev_port/3/device/$token")
  nginx_rate=$(connect "https://127.0.0.1:$nginx_port/3/device/$token")
  python3 -c "print('%-6s %14.0f %14.0f %8.2f' % ('$round', $apnsim_rate, $nginx_rate, $apnsim_rate / $nginx_rate))"
done
echo "($clients clients at once per run, each a new TLS + HTTP/2 connection and one push; $(stamp))"
