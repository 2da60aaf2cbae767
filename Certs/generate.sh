#!/usr/bin/env bash
# Makes apnsim's development PKI with the openssl CLI. Everything here is for local testing only:
# the private keys are public by being committed. Run from anywhere; files land beside this script.
#
#   ca.pem / ca-key.pem                      the apnsim development CA, a root (trust this in your provider)
#   server-ca.pem / server-ca-key.pem        an intermediate CA under it that issues the gateway's certificate, as
#                                            Apple's servers are issued by an intermediate under their root
#   gateway.pem / gateway-key.pem            the gateway's TLS chain (its certificate, then server-ca.pem's):
#                                            localhost, 127.0.0.1, ::1, gateway
#                                            (its name in docker-compose.yml), apnsim-gateway (deploy/kubernetes),
#                                            the replicas' names (deploy/cluster, compose profile cluster)
#                                            and Apple's host names, so clients keep their usual host
#   AuthKey_SIMKEY0001.p8                    provider signing key (team SIMTEAM001, key SIMKEY0001)
#   AuthKey_SIMKEY0001.pub.pem               its public half, which the world file names
#   provider-development.pem / -key.pem      client certificate for com.example.app, development environment
#   provider-production.pem / -key.pem       the same for production
#   provider-*-bundle.pem                    certificate and key in one file (aioapns, many PHP/Python clients)
#   device.pem / device-key.pem              identity of simulated devices on the device link (port 5223)
#
# With --gateway-only [NAME...], only the gateway's certificate is issued again, by the CA already here, with NAME...
# (host names or IP addresses) added to its names: the name providers and devices reach it by in your deployment.
#
# With --new-root DIR, a CA move is rehearsed, as Apple moved APNs' server certificates to a new root in 2025 (USERTrust
# RSA): DIR gets a second root (new-root.pem), an intermediate under it, the gateway's chain issued by that one, and
# ca.pem holding both roots (what the gateway checks client certificates against and devices trust during the move),
# old-root.pem (this folder's ca.pem alone) and copies of the device and provider files. `apnsim gateway --certs DIR`
# then serves the new chain: a provider that trusts only old-root.pem fails its handshake, one that trusts both roots
# connects (docs/gateway.md, "A CA move").
set -euo pipefail
if [[ "${1:-}" == "--new-root" ]]; then
  [[ -n "${2:-}" ]] || { echo "--new-root takes the folder to write the rehearsal's files to" >&2; exit 2; }
  rehearsal=$(realpath -m "$2")
fi
cd "$(dirname "$0")"

days=7300   # 20 years: these files are committed and must not expire under users
bundle=com.example.app
# The gateway's names: loopback; its service name in docker-compose.yml (gateway) and in deploy/kubernetes
# (apnsim-gateway, in the namespace apnsim); Apple's host names, so clients keep their usual host. More with
# --gateway-only NAME...
gateway_names="DNS:localhost, IP:127.0.0.1, IP:::1, DNS:gateway, DNS:apnsim-gateway, DNS:apnsim-gateway.apnsim.svc"
gateway_names+=", DNS:apnsim-gateway.apnsim.svc.cluster.local, DNS:api.sandbox.push.apple.com, DNS:api.development.push.apple.com"
# Replicas (docs/cluster.md): the headless Service devices resolve to every replica by (deploy/cluster), and the compose
# profile cluster's three replicas and the HAProxy in front of them.
gateway_names+=", DNS:apnsim-gateway-replicas, DNS:apnsim-gateway-replicas.apnsim.svc, DNS:apnsim-gateway-replicas.apnsim.svc.cluster.local"
gateway_names+=", DNS:gateway-1, DNS:gateway-2, DNS:gateway-3, DNS:gateways"
gateway_names+=", DNS:api.push.apple.com, DNS:api-manage-broadcast.sandbox.push.apple.com, DNS:api-manage-broadcast.push.apple.com"
gateway_names+=", DNS:api-broadcast.sandbox.push.apple.com, DNS:api-broadcast.push.apple.com"
if [[ "${1:-}" == "--gateway-only" ]]; then
  for name in "${@:2}"; do
    if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then gateway_names+=", IP:$name"; else gateway_names+=", DNS:$name"; fi
  done
