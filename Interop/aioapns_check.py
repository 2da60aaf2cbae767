"""Interop check: Python's aioapns (from PyPI, written by nobody here) against a running apnsim gateway.

aioapns always dials Apple's host on port 443; the only way to point it elsewhere is to set the class
attributes that hold them, which is what users of a local mock do. The TLS trust comes from an ssl context
that trusts Certs/ca.pem, exactly as a user would configure it.

Usage: aioapns_check.py HOST DEV_PORT CA P8 CERT_BUNDLE DEV_TOKEN GONE_TOKEN
Exits non-zero, saying why, if any answer is not the expected one.
"""
import asyncio
import ssl
import sys
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection

host, port, ca, p8, cert_bundle, dev_token, gone_token = sys.argv[1:8]
connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
connection.APNsDevelopmentClientProtocol.APNS_PORT = int(port)

failures = []


def expect(label, result, status, reason=None):
    ok = result.status == status and (reason is None or result.description == reason)
    print(f"aioapns {label}: status={result.status} reason={result.description} id={result.notification_id} "
          f"timestamp={result.timestamp} -> {'ok' if ok else 'UNEXPECTED'}")
    if not ok:
        failures.append(f"{label}: wanted {status} {reason or ''}, got {result.status} {result.description}")


def context():
    return ssl.create_default_context(cafile=ca)


async def main():
    alert = {"aps": {"alert": {"title": "aioapns", "body": "interop"}}}

    token_client = APNs(key=open(p8).read(), key_id="SIMKEY0001", team_id="SIMTEAM001",
                        topic="com.example.app", use_sandbox=True, ssl_context=context())
    accepted = await token_client.send_notification(
        NotificationRequest(device_token=dev_token, message=alert, push_type=PushType.ALERT))
    expect("token auth, accepted push", accepted, "200")
    gone = await token_client.send_notification(
        NotificationRequest(device_token=gone_token, message=alert, push_type=PushType.ALERT))
    expect("token auth, unregistered token", gone, "410", "Unregistered")
    if gone.timestamp is None:
        failures.append("410 came without a timestamp")

    cert_client = APNs(client_cert=cert_bundle, topic="com.example.app", use_sandbox=True, ssl_context=context())
    accepted = await cert_client.send_notification(
        NotificationRequest(device_token=dev_token, message=alert, push_type=PushType.ALERT))
    expect("certificate auth, accepted push", accepted, "200")
    rejected = await cert_client.send_notification(
        NotificationRequest(device_token=dev_token, message=alert, push_type=PushType.ALERT,
                            notification_id=str(uuid.uuid4()), collapse_key="x" * 65))
    expect("certificate auth, collapse id too long", rejected, "400", "BadCollapseId")


asyncio.run(main())
if failures:
    print("aioapns interop FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("aioapns interop: all answers as expected")
