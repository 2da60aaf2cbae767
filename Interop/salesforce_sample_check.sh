#!/usr/bin/env bash
# Code nobody here wrote, unchanged: the Swift NotificationService of Salesforce's MobilePush rich-notification
# guide, taken from the guide's text as it is, built by a device of `apnsim up` (kind swift) and sent the guide's
# cases over the real gateway: the image is attached; a 404 shows _mediaAlt as the body; media slower than a 2 s
# budget shows _mediaAlt through serviceExtensionTimeWillExpire; a push without _mediaUrl shows the original.
#
# Usage: Interop/salesforce_sample_check.sh APNSIM_BINARY PYTHON GUIDE   (from the repository root)
# GUIDE is the guide's text; when it is absent the check says so and passes.
set -euo pipefail
apnsim=$1 python=$2 guide=$3
if [[ ! -f "$guide" ]]; then
  echo "salesforce sample: skipped, the guide's text ($guide) is not here"
  exit 0
fi
repo=$(pwd)
dev_port=${APNSIM_SAMPLE_DEV_PORT:-23297}
control_port=${APNSIM_SAMPLE_CONTROL_PORT:-29297}
device_port=${APNSIM_SAMPLE_DEVICE_PORT:-26323}
media_port=${APNSIM_SAMPLE_MEDIA_PORT:-29199}
work=$(mktemp -d)

# The guide's "Service Extension Example in Swift" code block, byte for byte.
"$python" - "$guide" "$work/NotificationService.swift" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
start = text.index("```", text.index("## Service Extension Example in Swift")) + 3
code = text[start:text.index("```", start)].lstrip("\n")
assert "class NotificationService: UNNotificationServiceExtension" in code, "the guide's Swift block has changed"
open(sys.argv[2], "w", encoding="utf-8").write(code)
print(f"salesforce sample: {code.count(chr(10))} lines of Swift taken from the guide, imports: "
      + ", ".join(l.split()[1] for l in code.splitlines() if l.startswith("import ")))
PY

cat > "$work/world.yaml" <<YAML
teams: [{id: SIMTEAM001, name: apnsim sandbox team}]
keys:
  - {id: SIMKEY0001, team: SIMTEAM001, scope: both, publicKeyFile: $repo/Certs/AuthKey_SIMKEY0001.pub.pem}
apps:
  - bundleID: com.example.app
    team: SIMTEAM001
    serviceExtension: {bundleID: com.example.app.NotificationService, kind: swift, source: $work/NotificationService.swift, budget: 2}
    resources: $repo/Scenarios/media
devices:
  - {id: iphone-dev, name: Development iPhone, apps: [{bundleID: com.example.app, environment: development}]}
YAML

source Interop/up.sh
start_up "$apnsim" "$work" 120 --world "$work/world.yaml" --development-port "$dev_port" --production-port 0 --control-port "$control_port" --device-port "$device_port" --media-port "$media_port"
token=$(grep -oE "iphone-dev +com.example.app development +[0-9a-f]{64}" "$work/up.log" | awk '{print $4}')
[[ -n "$token" ]] || { cat "$work/up.log"; echo "the extension did not build, or the app did not register"; exit 1; }
media=$(grep -oE "media server +http://[0-9.:]+/media/" "$work/up.log" | awk '{print $3}')

source Interop/rich_push.sh
rich_push "salesforce sample" image ",\"_mediaUrl\":\"${media}sample.jpg\",\"_mediaAlt\":\"See the sale\"" \
  'run["kind"] == "swift" and run["outcome"] == "completed" and types == ["public.jpeg"] and content["body"] == "image"'
rich_push "salesforce sample" not-found ",\"_mediaUrl\":\"${media}missing.jpg\",\"_mediaAlt\":\"See the sale\"" \
  'run["kind"] == "swift" and run["outcome"] == "completed" and types == [] and content["body"] == "See the sale"'
rich_push "salesforce sample" slow ",\"_mediaUrl\":\"${media}sample.jpg?delay=6\",\"_mediaAlt\":\"See the sale\"" \
  'run["kind"] == "swift" and run["outcome"] == "expired" and types == [] and content["body"] == "See the sale"'
rich_push "salesforce sample" no-media "" \
  'run["kind"] == "swift" and run["outcome"] == "completed" and types == [] and content["body"] == "no-media"'

kill -INT $up
for _ in $(seq 100); do kill -0 $up 2>/dev/null || break; sleep 0.1; done
echo "salesforce sample: the guide's NotificationService.swift passed all four cases in a device"

# The same file on one payload, without a world: `apnsim extension run` prints what would be displayed.
echo "{\"aps\":{\"alert\":{\"title\":\"Sale\",\"body\":\"50% off\"},\"mutable-content\":1},\"_mediaUrl\":\"http://127.0.0.1:1/gone.jpg\",\"_mediaAlt\":\"See the sale\"}" > "$work/push.json"
"$apnsim" extension run "$work/NotificationService.swift" --payload "$work/push.json" | tee "$work/run.out"
grep -qE "^body +See the sale" "$work/run.out" || { echo "apnsim extension run did not show _mediaAlt"; exit 1; }