fi
conf=$(mktemp)
trap 'rm -f "$conf" ./*.csr ./*.srl' EXIT

cat > "$conf" <<CONF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused

[device_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid

[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[server_ca_ext]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[gateway_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = ${gateway_names}
authorityKeyIdentifier = keyid

# Apple's APNs certificate extensions (Apple, "Establishing a certificate-based connection to APNs"): an environment
# marker (value NULL) and the topic list, a SEQUENCE of topic strings each followed by a SEQUENCE naming its type.
[provider_development_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.3.1 = ASN1:NULL
1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics

[provider_production_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.3.2 = ASN1:NULL
1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics

[topics]
t1 = UTF8:${bundle}
t1type = SEQUENCE:type_app
t2 = UTF8:${bundle}.voip
t2type = SEQUENCE:type_voip
t3 = UTF8:${bundle}.complication
t3type = SEQUENCE:type_complication
[type_app]
t = UTF8:app
[type_voip]
t = UTF8:voip
[type_complication]
t = UTF8:complication
CONF

eckey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }

issue() { # issue NAME SUBJECT EXTENSIONS [ISSUER]: ISSUER.pem and ISSUER-key.pem sign it (ca when absent)
  local issuer=${4:-ca}
  eckey "$1-key.pem"
  openssl req -new -config "$conf" -key "$1-key.pem" -subj "$2" -out "$1.csr"
  openssl x509 -req -in "$1.csr" -CA "$issuer.pem" -CAkey "$issuer-key.pem" -CAcreateserial -days "$days" \
    -extfile "$conf" -extensions "$3" -out "$1.pem"
}

gateway_chain() { # gateway_chain ROOT: an intermediate under ROOT.pem, the gateway's certificate under it, the chain
  issue server-ca "/O=apnsim/CN=apnsim Development Server CA" server_ca_ext "$1"
  issue gateway "/O=apnsim/CN=api.sandbox.push.apple.com" gateway_ext server-ca
  cat server-ca.pem >> gateway.pem
}

if [[ "${1:-}" == "--gateway-only" ]]; then
  gateway_chain ca
  echo "gateway certificate and its intermediate issued again in $(pwd)"
  exit 0
fi

if [[ "${1:-}" == "--new-root" ]]; then
  certs=$(pwd)
  mkdir -p "$rehearsal"
  cp ca.pem "$rehearsal/old-root.pem"
  cp device.pem device-key.pem provider-*.pem AuthKey_SIMKEY0001.p8 AuthKey_SIMKEY0001.pub.pem "$rehearsal/"
  cd "$rehearsal"
  trap 'rm -f "$conf" ./*.csr ./*.srl' EXIT
  eckey new-root-key.pem
  openssl req -new -x509 -config "$conf" -key new-root-key.pem -subj "/O=apnsim/CN=apnsim Development Root CA 2" \
    -days "$days" -extensions ca_ext -out new-root.pem
  gateway_chain new-root
  cat old-root.pem new-root.pem > ca.pem
  echo "CA move rehearsal written to $(pwd): apnsim gateway --certs $(pwd); old-root.pem is what $certs/ca.pem was"
  exit 0
fi

# The CA
eckey ca-key.pem
openssl req -new -x509 -config "$conf" -key ca-key.pem -subj "/O=apnsim/CN=apnsim Development CA" \
  -days "$days" -extensions ca_ext -out ca.pem

gateway_chain ca
issue provider-development "/UID=${bundle}/CN=Apple Development IOS Push Services: ${bundle}/OU=SIMTEAM001/O=apnsim/C=US" provider_development_ext
issue provider-production "/UID=${bundle}/CN=Apple Push Services: ${bundle}/OU=SIMTEAM001/O=apnsim/C=US" provider_production_ext
issue device "/O=apnsim/CN=apnsim simulated device" device_ext
for env in development production; do cat "provider-$env.pem" "provider-$env-key.pem" > "provider-$env-bundle.pem"; done

# The provider signing key, as Apple hands it out: PKCS#8 PEM named AuthKey_<KeyID>.p8
eckey AuthKey_SIMKEY0001.p8
openssl pkey -in AuthKey_SIMKEY0001.p8 -pubout -out AuthKey_SIMKEY0001.pub.pem

echo "apnsim development PKI written to $(pwd)"
