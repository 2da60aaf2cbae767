#!/usr/bin/env bash
# Send-to-display throughput and latency: h2load sends valid, JWT-authenticated pushes (10 connections x 100
# streams) to the release gateway, spread over 100 simulated devices in one `apnsim device --count 100` process;
# the script waits until every push has a displayed record and prints pushes per second from first accepted to
# last displayed, and the accepted-to-displayed latency p50 and p99 from the delivery records. As a reference in
# the same run, the same load to a token with no device behind it (provider path only), and the ratio. Then rich
# pushes, against their parts alone (the media server serving the image; its bytes written to new files and renamed),
# with the machine's CPU time per plain push, rich push, download and file, the ceiling those parts alone put on
# rich / plain, and the time a rich push takes beyond its parts against what the goal of 0.5 leaves; last the latency
# at a steady 4,000 pushes a second (APNSIM_E2E_RATE) for ten seconds.
#
# Usage: Benchmarks/e2e.sh [PUSHES [RICH]]      (from anywhere; defaults 20000 and 2000)
#        Benchmarks/e2e.sh --cluster [PUSHES [REPLICAS]]   (the cluster path against one gateway: Benchmarks/cluster_e2e.sh)
# Needs: h2load (Debian nghttp2-client), openssl, python3; installs h2load with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == --cluster ]]; then exec bash Benchmarks/cluster_e2e.sh "${@:2}"; fi
pushes=${1:-20000}
rich=${2:-2000}
devices=100
media_port=${APNSIM_E2E_MEDIA_PORT:-28299}
dev_port=${APNSIM_E2E_PORT:-23197}
control_port=${APNSIM_E2E_CONTROL_PORT:-29197}
device_port=${APNSIM_E2E_DEVICE_PORT:-25223}
work=$(mktemp -d)
pids=()
source Benchmarks/lib.sh  # channel-management ports the kernel picks
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }  # every core's busy time, in ticks
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
command -v h2load >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nghttp2-client >/dev/null; }

echo "building apnsim (release)…"
swift build -c release --product apnsim 2>&1 | tail -1
apnsim=$(swift build -c release --show-bin-path)/apnsim
control="http://127.0.0.1:$control_port/v1"

"$apnsim" gateway --development-port "$dev_port" --production-port 0 --control-port "$control_port" \
  --device-port "$device_port" >"$work/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf "$control/health" >/dev/null && break; sleep 0.1; done
"$apnsim" media --port "$media_port" --directory Scenarios/media >"$work/media.log" 2>&1 &
pids+=($!)
"$apnsim" device --count "$devices" --id bench --device-port "$device_port" --data "$work/devices" \
  --extension com.example.app:com.example.app.NotificationService:braze >"$work/devices.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do
  registered=$(curl -sf "$control/devices" | python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin) if d["online"] and d["apps"]))')
  [[ "$registered" == "$devices" ]] && break
  sleep 0.1
done
[[ "$registered" == "$devices" ]] || { echo "only $registered of $devices devices registered"; cat "$work/devices.log"; exit 1; }
curl -sf "$control/devices" | python3 -c 'import json,sys; [print("https://127.0.0.1:'"$dev_port"'/3/device/" + d["apps"][0]["token"]) for d in json.load(sys.stdin)]' > "$work/urls"
nobody=$(curl -sf "$control/tokens" | python3 -c "import json,sys; print(next(t['token'] for t in json.load(sys.stdin) if t['environment']=='development' and t['state']=='active' and t['token'] not in open('$work/urls').read()))")

b64url() { openssl base64 -e -A | tr -- '+/' '-_' | tr -d =; }
header=$(printf '{"alg":"ES256","kid":"SIMKEY0001"}' | b64url)
claims=$(printf '{"iss":"SIMTEAM001","iat":%d}' "$(date +%s)" | b64url)
signature=$(printf '%s.%s' "$header" "$claims" | openssl dgst -binary -sha256 -sign Certs/AuthKey_SIMKEY0001.p8 | b64url)
jwt="$header.$claims.$signature"
printf '{"aps":{"alert":{"title":"bench","body":"send to display"},"badge":1}}' > "$work/payload.json"
printf '{"aps":{"alert":{"title":"bench","body":"rich push"},"mutable-content":1},"ab":{"att":{"url":"http://127.0.0.1:%s/media/sample.jpg","type":"jpg"}}}' \
  "$media_port" > "$work/rich.json"
load() { # load N PAYLOAD URL... -> prints h2load's requests per second
  local n=$1 payload=$2; shift 2
  h2load -n "$n" -c 10 -m 100 -d "$payload" -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" \
    -H "apns-push-type: alert" "$@" > "$work/h2load.out"
  grep -q "status codes: $n 2xx" "$work/h2load.out" || { cat "$work/h2load.out"; exit 1; }
  awk '/^finished in/{gsub(",","",$4); print $4}' "$work/h2load.out"
}

echo "reference: $pushes pushes to a token with no device (provider path only)"
reference=$(load "$pushes" "$work/payload.json" "https://127.0.0.1:$dev_port/3/device/$nobody")
curl -sf -X POST "$control/reset" >/dev/null

