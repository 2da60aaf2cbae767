#!/usr/bin/env bash
# deploy/kubernetes checked without a cluster (none runs here):
#
#   1. the kustomize base renders with kubectl, and every manifest, and the rendered whole, validates strictly
#      against the Kubernetes schemas kubernetes-validate ships (an unknown or misspelt field fails); so does the
#      base as the load-test overlay (deploy/load-test) sizes it, and the cluster overlay (deploy/cluster: the gateway
#      a Deployment of 3 on PostgreSQL, its address a Secret, a headless Service for devices); the gateway's
#      certificate names the Services the manifests give it.
#   2. the rendered gateway, devices and media workloads run under podman as their pod specs say
#      (Interop/kubernetes_pods.py: image, args, env, the Secret as a file, volumes, user, read-only root, no
#      capabilities), reaching each other by the Services' names: the gateway's readiness probe answers, the
#      devices pod's 100 devices link, a rich push is displayed with the media pod's image, and each stops on SIGTERM.
#      Their memory and CPU then are the figures the manifests' resource requests come from.
#
# Usage: bash Interop/kubernetes_check.sh PYTHON    (a Python with kubernetes-validate; from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
python=$1
validate=$(dirname "$python")/kubernetes-validate
work=$(mktemp -d /tmp/apnsim-kubernetes.XXXXXX)
rendered=$work/rendered.yaml
network=apnsim-kubernetes-check
pods=(apnsim-gateway apnsim-media apnsim-devices)
cleanup() {
  podman rm -f "${pods[@]}" >/dev/null 2>&1 || true
  podman network rm -f "$network" >/dev/null 2>&1 || true
  rm -rf "$work"
  [[ -z "${made_token:-}" ]] || rm -f deploy/kubernetes/control-token
  [[ -z "${made_store_url:-}" ]] || rm -f deploy/cluster/store-url
}
trap cleanup EXIT

# The repository holds no control token: without the file the base does not render, and the error names it.
if [[ ! -f deploy/kubernetes/control-token ]]; then
  if refusal=$(kubectl kustomize deploy/kubernetes 2>&1); then echo "deploy/kubernetes rendered without a control-token file"; exit 1; fi
  grep -q "control-token" <<<"$refusal" || { echo "kustomize refused without naming control-token: $refusal"; exit 1; }
  echo "without deploy/kubernetes/control-token: refused ($(grep -m1 -o "[^:]*control-token[^:]*" <<<"$refusal" | sed -n 1p))"
  made_token=1
  printf 'ci-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > deploy/kubernetes/control-token
