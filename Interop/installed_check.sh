#!/usr/bin/env bash
# apnsim as an installed binary: the release binary out of the image Interop/image.sh built (no second release build),
# copied alone into an empty folder with no checkout near it and a home folder of its own, as a user copying it to a
# server or into a CI job has it:
#
#   1. `apnsim up` starts there with nothing but the binary: the sandbox world, its media, the development PKI and the
#      inbox page come out of the binary, the banner says so and names the data folder they were written to;
#   2. the `apnsim send` line it prints, run there, is answered 200 and the push is displayed;
#   3. the inbox URL it prints serves the page and its scripts;
#   4. `apnsim certs` names the same PKI; Ctrl-C stops everything; the folder still holds only the binary.
#
# Usage: bash Interop/installed_check.sh     (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
source Interop/containers/podman.sh
ensure_podman >/dev/null
podman image exists apnsim:latest || bash Interop/image.sh
work=$(mktemp -d /tmp/apnsim-installed.XXXXXX)
folder=$work/empty home=$work/home
mkdir -p "$folder" "$home"
dev_port=23297 control_port=28397 device_port=25423 media_port=28299
container=$(podman create apnsim:latest)
podman cp "$container:/usr/local/bin/apnsim" "$folder/apnsim" >/dev/null
podman rm "$container" >/dev/null
echo "copied /usr/local/bin/apnsim out of apnsim:latest into an empty folder: $(ls -A "$folder")" \
     "($(stat -c %s "$folder/apnsim" | awk '{printf "%.0f MB", $1/1e6}'))"
if ldd "$folder/apnsim" | grep "not found" >/dev/null; then ldd "$folder/apnsim" | grep "not found"; echo "the binary needs libraries this machine lacks"; exit 1; fi

# The user's environment: a home of its own, and none of the variables that would point apnsim at files.
run() { (cd "$folder" && exec env -u APNSIM_HOME -u XDG_DATA_HOME -u APNSIM_CERTS -u APNSIM_WORLD HOME="$home" \
  APNSIM_DEVELOPMENT_MANAGEMENT_PORT=0 APNSIM_PRODUCTION_MANAGEMENT_PORT=0 "$@"); }
# Started without the function, whose own background subshell would be $! and ignore SIGINT: the subshell here execs
# apnsim, so $! is apnsim up's PID and the SIGINT below reaches it.
(cd "$folder" && exec env -u APNSIM_HOME -u XDG_DATA_HOME -u APNSIM_CERTS -u APNSIM_WORLD HOME="$home" \
  APNSIM_DEVELOPMENT_MANAGEMENT_PORT=0 APNSIM_PRODUCTION_MANAGEMENT_PORT=0 ./apnsim up --development-port "$dev_port" \
  --production-port 0 --control-port "$control_port" --device-port "$device_port" --media-port "$media_port") >"$work/up.log" 2>&1 &
up=$!
trap 'kill $up 2>/dev/null || true; pkill -f "device-port $device_port" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 600); do
  grep -q "Ctrl-C stops everything" "$work/up.log" && break
  kill -0 $up 2>/dev/null || { cat "$work/up.log"; echo "apnsim up exited"; exit 1; }
  sleep 0.1
done
grep -q "Ctrl-C stops everything" "$work/up.log" || { cat "$work/up.log"; echo "apnsim up printed no banner within 60 s"; exit 1; }
data=$home/.local/share/apnsim
for what in world PKI "media files"; do
  grep -E "^  $what +$data/.* \(built into apnsim\)$" "$work/up.log" ||
    { cat "$work/up.log"; echo "the banner does not say the $what came out of the binary into $data"; exit 1; }
done
[[ -f "$data/Certs/ca.pem" && -f "$data/Scenarios/sandbox.yaml" && -f "$data/Scenarios/media/sample.jpg" ]] ||
  { find "$data"; echo "the data folder lacks the files the banner names"; exit 1; }

send=$(grep -oE "apnsim send --token [0-9a-f]+.*" "$work/up.log" | sed -n 1p)
[[ -n "$send" ]] || { cat "$work/up.log"; echo "the banner has no apnsim send command"; exit 1; }
token=$(awk '{print $4}' <<<"$send")
# shellcheck disable=SC2086  # the printed command's arguments
run ./$send | tee "$work/send.out"
grep -q "status: 200" "$work/send.out" || { echo "the banner's $send was not answered 200"; exit 1; }
curl -sf "http://127.0.0.1:$control_port/v1/deliveries?token=$token&wait=30" | grep '"outcome":"displayed"' >/dev/null ||
  { curl -s "http://127.0.0.1:$control_port/v1/deliveries?token=$token"; echo "the push was not displayed"; exit 1; }
echo "the banner's send line: 200, displayed"

inbox=$(grep -oE "inbox \(open it in a browser\) +http://[0-9.:]+/" "$work/up.log" | awk '{print $NF}')
[[ -n "$inbox" ]] || { cat "$work/up.log"; echo "the banner names no inbox"; exit 1; }
curl -sf "$inbox" | grep "<title>" >/dev/null || { echo "$inbox did not serve the inbox page"; exit 1; }
for file in inbox.js inbox.css render.js; do
  curl -sf -o /dev/null "${inbox}inbox/$file" || { echo "${inbox}inbox/$file was not served"; exit 1; }
done
echo "the inbox at $inbox served the page and its files"

# Into a file first: head ending the pipe early would stop tee with SIGPIPE, and pipefail fail the check (CI, 2026-11-29).
run ./apnsim certs >"$work/certs.out"
head -3 "$work/certs.out"
grep -q "^  $data/Certs/ca.pem " "$work/certs.out" || { echo "apnsim certs does not name $data/Certs/ca.pem"; exit 1; }

kill -INT $up
for _ in $(seq 100); do kill -0 $up 2>/dev/null || break; sleep 0.1; done
if kill -0 $up 2>/dev/null; then echo "apnsim up did not stop on SIGINT"; exit 1; fi
[[ "$(ls -A "$folder")" == apnsim ]] || { ls -A "$folder"; echo "apnsim wrote into the folder it ran in"; exit 1; }
echo "installed binary check passed: nothing but the binary in its folder"