echo "send to display: $pushes pushes over $devices devices"
mapfile -t urls < "$work/urls"
if [[ -n "${APNSIM_E2E_PERF:-}" ]]; then perf record -F 499 -g -p "${pids[0]}" -o "$APNSIM_E2E_PERF" -- sleep 4 >/dev/null 2>&1 & fi
busy_before=$(busy_ticks)
load "$pushes" "$work/payload.json" "${urls[@]}" >/dev/null
[[ -n "${APNSIM_E2E_PROFILE:-}" ]] && { ps -o pid,comm,time -p "${pids[@]}"; }
wait_for() { # wait_for N: until N deliveries are complete
  for _ in $(seq 1200); do
    # sed, not python: a python start costs the machine 20 ms, which the machine time below would count
    done_count=$(curl -sf "$control/health" | sed -n 's/.*"completedDeliveries":\([0-9]*\).*/\1/p')
    [[ "$done_count" -ge "$1" ]] && return
    sleep 0.1
  done
}
wait_for "$pushes"
busy_plain=$(( $(busy_ticks) - busy_before ))
[[ -n "${APNSIM_E2E_PROFILE:-}" ]] && { ps -o pid,args,time -p "${pids[@]}"; }
curl -sf "$control/deliveries?limit=$((pushes * 2))" > "$work/deliveries.json"

