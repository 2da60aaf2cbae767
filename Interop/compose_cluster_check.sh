#!/usr/bin/env bash
# The compose file's cluster profile (docs/cluster.md) as a provider team runs it, under Debian's podman: PostgreSQL,
# three gateway replicas sharing it, HAProxy in front of them on the single gateway's host ports, and three device
# containers given every replica. No registry is reachable, so PostgreSQL and HAProxy are stand-ins built from Debian's
# packages (Interop/containers/postgres-stand-in.Containerfile, haproxy-stand-in.Containerfile).
#
#   1. up as docs/cluster.md says; the control API through HAProxy lists every device, each with its replica.
#   2. aioapns on the host sends 1,200 alerts through HAProxy; the replica with the most devices is SIGKILLed as the
#      300th is answered 200.
#   3. 0 pushes answered 200 lost: each is displayed, or replaced by a newer one for its app while its device moved to
#      another replica (APNs keeps one); the devices link again; down leaves nothing behind.
#
# Usage: bash Interop/compose_cluster_check.sh PYTHON      (a Python with aioapns; from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
python=$1
source Interop/containers/podman.sh
ensure_podman >/dev/null
podman image exists apnsim:latest || bash Interop/image.sh
base=localhost/apnsim-stand-in/debian:bookworm
export POSTGRES_IMAGE=localhost/apnsim-stand-in/postgres:bookworm HAPROXY_IMAGE=localhost/apnsim-stand-in/haproxy:bookworm
for stand_in in postgres haproxy; do
  image=localhost/apnsim-stand-in/$stand_in:bookworm
  podman image exists "$image" || podman build -q --build-arg BASE="$base" -f "Interop/containers/$stand_in-stand-in.Containerfile" \
    -t "$image" Interop/containers >/dev/null
done
work=$(mktemp -d /tmp/apnsim-cluster.XXXXXX)
project=apnsimcluster
token=$(random_secret)
control=http://127.0.0.1:8197

source Interop/containers/compose.sh
export COMPOSE_PROJECT_NAME=$project APNSIM_CONTROL_TOKEN=$token APNSIM_DEVICE_COUNT=4
cleanup() {
  compose --profile cluster down -v -t 10 >/dev/null 2>&1 || true
  compose_engine_stop
  rm -rf "$work"
}
trap cleanup EXIT
compose_engine "$work"
remove_leftovers "$project"
ports_free 2197 2198 8197 8199 2195 2196
linked() {
  curl -sf -H "Authorization: Bearer $token" "$control/v1/devices" |
    "$python" -c 'import collections, json, sys; print(" ".join(f"{r}:{n}" for r, n in sorted(collections.Counter(d.get("replica") for d in json.load(sys.stdin) if d["online"]).items())))'
}

say "1. docker compose --profile cluster up -d --scale cluster-device=3 gateways cluster-device"
compose --profile cluster up -d --no-build --scale cluster-device=3 gateways cluster-device 2>&1 | grep -v "^Creating\|^Starting" || true
within 180 ready || { compose --profile cluster logs --tail 20; exit 1; }
within 180 devices_online 12 || { compose --profile cluster logs --tail 20 cluster-device; exit 1; }
echo "12 devices online, by the replica they are linked to: $(linked)"
victim=$(linked | tr ' ' '\n' | sort -t: -k2 -n | tail -1 | cut -d: -f1)
[[ "$victim" == gateway-* ]] || { echo "no replica has devices: $(linked)"; exit 1; }

say "2. aioapns through HAProxy: 1,200 alerts; $victim SIGKILLed at the 300th answered 200"
"$python" Interop/compose_check.py load "$control" "$token" Certs/ca.pem Certs/AuthKey_SIMKEY0001.p8 2197 1200 300 \
  "podman kill -s KILL ${project}_${victim}_1 >/dev/null" "$work/ids.json"

say "3. every push answered 200 kept"
"$python" Interop/compose_check.py kept "$control" "$token" "$work/ids.json"
within 120 devices_online 12 || { echo "the devices did not all link again: $(linked)"; exit 1; }
echo "12 devices online again: $(linked)"

say "4. compose down"
compose --profile cluster down -v -t 10 >/dev/null 2>&1
left=$(podman ps -aq --filter "label=com.docker.compose.project=$project")
[[ -z "$left" ]] || { echo "compose down left containers: $left"; exit 1; }
echo "cluster profile check passed"
