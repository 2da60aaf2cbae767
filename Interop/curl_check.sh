#!/usr/bin/env bash
# Interop check: curl --http2 against a running apnsim gateway, with a JWT made by Apple's command-line
# recipe (openssl, DER signature) and with the provider client certificate. Exits non-zero on any surprise.
#
# Usage: curl_check.sh DEV_PORT DEV_TOKEN GONE_TOKEN   (run from the repository root)
set -euo pipefail
port=$1 token=$2 gone=$3
host=api.sandbox.push.apple.com
failures=0

# Apple's recipe ("Sending push notifications using command-line tools"), unchanged but for the names.
TEAM_ID=SIMTEAM001
AUTH_KEY_ID=SIMKEY0001
TOKEN_KEY_FILE_NAME=Certs/AuthKey_SIMKEY0001.p8
JWT_ISSUE_TIME=$(date +%s)
JWT_HEADER=$(printf '{ "alg": "ES256", "kid": "%s" }' "${AUTH_KEY_ID}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
JWT_CLAIMS=$(printf '{ "iss": "%s", "iat": %d }' "${TEAM_ID}" "${JWT_ISSUE_TIME}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
JWT_HEADER_CLAIMS="${JWT_HEADER}.${JWT_CLAIMS}"
JWT_SIGNED_HEADER_CLAIMS=$(printf "${JWT_HEADER_CLAIMS}" | openssl dgst -binary -sha256 -sign "${TOKEN_KEY_FILE_NAME}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
AUTHENTICATION_TOKEN="${JWT_HEADER}.${JWT_CLAIMS}.${JWT_SIGNED_HEADER_CLAIMS}"

push() { # push LABEL EXPECTED_STATUS EXPECTED_REASON CURL_ARGS...
  local label=$1 want_status=$2 want_reason=$3; shift 3
  local out status body
  out=$(curl -sS --http2 --cacert Certs/ca.pem --resolve "$host:$port:127.0.0.1" -o - -w '\n%{http_code} %{http_version}' "$@")
  status=$(tail -n1 <<<"$out")
  body=$(head -n -1 <<<"$out")
  if [[ "$status" == "$want_status 2" && "$body" == *"$want_reason"* ]]; then
    echo "curl $label: $status $body -> ok"
  else
    echo "curl $label: got '$status' '$body', wanted '$want_status' over HTTP/2 with '$want_reason' -> UNEXPECTED"
    failures=$((failures + 1))
  fi
}

alert='{"aps":{"alert":{"title":"curl","body":"interop"}}}'
push "JWT (DER signature), accepted" 200 "" \
  -H "apns-topic: com.example.app" -H "apns-push-type: alert" -H "authorization: bearer $AUTHENTICATION_TOKEN" \
  --data "$alert" "https://$host:$port/3/device/$token"
push "JWT, unregistered token" 410 '"reason":"Unregistered","timestamp":' \
  -H "apns-topic: com.example.app" -H "apns-push-type: alert" -H "authorization: bearer $AUTHENTICATION_TOKEN" \
  --data "$alert" "https://$host:$port/3/device/$gone"
push "client certificate, accepted" 200 "" \
  --cert Certs/provider-development.pem --key Certs/provider-development-key.pem \
  -H "apns-topic: com.example.app" -H "apns-push-type: alert" --data "$alert" "https://$host:$port/3/device/$token"
push "client certificate, no topic on a multi-topic certificate" 400 '{"reason":"MissingTopic"}' \
  --cert Certs/provider-development.pem --key Certs/provider-development-key.pem \
  -H "apns-push-type: alert" --data "$alert" "https://$host:$port/3/device/$token"

if (( failures > 0 )); then echo "curl interop FAILED: $failures unexpected answers"; exit 1; fi
echo "curl interop: all answers as expected"
