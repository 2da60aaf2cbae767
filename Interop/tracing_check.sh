#!/usr/bin/env bash
# Traces as an OpenTelemetry collector receives them (docs/tracing.md): apnsim up, built with the OpenTelemetry
# trait, exports over OTLP/HTTP to a receiver that decodes the requests with OpenTelemetry's own protobuf classes
# (Interop/otlp_receiver.py). One push carries a provider's traceparent; its spans must continue that trace, hang
# from each other (request > validate, route, deliver > extension, display) and carry the apns-id and delivery ID.
#
# Usage: Interop/tracing_check.sh APNSIM_BINARY_WITH_TRAIT PYTHON   (from the repository root)
set -euo pipefail
apnsim=$1 python=$2
dev_port=${APNSIM_TRACING_DEV_PORT:-22497}
control_port=${APNSIM_TRACING_CONTROL_PORT:-28497}
device_port=${APNSIM_TRACING_DEVICE_PORT:-25523}
receiver_port=${APNSIM_TRACING_RECEIVER_PORT:-24318}
work=$(mktemp -d)

export OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$receiver_port" OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_BSP_SCHEDULE_DELAY=200
source Interop/up.sh
start_up "$apnsim" "$work" 30 --development-port "$dev_port" --production-port 0 --control-port "$control_port" \
  --device-port "$device_port" --media-port 0 --development-management-port 0 --production-management-port 0
"$python" Interop/otlp_receiver.py "$receiver_port" "$work/spans.jsonl" &
receiver=$!
# shellcheck disable=SC2064  # the values now, not at exit
trap "kill $receiver $up 2>/dev/null || true; pkill -f 'device-port $device_port' 2>/dev/null || true; rm -rf '$work'" EXIT
token=$(grep -oE "apnsim send --token [0-9a-f]+" "$work/up.log" | sed -n 1p | awk '{print $4}')
[[ -n "$token" ]] || { cat "$work/up.log"; echo "the banner has no token"; exit 1; }

trace=$(printf '%032x' $RANDOM$RANDOM$RANDOM)
parent=$(printf '%016x' $RANDOM$RANDOM)
apns_id=$("$python" -c 'import uuid; print(str(uuid.uuid4()).upper())')
"$apnsim" send --token "$token" --port "$dev_port" --apns-id "$apns_id" --header "traceparent:00-$trace-$parent-01" \
  --payload '{"aps":{"alert":"traced","mutable-content":1}}' >/dev/null
curl -sf "http://127.0.0.1:$control_port/v1/deliveries?apnsId=$apns_id&wait=30&count=1" > "$work/delivery.json"

"$python" - "$work/spans.jsonl" "$work/delivery.json" "$trace" "$parent" "$apns_id" <<'PY'
import json, sys, time
spans_file, delivery_file, trace, parent, apns_id = sys.argv[1:6]
delivery = json.load(open(delivery_file))[0]
spans = []
for _ in range(100):  # the exporter sends a batch every 200 ms (OTEL_BSP_SCHEDULE_DELAY)
    try:
        spans = [json.loads(line) for line in open(spans_file)]
    except FileNotFoundError:
        pass
    if any(s["name"] == "apnsim.deliver" for s in spans):
        break
    time.sleep(0.2)
ours = [s for s in spans if s["traceId"] == trace]
for s in ours:
    print(f"span {s['name']}: span {s['spanId']} parent {s['parentSpanId']} {s['attributes']}")
named = {s["name"]: s for s in ours}
failures = []
request = named.get("POST /3/device/{token}")
if not request:
    failures.append(f"no request span in the provider's trace {trace}; received {[(s['name'], s['traceId']) for s in spans]}")
else:
    if request["parentSpanId"] != parent: failures.append(f"the request span's parent is {request['parentSpanId']}, not the traceparent's {parent}")
    if request["attributes"].get("apns.id") != apns_id: failures.append(f"the request span's apns.id is {request['attributes'].get('apns.id')}")
    for name in ["apns.validate", "apns.route", "apnsim.deliver"]:
        if named.get(name, {}).get("parentSpanId") != request["spanId"]: failures.append(f"{name} is not the request span's child")
deliver = named.get("apnsim.deliver")
if deliver:
    if deliver["attributes"].get("apnsim.delivery.id") != delivery["id"]: failures.append("the deliver span's delivery ID is not the record's")
    for name in ["device.extension", "device.display"]:
        if named.get(name, {}).get("parentSpanId") != deliver["spanId"]: failures.append(f"{name} is not the deliver span's child")
print(f"{len(ours)} spans in the provider's trace, {len(spans)} received in all")
for failure in failures: print("FAILED:", failure)
sys.exit(1 if failures else 0)
PY
echo "tracing: the provider's trace continued through validation, routing, delivery, the extension run and display, exported over OTLP/HTTP"
