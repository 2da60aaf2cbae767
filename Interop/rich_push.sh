# Sourced by the sandbox and sample checks: sends one mutable-content push with `apnsim send` and checks its
# delivery record. Needs $apnsim, $python, $token, $dev_port, $control_port and $work.
#
# rich_push LABEL BODY PAYLOAD-KEYS PYTHON-CHECK [APS-KEYS]: PAYLOAD-KEYS follow `aps` (`,"k":"v"`, or empty), APS-KEYS
# go inside it (`,"category":"ORDER"`); the check is a Python expression over `delivery`, `run` (its extension
# record), `content` and `types` (the attached UTIs).
rich_push() {
  local label=$1 body=$2 keys=$3 check=$4 aps_keys=${5:-} id
  id=$(tr a-f A-F < /proc/sys/kernel/random/uuid)
  "$apnsim" send --token "$token" --port "$dev_port" --apns-id "$id" \
    --payload "{\"aps\":{\"alert\":{\"title\":\"Rich\",\"body\":\"$body\"},\"mutable-content\":1$aps_keys}$keys}" > "$work/rich.out"
  grep -q "status: 200" "$work/rich.out" || { cat "$work/rich.out"; echo "$label: the $body push was not accepted"; exit 1; }
  curl -sf "http://127.0.0.1:$control_port/v1/deliveries?apnsId=$id&wait=30" > "$work/rich.json"
  "$python" - "$work/rich.json" "$label: $body" "$check" <<'PY'
import json, sys
delivery = json.load(open(sys.argv[1]))[0]
run, content = delivery.get("extension", {}), delivery.get("content", {})
types = [a.get("type") for a in content.get("attachments", [])]
assert all("refusal" not in a for a in content.get("attachments", [])), "content lists only what is shown"
assert delivery["outcome"] == "displayed" and eval(sys.argv[3]), delivery
print(f"{sys.argv[2]}: {run['kind']} {run['outcome']} in {run['durationMs']} ms, attached {types}, body {content.get('body')!r}")
PY
}
