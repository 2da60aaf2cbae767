# Sourced by the interop checks: starts `apnsim up` in the background and waits for its banner.
#
#   start_up APNSIM WORK SECONDS ARGS...   sets $up (its PID) and stops it, its devices and WORK on exit;
#                                          --device-port must be among ARGS (it names the devices to stop)
#
# Gateways and sandboxes started by a script that sources this take channel-management ports the kernel picks (their
# defaults are Apple's 2195 and 2196) unless they name them, so that a run beside `apnsim up` or another check neither
# fails to bind them nor takes them from it.
export APNSIM_DEVELOPMENT_MANAGEMENT_PORT=${APNSIM_DEVELOPMENT_MANAGEMENT_PORT:-0} APNSIM_PRODUCTION_MANAGEMENT_PORT=${APNSIM_PRODUCTION_MANAGEMENT_PORT:-0}
start_up() {
  local apnsim=$1 work=$2 seconds=$3
  shift 3
  local device_port
  device_port=$(printf '%s\n' "$@" | grep -A1 -x -- --device-port | tail -1)
  "$apnsim" up --data "$work/devices" "$@" >"$work/up.log" 2>&1 &
  up=$!
  # shellcheck disable=SC2064  # the values now, not at exit
  trap "kill $up 2>/dev/null || true; pkill -f 'device-port $device_port' 2>/dev/null || true; rm -rf '$work'" EXIT
  for _ in $(seq $((seconds * 10))); do
    grep -q "Ctrl-C stops everything" "$work/up.log" && return 0
    kill -0 $up 2>/dev/null || { cat "$work/up.log"; echo "apnsim up exited"; exit 1; }
    sleep 0.1
  done
  cat "$work/up.log"
  echo "apnsim up did not print its banner within $seconds s"
  exit 1
}
