#!/usr/bin/env bash
# Scenario replay wall time: every scenario in Scenarios/ one by one (each its own `apnsim replay` process, as a
# developer reruns one), then all of them side by side in one process (--jobs), against a reference in the same
# run: the wall time of a scenario that only starts and stops its world. Prints each scenario's time, the totals,
# and the ratios (side by side over one by one; each total in worlds started and stopped).
#
# Usage: Benchmarks/replay.sh [JOBS]      (from anywhere; default 4 side by side)
# Needs: python3 (for timing); builds apnsim in release.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building apnsim (release)…"
swift build -c release --product apnsim 2>&1 | tail -1
apnsim=$(swift build -c release --show-bin-path)/apnsim
now() { python3 -c 'import time; print(time.monotonic())'; }
elapsed() { python3 -c "print(f'{$2 - $1:.2f}')"; }

cat >"$work/empty.yaml" <<YAML
name: a world started and stopped, nothing else
world: {extends: $PWD/Scenarios/sandbox.yaml}
steps:
  - wait: 0ms
YAML
# The reference: the median of five empty worlds.
reference=$(for _ in 1 2 3 4 5; do
  start=$(now); "$apnsim" replay "$work/empty.yaml" >/dev/null; end=$(now); elapsed "$start" "$end"
done | sort -n | sed -n 3p)
echo "reference: an empty world started and stopped: ${reference} s (median of 5)"

scenarios=$(python3 - <<'PY'
import pathlib
for path in sorted(pathlib.Path("Scenarios").rglob("*.yaml")):
    if "\nsteps:" in "\n" + path.read_text():
        print(path)
PY
)
count=$(echo "$scenarios" | wc -l)
echo
echo "one by one ($count scenarios, each its own apnsim replay):"
total=0
for file in $scenarios; do
  start=$(now); "$apnsim" replay "$file" >/dev/null || { echo "  $file FAILED"; exit 1; }; end=$(now)
  seconds=$(elapsed "$start" "$end")
  printf '  %6s s  %s\n' "$seconds" "$file"
  total=$(python3 -c "print(f'{$total + $seconds:.2f}')")
done
echo "  total ${total} s"

echo
start=$(now)
"$apnsim" replay Scenarios --jobs "$jobs" | tail -1
end=$(now)
side=$(elapsed "$start" "$end")
echo "side by side (--jobs $jobs, one process): ${side} s"
echo
python3 - "$reference" "$total" "$side" "$count" "$jobs" <<'PY'
import sys
reference, total, side, count, jobs = map(float, sys.argv[1:])
print(f"ratios: side by side / one by one = {side / total:.2f} (×{total / side:.1f} faster with --jobs {int(jobs)});")
print(f"        one by one = {total / reference:.1f} empty worlds ({total / count / reference:.2f} per scenario); "
      f"side by side = {side / reference:.1f} empty worlds")
PY
