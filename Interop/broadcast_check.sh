#!/usr/bin/env bash
# Live Activities and broadcast channels with providers nobody here wrote (Interop/broadcast_check.py): a gateway
# and one `apnsim device --count N` process of N simulated iPhones (1,000 by default), aioapns starting an activity
# by push-to-start and updating it, then an httpx provider creating a channel and broadcasting to every device.
#
# Usage: Interop/broadcast_check.sh APNSIM_BINARY PYTHON [DEVICES]   (from the repository root)
set -euo pipefail
apnsim=$1 python=$2 devices=${3:-1000}
dev_port=${APNSIM_BROADCAST_DEV_PORT:-13197}
manage_port=${APNSIM_BROADCAST_MANAGE_PORT:-13195}
control_port=${APNSIM_BROADCAST_CONTROL_PORT:-13297}
device_port=${APNSIM_BROADCAST_DEVICE_PORT:-13223}
control="http://127.0.0.1:$control_port"
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

"$python" -c 'import httpx, h2' 2>/dev/null || "$(dirname "$python")/pip" install -q --disable-pip-version-check 'httpx[http2]'

"$apnsim" gateway --development-port "$dev_port" --development-management-port "$manage_port" --production-port 0 \
  --control-port "$control_port" --device-port "$device_port" >"$work/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf "$control/v1/health" >/dev/null && break; sleep 0.1; done
types='[{"name":"DeliveryAttributes","attributes":{"orderID":"String"},"contentState":{"status":"String","etaMinutes":"Int"}}]'
"$apnsim" device --count "$devices" --id fan --device-port "$device_port" --data "$work/devices" \
  --activity-types "com.example.app:$types" >"$work/devices.log" 2>&1 &
pids+=($!)
registered=0
for second in $(seq 300); do
  registered=$(curl -sf "$control/v1/devices" | "$python" -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin) if d["online"] and d["apps"]))')
  [[ "$registered" == "$devices" ]] && break
  (( second % 5 == 0 )) && echo "  $registered of $devices devices registered…"
  sleep 1
done
[[ "$registered" == "$devices" ]] || { echo "only $registered of $devices devices registered"; tail -20 "$work/devices.log"; exit 1; }
echo "$devices devices registered"

"$python" Interop/broadcast_check.py 127.0.0.1 "$dev_port" "$manage_port" "$control" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8
