#!/usr/bin/env bash
# Metrics as Prometheus reads them (docs/metrics.md): apnsim up with a control token, pushes accepted and refused,
# then GET /metrics read by Prometheus's own text parser (the Python prometheus_client) and checked with
# `promtool check metrics`; then Debian's Prometheus scrapes apnsim with the repository's scrape configuration
# (deploy/prometheus/prometheus.yml, its target and token file pointed at this run) and its query API answers the
# send counters.
#
# Usage: Interop/metrics_check.sh APNSIM_BINARY PYTHON   (from the repository root)
set -euo pipefail
apnsim=$1 python=$2
dev_port=${APNSIM_METRICS_DEV_PORT:-22397}
control_port=${APNSIM_METRICS_CONTROL_PORT:-28397}
device_port=${APNSIM_METRICS_DEVICE_PORT:-25423}
prometheus_port=${APNSIM_METRICS_PROMETHEUS_PORT:-29090}
work=$(mktemp -d)
token_file="$work/control-token"
echo "metrics-check-$RANDOM" > "$token_file"

source Interop/up.sh
start_up "$apnsim" "$work" 30 --development-port "$dev_port" --production-port 0 --control-port "$control_port" \
  --device-port "$device_port" --media-port 0 --development-management-port 0 --control-token-file "$token_file"
token=$(grep -oE "apnsim send --token [0-9a-f]+" "$work/up.log" | sed -n 1p | awk '{print $4}')
[[ -n "$token" ]] || { cat "$work/up.log"; echo "the banner has no token"; exit 1; }
# The third with mutable-content: the device's extension runs, so extension metrics have a series (the dashboard's).
for i in 1 2 3; do
  "$apnsim" send --token "$token" --port "$dev_port" --payload "{\"aps\":{\"alert\":\"metrics $i\"$( ((i == 3)) && echo ',"mutable-content":1')}}" >/dev/null
done
unknown=$(printf '%064x' 7)
"$apnsim" send --token "$unknown" --port "$dev_port" >/dev/null && { echo "a push to an unknown token was accepted"; exit 1; }
"$apnsim" send --token "$token" --port "$dev_port" --priority 7 >/dev/null && { echo "apns-priority 7 was accepted"; exit 1; }

curl -sf -H "Authorization: Bearer $(cat "$token_file")" "http://127.0.0.1:$control_port/metrics" > "$work/metrics.txt"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$control_port/metrics")
[[ "$code" == 401 ]] || { echo "GET /metrics without the token answered $code, not 401"; exit 1; }
"$python" - "$work/metrics.txt" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
families = {family.name: family for family in text_string_to_metric_families(open(sys.argv[1]).read())}
def total(name, **labels):
    return sum(s.value for s in families[name].samples
               if s.name.endswith("_total") and all(s.labels.get(k) == v for k, v in labels.items()))
assert total("apnsim_sends", status="200") == 3, families["apnsim_sends"].samples
assert total("apnsim_sends", status="400", reason="BadDeviceToken") == 1, families["apnsim_sends"].samples
assert total("apnsim_sends", status="400", reason="BadPriority") == 1, families["apnsim_sends"].samples
for family in families.values():
    for sample in family.samples:
        assert not {"token", "apns_id"} & set(sample.labels), sample
print(f"metrics: prometheus_client read {len(families)} families; sends 200: 3, BadDeviceToken: 1, BadPriority: 1;"
      f" deliveries displayed: {total('apnsim_deliveries', outcome='displayed'):.0f}")
PY
promtool check metrics < "$work/metrics.txt"
echo "metrics: promtool check metrics found nothing to report"

# Prometheus with the repository's scrape configuration, pointed at this run's gateway and token file.
sed -e "s|gateway:8197|127.0.0.1:$control_port|" -e "s|/prometheus/apnsim-control-token|$token_file|" \
    -e "s|scrape_interval: 5s|scrape_interval: 1s|" deploy/prometheus/prometheus.yml > "$work/prometheus.yml"
promtool check config "$work/prometheus.yml" >/dev/null
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prometheus_port" >"$work/prometheus.log" 2>&1 &
prometheus_pid=$!
trap "kill $prometheus_pid 2>/dev/null || true; kill $up 2>/dev/null || true; pkill -f 'device-port $device_port' 2>/dev/null || true; rm -rf '$work'" EXIT
query="http://127.0.0.1:$prometheus_port/api/v1/query?query=sum(apnsim_sends_total)"
for _ in $(seq 300); do
  answer=$(curl -s "$query" || true)
  if echo "$answer" | grep '"value":\[[0-9.]*,"5"\]' >/dev/null; then
    echo "metrics: Prometheus scraped apnsim with deploy/prometheus/prometheus.yml; sum(apnsim_sends_total) = 5"
    break
  fi
  sleep 0.1
done
if ! echo "$answer" | grep '"value":\[[0-9.]*,"5"\]' >/dev/null; then
  tail -20 "$work/prometheus.log"
  echo "Prometheus's query API did not answer sum(apnsim_sends_total) = 5 within 30 s: $answer"
  exit 1
fi

# Every query of the Grafana dashboard (deploy/grafana/dashboards/apnsim.json), asked of this Prometheus: each must
# parse, and each series it reads must exist (a misspelt metric answers an empty result, not an error).
"$python" - "deploy/grafana/dashboards/apnsim.json" "http://127.0.0.1:$prometheus_port" <<'PY'
import json, re, sys, urllib.parse, urllib.request
dashboard, prometheus = json.load(open(sys.argv[1])), sys.argv[2]
failures, count = [], 0
for panel in dashboard["panels"]:
    for target in panel["targets"]:
        expr = target["expr"]
        count += 1
        answer = json.load(urllib.request.urlopen(f"{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": expr})))
        if answer.get("status") != "success":
            failures.append(f"{panel['title']}: {expr}: {answer}")
        for series in set(re.findall(r"\b(apnsim_[a-z_]+)", expr)):
            found = json.load(urllib.request.urlopen(f"{prometheus}/api/v1/series?" + urllib.parse.urlencode({"match[]": series})))
            if not found.get("data"):
                failures.append(f"{panel['title']}: {series} is not a series Prometheus scraped")
for failure in failures: print("FAILED:", failure)
print(f"metrics: the Grafana dashboard's {count} queries parse and read series Prometheus scraped")
sys.exit(1 if failures else 0)
PY
