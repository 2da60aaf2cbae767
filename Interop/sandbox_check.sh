#!/usr/bin/env bash
# The README's first commands ("Start"), as real processes: `apnsim up` (gateway plus the sandbox's device
# processes), then the `apnsim send` command it prints; the push must show up as displayed in
# GET /v1/deliveries. Ctrl-C (SIGINT) must then stop the gateway and every device process. The session is
# recorded (--record), and the recording must replay green in a fresh world (apnsim replay).
#
# Usage: Interop/sandbox_check.sh APNSIM_BINARY PYTHON   (from the repository root)
set -euo pipefail
apnsim=$1 python=$2
dev_port=${APNSIM_SANDBOX_DEV_PORT:-22297}
control_port=${APNSIM_SANDBOX_CONTROL_PORT:-28297}
device_port=${APNSIM_SANDBOX_DEVICE_PORT:-25323}
media_port=${APNSIM_SANDBOX_MEDIA_PORT:-28199}
work=$(mktemp -d)

source Interop/up.sh
start_up "$apnsim" "$work" 30 --development-port "$dev_port" --production-port 0 --control-port "$control_port" --device-port "$device_port" --media-port "$media_port" --record "$work/session.yaml"

send=$(grep -oE "apnsim send --token [0-9a-f]+.*" "$work/up.log" | sed -n 1p)
[[ -n "$send" ]] || { cat "$work/up.log"; echo "the banner has no apnsim send command"; exit 1; }
token=$(echo "$send" | awk '{print $4}')
echo "banner: $send"
# shellcheck disable=SC2086  # the printed command's arguments
"$apnsim" ${send#apnsim } | tee "$work/send.out"
grep -q "status: 200" "$work/send.out" || { echo "the push was not accepted"; exit 1; }

curl -sf "http://127.0.0.1:$control_port/v1/deliveries?token=$token&wait=10" > "$work/deliveries.json"
"$python" - "$work/deliveries.json" <<'PY'
import json, sys
deliveries = json.load(open(sys.argv[1]))
assert deliveries, "no delivery recorded"
first = deliveries[0]
assert first["outcome"] == "displayed", first
assert first["content"]["body"], first
print("sandbox: delivered to", first["device"], "and displayed:", first["content"].get("title"), "/", first["content"]["body"])
PY

# Rich pushes: the sandbox app's service extension (kind auto) picks each vendor's extension by the payload's
# keys, downloads from the media server apnsim up started (or takes the app bundle's file) and attaches it.
media=$(grep -oE "media server +http://[0-9.:]+/media/" "$work/up.log" | awk '{print $3}')
[[ -n "$media" ]] || { cat "$work/up.log"; echo "the banner has no media server"; exit 1; }
source Interop/rich_push.sh
rich_push sandbox braze ",\"ab\":{\"att\":{\"url\":\"${media}sample.jpg\",\"type\":\"jpg\"}}" \
  'run["kind"] == "braze" and run["pickedBy"] == "ab" and types == ["public.jpeg"]'
rich_push sandbox salesforce-bundled ",\"_mediaUrl\":\"sample.gif\",\"_mediaAlt\":\"alt\"" \
  'run["kind"] == "salesforce" and types == ["com.compuserve.gif"] and content["body"] == "salesforce-bundled"'
rich_push sandbox salesforce-404 ",\"_mediaUrl\":\"${media}missing.jpg\",\"_mediaAlt\":\"alt\"" \
  'run["kind"] == "salesforce" and types == [] and content["body"] == "alt"'
rich_push sandbox sailthru ",\"_st\":{\"image_url\":\"${media}sample.jpg\",\"video_url\":\"${media}sample.mp4\"}" \
  'run["kind"] == "sailthru" and types == ["public.mpeg-4"]'
rich_push sandbox braze-misnamed ",\"ab\":{\"att\":{\"url\":\"${media}jpeg-named.png\",\"type\":\"png\"}}" \
  'types == [] and [a["refusal"]["code"] for a in run["refusedAttachments"]] == [105]'
rich_push sandbox braze-buttons ",\"ab\":{\"att\":{\"url\":\"${media}sample.jpg\",\"type\":\"jpg\"}}" \
  'content["category"] == "ORDER" and [a["identifier"] for a in content["actions"]] == ["TRACK", "CANCEL"]' ',"category":"ORDER"'
rich_push sandbox scripted-crash ",\"apnsim\":{\"extension\":{\"action\":\"crash\"}}" \
  'run["kind"] == "scripted" and run["outcome"] == "crashed" and content["body"] == "scripted-crash"'

# The simctl-style command: `apnsim push DEVICE FILE.apns` with the bundle inside the file.
"$apnsim" push iphone-dev Scenarios/hello.apns --port "$dev_port" --control-url "http://127.0.0.1:$control_port" | tee "$work/push.out"
apns_id=$(awk '/^apns-id:/{print $2}' "$work/push.out")
curl -sf "http://127.0.0.1:$control_port/v1/deliveries?apnsId=$apns_id&wait=10" > "$work/pushed.json"
"$python" - "$work/pushed.json" <<'PY'
import json, sys
delivery = json.load(open(sys.argv[1]))[0]
assert delivery["outcome"] == "displayed" and delivery["content"]["title"] == "Hello", delivery
print("sandbox: apnsim push delivered Scenarios/hello.apns to", delivery["device"])
PY

# A connection the gateway refuses leaves a record: HTTP/1.1 over TLS is answered 505 and recorded as notHTTP2.
curl -s --http1.1 --cacert Certs/ca.pem --resolve "api.sandbox.push.apple.com:$dev_port:127.0.0.1" -o /dev/null \
  "https://api.sandbox.push.apple.com:$dev_port/3/device/00" || true
curl -sf "http://127.0.0.1:$control_port/v1/connections?event=notHTTP2&wait=10" > "$work/connections.json"
"$python" - "$work/connections.json" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))[0]
assert record["reason"] == "HTTP2Required", record
print("sandbox: an HTTP/1.1 request left a connection record:", record["explanation"])
PY

# The records it served match their documented schema (docs/records.schema.json).
"$python" Interop/check_records_schema.py docs/records.schema.json "http://127.0.0.1:$control_port"

kill -INT $up
for _ in $(seq 100); do kill -0 $up 2>/dev/null || break; sleep 0.1; done
if kill -0 $up 2>/dev/null; then echo "apnsim up did not stop on SIGINT"; exit 1; fi
if pgrep -f "device-port $device_port" >/dev/null; then echo "device processes outlived apnsim up"; exit 1; fi
echo "sandbox: Ctrl-C stopped the gateway and every device"

grep -q "recorded .* as a scenario in $work/session.yaml" "$work/up.log" || { cat "$work/up.log"; echo "apnsim up wrote no recording"; exit 1; }
echo "sandbox: the session was recorded; replaying it in a fresh world:"
"$apnsim" replay "$work/session.yaml" | tail -1