# The rich push's parts alone, in the same run: the media server serving the same file to h2load (HTTP/1.1, 10
# connections kept open), and the same bytes written to new files and each renamed, in the file system of the devices'
# data folder. Nothing is deleted before the rich load: on an ext4 without a journal (this machine's disk), a file made
# within half a minute of many deletions costs the kernel most of a millisecond (`recently_deleted`, docs/speed.md).
echo "parts alone: $rich downloads of the same image; $rich files of its bytes written and renamed"
busy_before=$(busy_ticks)
h2load --h1 -n "$rich" -c 10 "http://127.0.0.1:$media_port/media/sample.jpg" > "$work/media-alone.out"
busy_media=$(( $(busy_ticks) - busy_before ))
grep -q "status codes: $rich 2xx" "$work/media-alone.out" || { cat "$work/media-alone.out"; exit 1; }
media_alone=$(awk '/^finished in/{gsub(",","",$4); print $4}' "$work/media-alone.out")
files_alone=$(python3 - "$work/files-alone" "$rich" Scenarios/media/sample.jpg <<'PY'
import os, sys, time
folder, count, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = open(source, "rb").read()
os.makedirs(folder)
start, cpu = time.perf_counter(), time.process_time()
for number in range(count):
    path = f"{folder}/{number}.download"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(descriptor, data)
    os.close(descriptor)
    os.rename(path, f"{folder}/{number}.jpg")
print(f"{count / (time.perf_counter() - start):.0f} {(time.process_time() - cpu) / count * 1e6:.1f}")  # files/s, CPU us each
PY
)
read -r files_alone file_us <<< "$files_alone"
served_before=$(curl -sf "http://127.0.0.1:$media_port/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("/media/sample.jpg", 0))')

echo "rich push: $rich pushes over $devices devices, an image downloaded and attached for each"
curl -sf -X POST "$control/reset" >/dev/null
if [[ -n "${APNSIM_E2E_PERF_DEVICES:-}" ]]; then perf record -F 499 -g -p "${pids[2]}" -o "$APNSIM_E2E_PERF_DEVICES" -- sleep 4 >/dev/null 2>&1 & fi
busy_before=$(busy_ticks)
load "$rich" "$work/rich.json" "${urls[@]}" >/dev/null
wait_for "$rich"
busy_rich=$(( $(busy_ticks) - busy_before ))
[[ -n "${APNSIM_E2E_PROFILE:-}" ]] && { ps -o pid,args,time -p "${pids[@]}"; }
curl -sf "$control/deliveries?limit=$((rich * 2))" > "$work/rich-deliveries.json"
served=$(curl -sf "http://127.0.0.1:$media_port/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("/media/sample.jpg", 0) - '"$served_before"')')

# Latency under a steady load rather than a burst: APNSIM_E2E_RATE pushes a second (4,000) for ten seconds, paced by
# h2load (--rps for each of its 10 connections), the accepted-to-displayed times of every one.
rate=${APNSIM_E2E_RATE:-4000}
paced=$((rate * 10))
echo "latency: $paced pushes at $rate a second over $devices devices"
curl -sf -X POST "$control/reset" >/dev/null
h2load -n "$paced" -c 10 -m 100 --rps $((rate / 10)) -d "$work/payload.json" -H "authorization: bearer $jwt" \
  -H "apns-topic: com.example.app" -H "apns-push-type: alert" "${urls[@]}" > "$work/h2load.out"
grep -q "status codes: $paced 2xx" "$work/h2load.out" || { cat "$work/h2load.out"; exit 1; }
wait_for "$paced"
curl -sf "$control/deliveries?limit=$((paced * 2))" > "$work/paced-deliveries.json"

python3 - "$work/deliveries.json" "$pushes" "$reference" "$work/rich-deliveries.json" "$rich" "$served" \
  "$work/paced-deliveries.json" "$paced" "$rate" "$media_alone" "$files_alone" \
  "$busy_plain $busy_media $busy_rich $(getconf CLK_TCK) $file_us" <<'PY'
import json, sys
from datetime import datetime
t = lambda s: datetime.fromisoformat(s).timestamp()

def figures(path, pushes, attached):
    records = json.load(open(path))
    shown = [r for r in records if r.get("outcome") == "displayed"]
    assert len(shown) == pushes, f"{len(shown)} of {pushes} pushes were displayed"
    if attached:
        bare = [r for r in shown if not any(a.get("type") == "public.jpeg" and not a.get("refusal")
                                            for a in r["content"].get("attachments", []))]
        assert not bare, f"{len(bare)} rich pushes were displayed without their image: {bare[0]}"
    latencies = sorted((t(r["displayedAt"]) - t(r["acceptedAt"])) * 1000 for r in shown)
    span = max(t(r["displayedAt"]) for r in shown) - min(t(r["acceptedAt"]) for r in shown)
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    return pushes / span, pick(0.50), pick(0.99)

plain, p50, p99 = figures(sys.argv[1], int(sys.argv[2]), False)
reference = float(sys.argv[3])
rich, rich50, rich99 = figures(sys.argv[4], int(sys.argv[5]), True)
print()
print(f"send to display {plain:10.0f} pushes/s  ({sys.argv[2]} pushes, 100 devices, every one displayed)")
print(f"provider only   {reference:10.0f} pushes/s  (same load, no device behind the token)")
print(f"ratio           {plain / reference:10.2f}")
print(f"latency         p50 {p50:.1f} ms, p99 {p99:.1f} ms  (accepted -> displayed)")
print(f"rich push       {rich:10.0f} pushes/s  ({sys.argv[5]} pushes, each with its image downloaded and attached; "
      f"the media server served {sys.argv[6]})")
print(f"rich / plain    {rich / plain:10.2f}")
print(f"rich latency    p50 {rich50:.1f} ms, p99 {rich99:.1f} ms  (accepted -> displayed with the attachment)")
media_alone, files_alone = float(sys.argv[10]), float(sys.argv[11])
print(f"parts alone     media server {media_alone:.0f} downloads/s (h2load, HTTP/1.1, 10 connections); "
      f"{files_alone:.0f} files/s written and renamed (one thread, the devices' file system)")
print(f"rich / slowest  {rich / min(media_alone, files_alone):10.2f}  (the rich rate against the slower of its parts alone)")
# Machine time: the CPU time every process on the machine spent during each load, per push (or per download, per file).
# A rich push is a plain push plus a download plus a file written; if it cost the machine no more than those, and kept
# the cores as busy as the plain load did, rich / plain would be plain / (plain + download + file): the ceiling its parts
# alone set on this machine, whatever apnsim does.
busy_plain, busy_media, busy_rich, ticks, files_us = (float(x) for x in sys.argv[12].split())
each = lambda busy, count: busy / ticks / count * 1e6
plain_us, media_us, rich_us = each(busy_plain, int(sys.argv[2])), each(busy_media, int(sys.argv[5])), each(busy_rich, int(sys.argv[5]))
print(f"machine time    a plain push {plain_us:.0f} us, a rich push {rich_us:.0f} us; alone, a download {media_us:.0f} us "
      f"and a file {files_us:.0f} us  (CPU time of every process, /proc/stat; the file's, the writer's own)")
parts_us = plain_us + media_us + files_us  # a rich push's parts: a plain push, a download, a file
ceiling, measured = plain_us / parts_us, plain_us / rich_us
print(f"rich ceiling    {ceiling:10.2f}  (plain / (plain + download + file): rich / plain "
      f"if a rich push cost only its parts; machine time now gives {measured:.2f})")
# What apnsim adds to the parts (its HTTP client, the extension's turn, the attachment's checks, a larger receipt), and
# what the goal of rich / plain >= 0.5 leaves it: twice a plain push, less the parts.
print(f"apnsim's share  {rich_us - parts_us:10.0f} us  (a rich push's machine time beyond its parts; "
      f"the goal of 0.5 leaves it {2 * plain_us - parts_us:.0f} us)")
if measured > ceiling:
    print("                (above the ceiling: the files alone cost more than the devices' own; on ext4 without a journal, "
          "a folder among recent deletions does, docs/speed.md)")
paced = json.load(open(sys.argv[7]))
shown = sorted((t(r["displayedAt"]) - t(r["acceptedAt"])) * 1000 for r in paced if r.get("outcome") == "displayed")
assert len(shown) == int(sys.argv[8]), f"{len(shown)} of {sys.argv[8]} paced pushes were displayed"
at = lambda q: shown[min(len(shown) - 1, int(q * len(shown)))]
print(f"at {sys.argv[9]}/s      p50 {at(0.5):.1f} ms, p99 {at(0.99):.1f} ms, max {shown[-1]:.1f} ms  "
      f"(accepted -> displayed, {sys.argv[8]} pushes over 10 s; the record's times are to the millisecond; goal p99 <= 10 ms)")
PY
