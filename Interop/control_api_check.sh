#!/usr/bin/env bash
# The control API against its own description, by a client nobody here wrote: schemathesis (PyPI) reads
# GET /v1/openapi.json from a running `apnsim up` and sends every operation generated inputs, valid and not. Every
# response must be documented and conform to its schema (the records' through records.schema.json), no input may
# get a 5xx, and the gateway must still serve afterwards. docs/control-api.openapi.yaml must be what it serves.
#
# Left out, each tested in Swift instead: GET /v1/events (an event stream that stays open for minutes;
# ControlAPITests) and GET /readyz (whose 503 until the devices link is its purpose; ProbeTests). Not checked:
# schemathesis's "schema-valid request rejected", since much of what the API refuses depends on the world (an
# app's team must be one of its teams, an activity type one its app declares), which no schema says.
#
# 25 examples an operation (APNSIM_SCHEMATHESIS_EXAMPLES), with a fixed seed: 50 took four and a half of CI's 45
# minutes. A larger count, or a seed of one's own (the third argument), explores further by hand.
#
# One worker: with two, CPython 3.11 sometimes fails inside hypothesis ("AST constructor recursion depth mismatch").
#
# Usage: bash Interop/control_api_check.sh APNSIM PYTHON [SEED]   (a Python with schemathesis; from the repository root)
set -euo pipefail
apnsim=$1 python=$2 seed=${3:-${APNSIM_SCHEMATHESIS_SEED:-20261126}}
control_port=${APNSIM_CONTRACT_CONTROL_PORT:-28597}
work=$(mktemp -d)
token="contract-$RANDOM$RANDOM"
source Interop/up.sh
export APNSIM_CONTROL_TOKEN=$token
start_up "$apnsim" "$work" 60 --development-port 0 --production-port 0 --control-port "$control_port" \
  --device-port "${APNSIM_CONTRACT_DEVICE_PORT:-25597}" --media-port 0
base=http://127.0.0.1:$control_port

[[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/devices")" == 401 ]] || { echo "the control API answered without its token"; exit 1; }

# What the gateway serves is the committed description.
curl -sf "$base/v1/openapi.json" > "$work/served.json"
"$python" - "$work/served.json" docs/control-api.openapi.yaml <<'PY'
import json, sys, yaml
served, committed = json.load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2]))
if served != committed:
    sys.exit("GET /v1/openapi.json is not docs/control-api.openapi.yaml: rebuild apnsim")
print(f"GET /v1/openapi.json is docs/control-api.openapi.yaml: {sum(len(v) for v in served['paths'].values())} operations on {len(served['paths'])} paths")
PY

log=${APNSIM_SCHEMATHESIS_LOG:-$work/st.log}
status=0
# From the scratch folder, where schemathesis keeps its cache.
st=$(cd "$(dirname "$python")" && pwd)/st
(cd "$work" && "$st" run "$base/v1/openapi.json" -H "Authorization: Bearer $token" \
  --exclude-path /v1/events --exclude-path /readyz --exclude-checks positive_data_acceptance \
  --max-examples "${APNSIM_SCHEMATHESIS_EXAMPLES:-25}" --seed "$seed" --request-timeout 70 --workers 1 --no-color) >"$log" 2>&1 || status=$?
grep -vE '^\s*$' "$log" | sed -n '/= SUMMARY =/,$p'
(( status == 0 )) || { grep -vE '^\s*$' "$log" | sed -n 1,80p; echo "schemathesis found problems (exit $status, seed $seed)"; exit 1; }

[[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/healthz")" == 200 ]] || { tail -20 "$work/up.log"; echo "the gateway stopped serving"; exit 1; }
kill -0 "$up" || { tail -20 "$work/up.log"; echo "apnsim up ended during the run"; exit 1; }
echo "the gateway still serves after the run"
