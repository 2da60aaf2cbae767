#!/usr/bin/env bash
# Instructions per push, counted by Valgrind's callgrind: the same figure whatever else the machine is doing, where a
# rate moves by a factor of two from day to day. Each server runs under callgrind with counting off; a warm-up load
# goes first, then counting is turned on for exactly PUSHES pushes (h2load, 10 connections x 100 streams, the same
# JWT-authenticated alert as Benchmarks/provider.sh), and the count is every instruction the server's processes ran
# meanwhile (all threads: the record's writer too), divided by PUSHES. Beside it, the calls to Swift's atomic reference
# counting (swift_retain, swift_release; Benchmarks/refcounts.py), which the instruction count understates in time.
#
#   reference   SwiftNIO's own HTTP/2 over TLS answering 200 (Benchmarks/NIOReferenceServer), nothing else
#   provider    apnsim's gateway, a token with no device behind it: validation, routing, the record
#   display     the gateway and one `apnsim device --count 100` process: each push sent to display
#   rich        the same, each push a rich one whose extension downloads an image from `apnsim media` (counted too)
#   cluster     two replicas on one PostgreSQL (Debian's, started here by Interop/postgres.sh), the 100 devices linked to
#               the second, every push sent through the first: accepted and handed off by one, carried out by the other
#               (both counted, and the devices); PostgreSQL's CPU a push beside it (/proc), not instructions
#
# Usage: Benchmarks/instructions.sh [PUSHES] [PATH…]   (default 5000 pushes, the same for every path; default paths:
#        reference provider display rich; cluster when asked)
#        APNSIM_BIN=PATH, APNSIM_REFERENCE_BIN=PATH   (measure those binaries instead of building this tree)
#        APNSIM_CALLGRIND_KEEP=DIR   (keep each process's callgrind file there, for callgrind_annotate)
# Needs: valgrind 3.20 or newer (Swift 6 writes DWARF 5, which 3.19 cannot read: on Debian 12 the script takes
# Debian 13's valgrind package and runs it from a scratch folder, with Debian 12's vgdb for callgrind_control),
# h2load (nghttp2-client), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
pushes=${1:-5000}
shift || true
paths=("$@")
(( ${#paths[@]} > 0 )) || paths=(reference provider display rich)
dev_port=${APNSIM_INSTR_PORT:-24197}
control_port=${APNSIM_INSTR_CONTROL_PORT:-24198}
device_port=${APNSIM_INSTR_DEVICE_PORT:-24199}
media_port=${APNSIM_INSTR_MEDIA_PORT:-24200}
reference_port=${APNSIM_INSTR_REFERENCE_PORT:-24201}
peer_control_port=${APNSIM_INSTR_PEER_CONTROL_PORT:-24202}
pg_port=${APNSIM_INSTR_PG_PORT:-24203}
scratch
need nghttp2-client:h2load valgrind:vgdb
callgrind_valgrind > "$work/valgrind"
mapfile -t valgrind_tool < "$work/valgrind"
apnsim=$(release_apnsim)
[[ " ${paths[*]} " != *" reference "* ]] || reference=$(release_reference)
jwt=$(provider_jwt)
printf '{"aps":{"alert":{"title":"bench","body":"a push from h2load"},"badge":1}}' > "$work/plain.json"
printf '{"aps":{"alert":{"title":"bench","body":"rich push"},"mutable-content":1},"ab":{"att":{"url":"http://127.0.0.1:%s/media/sample.jpg","type":"jpg"}}}' \
  "$media_port" > "$work/rich.json"

under_callgrind() { # under_callgrind NAME COMMAND… — runs it in the background under callgrind, counting off; sets $last_pid
  "${valgrind_tool[@]}" --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/$1.callgrind.%p" "${@:2}" >"$work/$1.log" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
}

load() { # load N PAYLOAD URLS_FILE — N pushes spread over the URLs, 10 connections x 100 streams; all must be 2xx
  h2load -i "$3" -n "$1" -c 10 -m 100 -d "$2" -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" \
    -H "apns-push-type: alert" > "$work/h2load.out"
  grep -q "status codes: $1 2xx" "$work/h2load.out" || { echo "not every push was answered 2xx:" >&2; cat "$work/h2load.out" >&2; exit 1; }
}

until_count() { # until_count WHAT N — waits until the gateway has recorded N sends (WHAT=sends) or N deliveries with their
  # outcome (WHAT=displayed), those its record limit dropped included; /v1/health writes what is queued before it counts
  # On the cluster path the record is shared, and either replica may trim it: what the other dropped ($peer_control_port's
  # count) counts too.
  local expression dropped others
  case $1 in
    sends) expression='h["sends"] + h["droppedSends"]' dropped=droppedSends ;;
    displayed) expression='(h["completedDeliveries"] + h["droppedDeliveries"]) * (h["deliveries"] == h["completedDeliveries"])' dropped=droppedDeliveries ;;
  esac
  # Once a second: each look is counted with the pushes (the gateway's answer to /v1/health flushes the record and counts
  # it), and under callgrind the last pushes take a minute or more; at five a second the looks were 22,000 instructions a
  # push on the display path.
  for _ in $(seq 600); do
    others=0
    [[ -z "${peer:-}" ]] || others=$(curl -sf "http://127.0.0.1:$peer_control_port/v1/health" | python3 -c "import json,sys; print(json.load(sys.stdin)['$dropped'])")
    (( $(curl -sf "http://127.0.0.1:$control_port/v1/health" | python3 -c "import json,sys; h = json.load(sys.stdin); print($expression)") + others >= $2 )) && return 0
    sleep 1
  done
  echo "the gateway did not record $2 $1" >&2; exit 1
}

count() { # count N PAYLOAD URLS_FILE WAIT NAME=PID… — counts the processes' instructions over N pushes; prints the total
  # per push, then each process's ("gateway 123456"); writes the same for their retains and releases to $work/refcounts
  local n=$1 payload=$2 urls=$3 wait=$4 process pid total=0 ir parts=() rc rc_total=0 rc_parts=(); shift 4
  for process in "$@"; do
    callgrind_control -z "${process#*=}" >/dev/null 2>&1; callgrind_control -i on "${process#*=}" >/dev/null 2>&1
  done
  load "$n" "$payload" "$urls"
  $wait
  for process in "$@"; do
    pid=${process#*=}
    callgrind_control -d "$pid" >/dev/null 2>&1
    callgrind_control -i off "$pid" >/dev/null 2>&1
    ir=$(cat "$work"/*.callgrind."$pid".* 2>/dev/null | awk '/^totals:/ {s += $2} END {printf "%.0f\n", s}')
    rc=$(python3 Benchmarks/refcounts.py "$work"/*.callgrind."$pid".*)
    [[ -n "${APNSIM_CALLGRIND_KEEP:-}" ]] && { mkdir -p "$APNSIM_CALLGRIND_KEEP"; cp "$work"/*.callgrind."$pid".* "$APNSIM_CALLGRIND_KEEP/"; }
    rm -f "$work"/*.callgrind."$pid".*
    total=$((total + ir))
    parts+=("${process%%=*} $((ir / n))")
    rc_total=$((rc_total + rc))
    rc_parts+=("${process%%=*} $((rc / n))")
  done
  echo "$((rc_total / n)) ${rc_parts[*]}" > "$work/refcounts"
  echo "$((total / n)) ${parts[*]}"
}

start_world() { # the gateway under callgrind, on the sandbox world; sets $gateway_pid. The record keeps 1,000 sends and
  # deliveries, and the warm-up fills it: each push counted then also costs the oldest record's removal, as in a load
  # test that has passed the default 100,000 (where a removal costs about the same). Under callgrind, on a busy machine, a
  # TLS handshake can take longer than the gateway's 10 s: h2load's connections get a minute. [FLAG…]: more of the
  # gateway's (a replica's store and name); world_device_port=PORT: its device link's port instead of $device_port.
  under_callgrind gateway "$apnsim" gateway --development-port "$dev_port" --production-port 0 --control-port "$control_port" \
    --device-port "${world_device_port:-$device_port}" --max-sends 1000 --max-deliveries 1000 --handshake-timeout 60 "$@"
  gateway_pid=$last_pid
  wait_for "the gateway under callgrind" 300 curl -sf "http://127.0.0.1:$control_port/v1/health"
}

start_devices() { # start_devices PATH [FLAG…] — 100 devices under callgrind, each push's extension Braze's; sets $devices_pid
  # once all have linked and registered, and writes a push URL for each to $work/urls
  under_callgrind devices "$apnsim" device --count 100 --id bench --data "$work/devices-$1" \
    --extension com.example.app:com.example.app.NotificationService:braze "${@:2}"
  devices_pid=$last_pid
  for _ in $(seq 3000); do
    online=$(curl -sf "http://127.0.0.1:$control_port/v1/devices" | python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin) if d["online"] and d["apps"]))')
    [[ "$online" == 100 ]] && break
    sleep 0.2
  done
  [[ "$online" == 100 ]] || { echo "only $online of 100 devices came online under callgrind" >&2; exit 1; }
  curl -sf "http://127.0.0.1:$control_port/v1/devices" | python3 -c 'import json,sys; [print("https://127.0.0.1:'"$dev_port"'/3/device/" + d["apps"][0]["token"]) for d in json.load(sys.stdin)]' > "$work/urls"
}

declare -A figures parts refcounts refcount_parts
for path in "${paths[@]}"; do
  echo "$path: starting under callgrind…" >&2
  case $path in
    reference)
      under_callgrind reference "$reference" "$reference_port" Certs/gateway.pem Certs/gateway-key.pem
      wait_for "the reference server under callgrind" 300 curl -sfk --http2 -o /dev/null -X POST "https://127.0.0.1:$reference_port/3/device/x"
      echo "https://127.0.0.1:$reference_port/3/device/$(printf '%064d' 0)" > "$work/urls"
      load 1000 "$work/plain.json" "$work/urls"
      measured=$(count "$pushes" "$work/plain.json" "$work/urls" true "reference=$last_pid")
      ;;
    provider)
      start_world
      echo "https://127.0.0.1:$dev_port/3/device/$(world_token "$control_port")" > "$work/urls"
      load 2000 "$work/plain.json" "$work/urls"
      until_count sends 2000
      sent() { until_count sends $((2000 + pushes)); }
      measured=$(count "$pushes" "$work/plain.json" "$work/urls" sent "gateway=$gateway_pid")
      ;;
    display|rich)
      start_world
      if [[ $path == rich ]]; then
        under_callgrind media "$apnsim" media --port "$media_port" --directory Scenarios/media
        media_pid=$last_pid
        wait_for "the media server under callgrind" 300 curl -sf -o /dev/null "http://127.0.0.1:$media_port/media/sample.jpg"
      fi
      start_devices "$path" --device-port "$device_port"
      payload=$work/plain.json n=$pushes processes=("gateway=$gateway_pid" "devices=$devices_pid")
      # The same number of pushes as every other path: h2load's 10 new connections (their TLS handshakes, each one's
      # first JWT checked) cost the gateway about 40 million instructions, 8,000 a push over 5,000 pushes but 80,000 over
      # the 500 the rich path once took, which made a rich push look 10% dearer than it is (docs/speed.md).
      if [[ $path == rich ]]; then payload=$work/rich.json processes+=("media=$media_pid"); fi
      load 1500 "$payload" "$work/urls"
      until_count displayed 1500
      displayed() { until_count displayed $((1500 + n)); }
      measured=$(count "$n" "$payload" "$work/urls" displayed "${processes[@]}")
      ;;
    cluster)
      start_postgres "$pg_port"
      # r2 first, with the devices' link; then r1, on the provider port the pushes go to, with a link no device takes.
      APNSIM_STORE=$address under_callgrind peer "$apnsim" gateway --development-port 0 --production-port 0 \
        --control-port "$peer_control_port" --device-port "$device_port" --max-sends 1000 --max-deliveries 1000 --handshake-timeout 60 --replica r2
      peer_pid=$last_pid peer=r2
      wait_for "the second replica under callgrind" 300 curl -sf "http://127.0.0.1:$peer_control_port/v1/health"
      world_device_port=0 APNSIM_STORE=$address start_world --replica r1
      start_devices cluster --gateway "127.0.0.1:$device_port"
      load 1500 "$work/plain.json" "$work/urls"
      until_count displayed 1500
      displayed() { until_count displayed $((1500 + pushes)); }
      server_before=$(postgres_cpu "$pg")
      measured=$(count "$pushes" "$work/plain.json" "$work/urls" displayed "gateway=$gateway_pid" "peer=$peer_pid" "devices=$devices_pid")
      postgres_us=$(awk -v a="$(postgres_cpu "$pg")" -v b="$server_before" -v n="$pushes" 'BEGIN {printf "%.1f", (a - b) / n * 1e6}')
      ;;
    *) echo "unknown path $path: reference, provider, display, rich or cluster" >&2; exit 64 ;;
  esac
  figures[$path]=${measured%% *}
  read -r -a split <<< "${measured#* }"
  parts[$path]=$(printf '%s %s, ' "${split[@]}")
  read -r counted < "$work/refcounts"
  refcounts[$path]=${counted%% *}
  read -r -a split <<< "${counted#* }"
  refcount_parts[$path]=$(printf '%s %s, ' "${split[@]}")
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  echo "$path: ${figures[$path]} instructions per push" >&2
done

echo
echo "instructions per push (callgrind; $pushes pushes each; 10 connections x 100 streams)"
for path in "${paths[@]}"; do
  case $path in
    reference) what="bare SwiftNIO HTTP/2 + TLS answering 200" ;;
    provider) what="apnsim gateway, no device: validated, routed, recorded" ;;
    display) what="gateway + 100 devices: sent to display" ;;
    rich) what="gateway + 100 devices + media server: image downloaded and attached" ;;
    cluster) what="two replicas on PostgreSQL + 100 devices: accepted by one, handed off, sent to display by the other" ;;
  esac
  printf '%-10s %10s  %s (%s)\n' "$path" "${figures[$path]}" "$what" "${parts[$path]%, }"
done
echo
echo "retains and releases per push (calls to swift_retain and swift_release: atomic operations, which cost three to four"
echo "times their share of the instructions in time; docs/speed.md)"
for path in "${paths[@]}"; do
  printf '%-10s %10s  (%s)\n' "$path" "${refcounts[$path]}" "${refcount_parts[$path]%, }"
done
echo
ratio() { # ratio A B LABEL NOTE — A's count over B's, when both were measured
  [[ -n "${figures[$1]:-}" && -n "${figures[$2]:-}" ]] || return 0
  python3 -c 'import sys; print("%-22s %6.2f  (%s)" % (sys.argv[1], int(sys.argv[2]) / int(sys.argv[3]), sys.argv[4]))' \
    "$3" "${figures[$1]}" "${figures[$2]}" "$4"
}
ratio reference provider "reference / provider" "the part of the provider path that is SwiftNIO's own; goal of the rate ratio: 0.85" || true
ratio provider display "provider / display" "the provider path's share of send to display; goal of the rate ratio: 0.5" || true
ratio display rich "display / rich" "a plain push's share of a rich one; goal of the rate ratio: 0.5" || true
ratio display cluster "display / cluster" "one gateway's send to display against the cluster's, a hand-off between replicas" || true
[[ -z "${postgres_us:-}" ]] || echo "PostgreSQL's CPU a push on the cluster path: $postgres_us µs (its processes, /proc; not under callgrind)"
