#!/usr/bin/env bash
# Runs the tests (swift test --skip-build, with any arguments given) as a slow machine would: pinned to one core with a
# CPU-bound loop beside them on that same core, slower than any laptop a newcomer has. .ci/run runs it; a test whose
# verdict depends on the machine's speed fails here.
#
#   Tests/slow-machine.sh [--quota PERCENT] [swift test arguments…]
#
# --quota PERCENT also caps the tests at PERCENT of that core (a cgroup's CPU quota; root, cgroup v1 or v2): 25 stands
# for a machine about four times slower again. It is how the busy-machine failures of a slower 2-core machine were
# reproduced here, every time.
set -euo pipefail
cd "$(dirname "$0")/.."
quota=
if [[ "${1:-}" == "--quota" ]]; then quota=$2; shift 2; fi
command -v taskset >/dev/null || { echo "slow-machine.sh: needs taskset (util-linux)"; exit 1; }

taskset -c 0 bash -c 'while :; do :; done' &
busy=$!
group=
cleanup() {
  kill "$busy" 2>/dev/null || true
  if [[ -n "$group" ]]; then rmdir "$group" 2>/dev/null || true; fi
}
trap cleanup EXIT

if [[ -n "$quota" ]]; then
  period=100000
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then   # cgroup v2
    group=/sys/fs/cgroup/apnsim-slow-$$
    mkdir "$group"
    echo "$(( period * quota / 100 )) $period" > "$group/cpu.max"
  else                                                  # cgroup v1
    group=/sys/fs/cgroup/cpu/apnsim-slow-$$
    mkdir "$group"
    echo "$period" > "$group/cpu.cfs_period_us"
    echo "$(( period * quota / 100 ))" > "$group/cpu.cfs_quota_us"
  fi
  echo "one core, a busy loop beside the tests, and the tests held to ${quota}% of that core"
else
  echo "one core, a busy loop beside the tests"
fi

# The tests (and every process they start) join the group first, then run pinned to core 0.
bash -c 'if [[ -n "$1" ]]; then echo $$ > "$1/cgroup.procs"; fi; shift; exec taskset -c 0 swift test --skip-build "$@"' _ "$group" "$@"
