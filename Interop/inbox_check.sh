#!/usr/bin/env bash
# The sandbox inbox in a real browser: `apnsim up`, then Debian's chromium, headless, opens the page and checks
# what it shows (Interop/inbox_check.py): a Braze image, Salesforce's alt text, a collapse pair, a stored push, a Live
# Activity's Lock Screen card, a tap, a reply and a dismiss, the composer's rejection, and first paint with 1,000
# deliveries. Screenshots go to SHOTS.
#
# Usage: Interop/inbox_check.sh APNSIM_BINARY PYTHON SHOTS   (from the repository root)
set -euo pipefail
apnsim=$1 python=$2 shots=$3
dev_port=${APNSIM_INBOX_DEV_PORT:-22497}
control_port=${APNSIM_INBOX_CONTROL_PORT:-28497}
device_port=${APNSIM_INBOX_DEVICE_PORT:-25523}
media_port=${APNSIM_INBOX_MEDIA_PORT:-28499}
work=$(mktemp -d)

up_arguments=(--development-port "$dev_port" --production-port 0 --control-port "$control_port"
              --device-port "$device_port" --media-port "$media_port")
source Interop/up.sh
start_up "$apnsim" "$work" 30 "${up_arguments[@]}"
token=$(grep -oE "iphone-dev +com.example.app development +[0-9a-f]{64}" "$work/up.log" | awk '{print $4}')
# The check stops this apnsim up itself and starts another with the same data (the same tokens), then stops that.
"$python" Interop/inbox_check.py "$apnsim" "http://127.0.0.1:$control_port" "$dev_port" "http://127.0.0.1:$media_port/media" \
  "$token" Certs/AuthKey_SIMKEY0001.p8 Certs/ca.pem "$shots" "$up" --data "$work/devices" "${up_arguments[@]}"
wait $up
