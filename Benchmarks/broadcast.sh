#!/usr/bin/env bash
# Broadcast fan-out against a per-device send loop, to display, in the same run: one `apnsim device --count 1000`
# process (1,000 simulated iPhones) on the release gateway; on each device the app has two Live Activities of the
# same type, one with a push token and one subscribed to a broadcast channel. Each round either sends ONE broadcast
# (curl --http2, POST /4/broadcasts/apps/…) or 1,000 single pushes to the 1,000 activity tokens (h2load, 10
# connections x 100 streams, the fastest a provider loop can go), and waits until all 1,000 deliveries are
# displayed. Time is measured by the gateway's own records: from the first request received to the last delivery
# displayed. Rounds alternate; the ratio is loop time over broadcast time (medians).
#
# Usage: Benchmarks/broadcast.sh [ROUNDS] [DEVICES]   (defaults 21 and 1000)
# Needs: h2load (Debian nghttp2-client), curl, openssl, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
rounds=${1:-21}
devices=${2:-1000}
port=${APNSIM_BROADCAST_PORT:-24197} manage=${APNSIM_BROADCAST_MANAGE_PORT:-24195}
control_port=${APNSIM_BROADCAST_CONTROL_PORT:-24297} device_port=${APNSIM_BROADCAST_DEVICE_PORT:-24223}
control="http://127.0.0.1:$control_port/v1"
need nghttp2-client:h2load curl:curl
scratch
apnsim=$(release_apnsim)
start_gateway "$port" "$control_port" "$device_port" --development-management-port "$manage"
types='[{"name":"DeliveryAttributes","attributes":{"orderID":"String"},"contentState":{"status":"String","etaMinutes":"Int"}}]'
# --activity-budget 0: no budget, so every round's priority-10 updates apply (the budget is not what is measured).
"$apnsim" device --count "$devices" --id fan --device-port "$device_port" --data "$work/devices" --activity-budget 0 \
  --activity-types "com.example.app:$types" >"$work/devices.log" 2>&1 &
pids+=($!)
echo "starting $devices devices…"
registered() { [[ $(curl -sf "$control/devices" | python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin) if d["online"] and d["apps"]))') == "$devices" ]]; }
wait_for "$devices devices registering" 300 registered

jwt=$(provider_jwt)
channel=$(curl -sf --http2 --cacert Certs/ca.pem -o /dev/null -D - -X POST -H "authorization: bearer $jwt" \
  -d '{"message-storage-policy":1,"push-type":"LiveActivity"}' "https://127.0.0.1:$manage/1/apps/com.example.app/channels" \
  | awk -F': ' 'tolower($1)=="apns-channel-id"{print $2}' | tr -d '\r')
[[ -n "$channel" ]] || { echo "no channel was created"; exit 1; }
# Two activities per device: one with a token (the loop's), one on the channel (the broadcast's).
python3 - "$control" "$channel" "$devices" "$port" > "$work/urls" <<'PY'
import json, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
control, channel, count, port = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
devices = [d["id"] for d in json.load(urllib.request.urlopen(f"{control}/devices")) if d["online"] and d["apps"]]
def start(args):
    device, subscribed = args
    body = {"bundleID": "com.example.app", "attributesType": "DeliveryAttributes", "attributes": {"orderID": device},
            "contentState": {"status": "packed", "etaMinutes": 40}}
    if subscribed: body["channel"] = channel
    request = urllib.request.Request(f"{control}/devices/{device}/activities", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
    return json.load(urllib.request.urlopen(request))
with ThreadPoolExecutor(16) as pool:
    started = list(pool.map(start, [(d, s) for d in devices for s in (False, True)]))
for activity in started:
    if activity.get("token"): print(f"https://127.0.0.1:{port}/3/device/{activity['token']}")
PY
[[ $(wc -l < "$work/urls") == "$devices" ]] || { echo "not every device started its activities"; exit 1; }
echo "$devices devices, each with an activity on channel $channel and one with a token"

# The rounds are driven by one Python process that stays up, so that no process starts while a round is measured:
# a curl started to wait for the deliveries took 10 ms of CPU at its start, on a machine whose 2 cores the fan-out
# keeps busy. Only the sender (curl or h2load) is started each round, and it starts before its first request.
python3 - "$control" "$devices" "$rounds" "$channel" "$jwt" "$work" "$port" <<'PY'
import json, statistics, subprocess, sys, urllib.request
from datetime import datetime
control, count, rounds, channel, jwt, work, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
get = lambda path: json.load(urllib.request.urlopen(f"{control}/{path}"))
stamp = lambda text: datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
def reset():
    urllib.request.urlopen(urllib.request.Request(f"{control}/reset", method="POST")).read()
def elapsed_ms():  # the gateway's records: first request received to last delivery displayed, in ms
    get(f"deliveries?wait=60&count={count}&limit={count + 1}")
    sends, deliveries = get(f"sends?limit={count + 1}"), get(f"deliveries?limit={count + 1}")
    assert len(deliveries) == count and all(d.get("displayedAt") for d in deliveries), f"{len(deliveries)} deliveries"
    applied = sum(1 for d in deliveries if (d.get("activity") or {}).get("result") == "applied")
    assert applied == count, f"only {applied} of {count} applied"
    return round((max(stamp(d["displayedAt"]) for d in deliveries) - min(stamp(s["receivedAt"]) for s in sends)) * 1000, 1)
update = f"{work}/update.json"
broadcasts, loops = [], []
for n in range(1, rounds + 1):
    reset()
    with open(update, "w") as f:
        json.dump({"aps": {"event": "update", "timestamp": 1800000000 + n, "content-state": {"status": f"round {n}", "etaMinutes": n}}}, f)
    subprocess.run(["curl", "-sf", "--http2", "--cacert", "Certs/ca.pem", "-o", "/dev/null", "-X", "POST",
                    "-H", f"authorization: bearer {jwt}", "-H", f"apns-channel-id: {channel}", "-H", "apns-push-type: liveactivity",
                    "-H", "apns-priority: 10", "--data-binary", f"@{update}", f"https://127.0.0.1:{port}/4/broadcasts/apps/com.example.app"],
                   check=True)
    broadcasts.append(elapsed_ms())
    reset()
    out = subprocess.run(["h2load", "-n", str(count), "-c", "10", "-m", "100", "-d", update, "-H", f"authorization: bearer {jwt}",
                          "-H", "apns-topic: com.example.app.push-type.liveactivity", "-H", "apns-push-type: liveactivity",
                          "-i", f"{work}/urls"], check=True, capture_output=True, text=True).stdout
    assert f"status codes: {count} 2xx" in out, out
    loops.append(elapsed_ms())
    print(f"round {n}: broadcast {broadcasts[-1]} ms, {count} single sends {loops[-1]} ms", flush=True)
b, l = statistics.median(broadcasts), statistics.median(loops)
# The records' times are in whole milliseconds: the mean of the middle half of the rounds shows what a median rounds off.
middle = lambda values: round(statistics.mean(sorted(values)[len(values) // 4:len(values) - len(values) // 4]), 2)
print(f"broadcast to {count} devices: median {b} ms (middle half's mean {middle(broadcasts)}); "
      f"{count} single sends: median {l} ms (middle half's mean {middle(loops)})")
print(f"ratio (single sends / broadcast): {l / b:.1f}x (middle halves: {middle(loops) / middle(broadcasts):.2f}x)")
PY
