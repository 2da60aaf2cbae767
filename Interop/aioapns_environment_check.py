"""Interop check: a production certificate on the development port, as aioapns (from PyPI, written by nobody here)
meets it. The gateway answers the connection with GOAWAY {"reason":"BadCertificateEnvironment"}, as APNs does;
aioapns retries, then gives up with an error that does not say why. The connection record says it: the event, the
reason, the certificate and what to do.

Usage: aioapns_environment_check.py HOST DEV_PORT CA PRODUCTION_BUNDLE DEV_TOKEN CONTROL_URL
"""
import asyncio
import json
import ssl
import sys
import urllib.request

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection

host, port, ca, bundle, token, control = sys.argv[1:7]
connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
connection.APNsDevelopmentClientProtocol.APNS_PORT = int(port)


async def main():
    client = APNs(client_cert=bundle, topic="com.example.app", use_sandbox=True, max_connection_attempts=2,
                  ssl_context=ssl.create_default_context(cafile=ca))
    failures = []
    try:
        result = await client.send_notification(NotificationRequest(
            device_token=token, message={"aps": {"alert": "wrong environment"}}, push_type=PushType.ALERT))
        failures.append(f"the push was answered {result.status} {result.description} on a connection the gateway refuses")
    except Exception as error:  # noqa: BLE001: what aioapns raises is what this check shows
        print(f"aioapns: {type(error).__name__}: {error!r}")
        if "BadCertificateEnvironment" in repr(error):
            print("aioapns named the reason this time; the record must still say it")
    answer = urllib.request.urlopen(f"{control}/v1/connections?reason=BadCertificateEnvironment&wait=10").read()
    records = json.loads(answer)
    for record in records:
        print("record:", record["event"], record["reason"], record.get("errorCode"), "last stream", record.get("lastStreamId"),
              "|", record["explanation"])
    if not records:
        failures.append("no connection record names BadCertificateEnvironment")
    elif not all(r["event"] == "goAway" and r.get("authMode") == "certificate" and "is for production" in r["explanation"]
                 for r in records):
        failures.append(f"a record does not say which certificate met which port: {records}")
    sends = json.loads(urllib.request.urlopen(f"{control}/v1/sends?limit=1000").read())
    if any("wrong environment" in (s.get("payload") or "") for s in sends):
        failures.append("a push on a refused connection was recorded as a request")
    for failure in failures:
        print("FAILED:", failure)
    sys.exit(1 if failures else 0)


asyncio.run(main())
