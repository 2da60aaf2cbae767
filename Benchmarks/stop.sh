#!/usr/bin/env bash
# How long apnsim's processes take to stop on SIGINT, against the same process ended by SIGKILL (the floor: the
# kernel ends it and the parent sees it go) in the same run. For `apnsim device` linking to a gateway that is not
# there (1 and 100 devices) and for an idle `apnsim gateway`, ROUNDS times each: prints the median and the slowest
# of both, and the ratio of the medians. ProcessStopTests checks that each stops and says so; this measures how fast.
#
# Usage: Benchmarks/stop.sh [ROUNDS]   (from anywhere; default 20)
#        APNSIM_BIN=PATH Benchmarks/stop.sh   (measure that binary instead of building this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
rounds=${1:-20}
scratch
apnsim=$(release_apnsim)

python3 - "$apnsim" "$rounds" "$work" <<'PY'
import os, signal, socket, statistics, subprocess, sys, time
apnsim, rounds, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def unused_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

def stop_ms(command, ready, sig):
    """Starts command, waits for `ready` in its output, sends sig; milliseconds until it has exited."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seen = b""
    while ready not in seen:
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk: sys.exit(f"{command[1]} ended before printing {ready!r}: {seen.decode()[-500:]}")
        seen += chunk
    began = time.monotonic()
    process.send_signal(sig)
    process.communicate(timeout=60)
    return (time.monotonic() - began) * 1000

cases = [
    ("device, gateway not there", lambda n: [apnsim, "device", "--id", "stop", "--device-port", str(unused_port()),
                                             "--data", f"{work}/d{n}"], b"started, linking to"),
    ("100 devices, gateway not there", lambda n: [apnsim, "device", "--id", "stop", "--count", "100",
                                                  "--device-port", str(unused_port()), "--data", f"{work}/e{n}"], b"started, linking to"),
    ("gateway, idle", lambda n: [apnsim, "gateway", "--development-port", "0", "--production-port", "0",
                                 "--control-port", "0", "--device-port", "0"], b"CA to trust"),
]
print(f"{'process':32} {'SIGINT median':>14} {'max':>8} {'SIGKILL median':>15} {'max':>8} {'ratio':>6}")
for name, command, ready in cases:
    graceful = [stop_ms(command(n), ready, signal.SIGINT) for n in range(rounds)]
    killed = [stop_ms(command(n), ready, signal.SIGKILL) for n in range(rounds)]
    gm, km = statistics.median(graceful), statistics.median(killed)
    print(f"{name:32} {gm:11.1f} ms {max(graceful):5.0f} ms {km:12.1f} ms {max(killed):5.0f} ms {gm / km:6.1f}")
print(f"({rounds} stops of each; times from the signal to the exit, seen by the parent)")
PY
