#!/usr/bin/env bash
# apnsim replay --gateway: scenarios replayed against a running apnsim up (real processes: the gateway and its
# device processes), not a fresh world per scenario; each resets the gateway's record first.
#
# Usage: Interop/replay_gateway_check.sh APNSIM_BINARY   (from the repository root)
set -euo pipefail
apnsim=$1
dev_port=${APNSIM_REPLAY_DEV_PORT:-22397}
control_port=${APNSIM_REPLAY_CONTROL_PORT:-28397}
device_port=${APNSIM_REPLAY_DEVICE_PORT:-25423}
media_port=${APNSIM_REPLAY_MEDIA_PORT:-28399}
work=$(mktemp -d)

source Interop/up.sh
start_up "$apnsim" "$work" 30 --development-port "$dev_port" --production-port 0 --control-port "$control_port" --device-port "$device_port" --media-port "$media_port"

"$apnsim" replay --gateway "http://127.0.0.1:$control_port" --media-url "http://127.0.0.1:$media_port" \
  Scenarios/delivery/collapse-id.yaml Scenarios/delivery/store-and-forward.yaml Scenarios/faults/goaway-after.yaml \
  Scenarios/extensions/braze.yaml | grep -vE '^  ✓'
kill -INT $up
wait $up
