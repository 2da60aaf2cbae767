#!/usr/bin/env bash
# Starts a gateway from the built `apnsim` binary on spare ports, runs the interop checks against it
# (curl, then aioapns from the virtualenv given), checks the control API recorded every send, and stops it.
#
# Usage: Interop/run.sh APNSIM_BINARY PYTHON   (from the repository root)
set -euo pipefail
apnsim=$1 python=$2
dev_port=${APNSIM_INTEROP_DEV_PORT:-12197}
prod_port=${APNSIM_INTEROP_PROD_PORT:-12198}
control_port=${APNSIM_INTEROP_CONTROL_PORT:-18197}
log=$(mktemp)

source Interop/up.sh  # channel-management ports the kernel picks
"$apnsim" gateway --development-port "$dev_port" --production-port "$prod_port" --control-port "$control_port" --device-port 0 >"$log" 2>&1 &
gateway=$!
trap 'kill $gateway 2>/dev/null || true; wait $gateway 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$control_port/v1/health" >/dev/null && break
  kill -0 $gateway 2>/dev/null || { cat "$log"; echo "the gateway exited"; exit 1; }
  sleep 0.1
done
curl -sf "http://127.0.0.1:$control_port/v1/health" >/dev/null || { cat "$log"; echo "the gateway did not come up"; exit 1; }

# The sandbox world's development tokens: one active, one unregistered.
pick() { curl -sf "http://127.0.0.1:$control_port/v1/tokens" | "$python" -c "import json,sys; print(next(t['token'] for t in json.load(sys.stdin) if t['environment'] == 'development' and t['state'] == '$1'))"; }
token=$(pick active)
gone=$(pick unregistered)

bash Interop/curl_check.sh "$dev_port" "$token" "$gone"
"$python" Interop/aioapns_check.py localhost "$dev_port" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8 \
  Certs/provider-development-bundle.pem "$token" "$gone"

# Every push above is in the record: 4 from curl, 4 from aioapns.
count=$(curl -sf "http://127.0.0.1:$control_port/v1/health" | "$python" -c 'import json,sys; print(json.load(sys.stdin)["sends"])')
if [[ "$count" != 8 ]]; then echo "control API recorded $count sends, expected 8"; exit 1; fi
echo "control API recorded all $count interop sends"

# A production certificate on the development port: aioapns's vague error, and the connection record that says why.
"$python" Interop/aioapns_environment_check.py localhost "$dev_port" Certs/ca.pem Certs/provider-production-bundle.pem "$token" \
  "http://127.0.0.1:$control_port"

# A GOAWAY with a push in flight, as aioapns lives through it (a fault after the checks above, so it counts apart).
"$python" Interop/aioapns_goaway_check.py localhost "$dev_port" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8 "$token" \
  "http://127.0.0.1:$control_port"

# Each hang fault (docs/faults.md), with aioapns's own timeouts firing and other connections served meanwhile.
"$python" Interop/aioapns_hang_check.py localhost "$dev_port" "$prod_port" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8 \
  "http://127.0.0.1:$control_port"
