#!/usr/bin/env bash
# Interop check of the gateway's server chain, with openssl and curl: the gateway serves its certificate and the
# intermediate above it, as Apple's servers do, and a provider that trusts only the root verifies it; then a CA move
# rehearsed (Certs/generate.sh --new-root): against a gateway serving a chain under a second root, a provider that
# trusts only the old root fails its handshake (and the gateway records it, with the alert), and one that trusts both connects (docs/gateway.md, "A CA move").
#
# Usage: Interop/ca_move_check.sh APNSIM_BINARY   (from the repository root)
set -euo pipefail
apnsim=$1
work=$(mktemp -d)
host=api.sandbox.push.apple.com
source Interop/up.sh  # channel-management ports the kernel picks
gateways=()
trap 'for pid in "${gateways[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; rm -rf "$work"' EXIT

start_gateway() { # start_gateway NAME DEV_PORT CONTROL_PORT [ARGS...]: a gateway on those ports, up when it returns
  local name=$1 port=$2 control=$3
  shift 3
  "$apnsim" gateway --development-port "$port" --production-port 0 --control-port "$control" --device-port 0 "$@" \
    >"$work/$name.log" 2>&1 &
  gateways+=($!)
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$control/v1/health" >/dev/null && return 0
    kill -0 "${gateways[-1]}" 2>/dev/null || { cat "$work/$name.log"; echo "the $name gateway exited"; exit 1; }
    sleep 0.1
  done
  cat "$work/$name.log"; echo "the $name gateway did not come up"; exit 1
}

# 1. The chain the gateway serves: its certificate and the intermediate, verified against the root alone.
start_gateway chain 13197 18297
shown=$(openssl s_client -connect 127.0.0.1:13197 -servername "$host" -alpn h2 -showcerts -CAfile Certs/ca.pem </dev/null 2>/dev/null)
served=$(grep -c "BEGIN CERTIFICATE" <<<"$shown" || true)
[[ "$served" == 2 ]] || { echo "the gateway served $served certificates, not its own and the intermediate's"; exit 1; }
grep "Verify return code: 0 (ok)" >/dev/null <<<"$shown" || { grep "Verify return code" <<<"$shown"; echo "the chain does not verify against Certs/ca.pem"; exit 1; }
echo "the gateway serves 2 certificates (its own, then $(openssl x509 -noout -subject -in Certs/server-ca.pem | sed 's/^subject=//')), verified by Certs/ca.pem alone"

# 2. A CA move rehearsed: the chain under a second root; the old root alone no longer verifies it.
bash Certs/generate.sh --new-root "$work/move" >/dev/null 2>&1
start_gateway moved 14197 18397 --certs "$work/move"
answer() { curl -sS --http2 --cacert "$1" --resolve "$host:14197:127.0.0.1" -o /dev/null -w '%{http_code}' -X POST -d '{}' \
  "https://$host:14197/3/device/$(printf '%064x' 1)" 2>&1; }
old=$(answer "$work/move/old-root.pem" || true)
[[ "$old" == *"SSL certificate problem"* ]] || { echo "a provider trusting only the old root was not refused: $old"; exit 1; }
echo "a provider trusting only the old root: $(grep -m1 "SSL certificate problem" <<<"$old")"
# The refused handshake left a connection record naming the alert curl sent (GET /v1/connections).
record=$(curl -sf "http://127.0.0.1:18397/v1/connections?event=tlsHandshakeFailed&wait=10")
[[ "$record" == *'"tlsAlert":"unknown_ca"'* ]] || { echo "the refused handshake left no record naming unknown_ca: $record"; exit 1; }
echo "the gateway recorded it: $(sed -E 's/.*"explanation":"([^"]*)".*/\1/' <<<"$record")"
both=$(answer "$work/move/ca.pem")
[[ "$both" =~ ^[1-5][0-9][0-9]$ ]] || { echo "a provider trusting both roots got no HTTP answer: $both"; exit 1; }
echo "a provider trusting both roots connects and is answered $both over HTTP/2"
echo "CA move check passed"