fi
kubectl kustomize deploy/kubernetes >"$rendered"
echo "rendered: $(grep -cE '^kind:' "$rendered") resources ($(grep -E '^kind:' "$rendered" | sort | uniq -c | awk '{printf "%s %s, ", $1, $3}' | sed 's/, $//'))"
for version in 1.29.0 1.37.0; do
  "$validate" --strict --quiet -k "$version" "$rendered" $(ls deploy/kubernetes/*.yaml | grep -v kustomization.yaml)
  echo "valid against Kubernetes $version: the rendered base and each manifest"
done
kubectl kustomize deploy/load-test >"$work/load-test.yaml"
grep -q 'value: "25000"' "$work/load-test.yaml" || { echo "deploy/load-test does not set 25,000 devices a pod"; exit 1; }
for version in 1.29.0 1.37.0; do
  "$validate" --strict --quiet -k "$version" "$work/load-test.yaml"
done
echo "valid against Kubernetes 1.29.0 and 1.37.0: the load-test overlay (4 device pods of 25,000)"
# The cluster overlay: three gateway replicas of a Deployment on a PostgreSQL whose address is a Secret made from
# deploy/cluster/store-url, which the repository does not hold either.
if [[ ! -f deploy/cluster/store-url ]]; then
  if refusal=$(kubectl kustomize deploy/cluster 2>&1); then echo "deploy/cluster rendered without a store-url file"; exit 1; fi
  grep -q "store-url" <<<"$refusal" || { echo "kustomize refused without naming store-url: $refusal"; exit 1; }
  echo "without deploy/cluster/store-url: refused"
  made_store_url=1
  printf 'postgres://apnsim:ci-%s@postgres.example:5432/apnsim' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > deploy/cluster/store-url
fi
kubectl kustomize deploy/cluster >"$work/cluster.yaml"
[[ -z "${made_store_url:-}" ]] || rm -f deploy/cluster/store-url
for version in 1.29.0 1.37.0; do
  "$validate" --strict --quiet -k "$version" "$work/cluster.yaml" deploy/cluster/gateway-replicas.yaml
done
"$python" - "$work/cluster.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
gateway = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "apnsim-gateway")
assert gateway["spec"]["replicas"] == 3, gateway["spec"]["replicas"]
assert not any(d["kind"] == "StatefulSet" and d["metadata"]["name"] == "apnsim-gateway" for d in docs), "the single gateway is still there"
env = {e["name"]: e for e in gateway["spec"]["template"]["spec"]["containers"][0]["env"]}
secret = env["APNSIM_STORE"]["valueFrom"]["secretKeyRef"]["name"]
assert any(d["kind"] == "Secret" and d["metadata"]["name"] == secret for d in docs), secret
headless = next(d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "apnsim-gateway-replicas")
assert headless["spec"]["clusterIP"] == "None"
devices = next(d for d in docs if d["kind"] == "StatefulSet" and d["metadata"]["name"] == "apnsim-devices")
denv = {e["name"]: e.get("value") for e in devices["spec"]["template"]["spec"]["containers"][0]["env"]}
assert denv.get("APNSIM_GATEWAYS") == "apnsim-gateway-replicas:5223" and "APNSIM_GATEWAY_HOST" not in denv, denv
print(f"deploy/cluster: valid against Kubernetes 1.29.0 and 1.37.0; the gateway a Deployment of 3, its store the Secret {secret},"
      " devices given every replica by the headless Service apnsim-gateway-replicas")
PY
for name in apnsim-gateway apnsim-gateway.apnsim.svc apnsim-gateway.apnsim.svc.cluster.local apnsim-gateway-replicas \
            apnsim-gateway-replicas.apnsim.svc apnsim-gateway-replicas.apnsim.svc.cluster.local; do
  openssl verify -CAfile Certs/ca.pem -untrusted Certs/gateway.pem -verify_hostname "$name" Certs/gateway.pem >/dev/null
done
echo "Certs/gateway.pem names apnsim-gateway, apnsim-gateway-replicas and their namespaced names"

source Interop/containers/podman.sh
ensure_podman >/dev/null
podman image exists apnsim:latest || bash Interop/image.sh
source Interop/containers/compose.sh  # within
token=$(kubectl kustomize deploy/kubernetes | "$python" -c 'import base64, sys, yaml; print(next(base64.b64decode(d["data"]["control-token"]).decode() for d in yaml.safe_load_all(sys.stdin) if d and d["kind"] == "Secret"))')
in_gateway() { podman exec apnsim-gateway "$@"; }
api() { in_gateway curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:8197$1"; }
remove_leftovers "${pods[@]}"
podman network rm -f "$network" >/dev/null 2>&1 || true
podman network create "$network" >/dev/null
"$python" Interop/kubernetes_pods.py "$rendered" "$network" "$work" "${pods[@]}" > "$work/run.sh"
sed -n 's/ -e APNSIM[^ ]*//g; s/^/  /p' "$work/run.sh" | cut -c1-220
bash "$work/run.sh" >/dev/null
within 120 in_gateway curl -fsS http://127.0.0.1:8197/readyz || { podman logs apnsim-gateway | tail; exit 1; }
echo "gateway: readiness probe $(in_gateway curl -s http://127.0.0.1:8197/readyz)"
linked() { api /v1/devices | "$python" -c 'import json, sys; d = json.load(sys.stdin); sys.exit(0 if sum(x["online"] for x in d if x["id"].startswith("dev-apnsim-devices-0-")) == 100 else 1)'; }
within 180 linked || { podman logs apnsim-devices | tail; exit 1; }
device_token=$(api /v1/devices | "$python" -c 'import json, sys; print(next(x["apps"][0]["token"] for x in json.load(sys.stdin) if x["id"] == "dev-apnsim-devices-0-1"))')
echo "devices: 100 linked by the Service name apnsim-gateway (dev-apnsim-devices-0-1 … -100)"
payload='{"aps":{"alert":{"title":"Kubernetes","body":"rich"},"mutable-content":1},"ab":{"att":{"url":"http://apnsim-media:8199/media/sample.jpg","type":"jpg"}}}'
in_gateway apnsim send --token "$device_token" --payload "$payload" | grep "status: 200" >/dev/null || { echo "the push was not answered 200"; exit 1; }
api "/v1/deliveries?token=$device_token&wait=60" | "$python" -c 'import json, sys; d = json.load(sys.stdin)[0]; assert d["outcome"] == "displayed" and d["content"]["attachments"], d; print("push: displayed on dev-apnsim-devices-0-1 with", d["content"]["attachments"][0]["type"], "from apnsim-media")'
echo "resources with 100 devices linked and idle (podman stats):"
podman stats --no-stream --format '  {{.Name}}: memory {{.MemUsage}}, CPU {{.CPUPerc}}' "${pods[@]}"
for pod in "${pods[@]}"; do
  began=$(date +%s%N)
  podman stop -t 30 "$pod" >/dev/null
  echo "$pod: stopped on SIGTERM in $(( ($(date +%s%N) - began) / 1000000 )) ms, status $(podman inspect "$pod" --format '{{.State.ExitCode}}')"
done
