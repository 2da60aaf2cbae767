"""Interop check: what aioapns (from PyPI, written by nobody here) does when APNs stops answering, for each `hang`
fault of docs/faults.md, and that the gateway serves other connections meanwhile.

aioapns has no request timeout of its own. What fires instead, and what this check shows for each kind:
- handshake (production endpoint): asyncio's SSL handshake timeout (60 s) ends the held connection; aioapns logs
  "Could not connect to server", waits a second and connects again; the push is answered 200.
- response and silence (development): aioapns closes a connection it has not written to for 10 s
  (INACTIVITY_TIME); the request waiting on it fails with ConnectionClosed, and aioapns sends it again on a new
  connection, where it is answered 200 and delivered once (the gateway did not process the first). On a silent
  connection the close itself takes asyncio's TLS shutdown timeout (30 s) more, as nothing answers close_notify.
- window (development): the gateway's SETTINGS_INITIAL_WINDOW_SIZE 0 makes h2 refuse to send the body
  (FlowControlError); aioapns waits a second and sends the push on a new connection, where it is answered 200.
While each is held, a second aioapns client on a new connection sends a push and is answered 200.

The handshake case runs on the production endpoint beside the development cases, so the check takes about a
minute, not the sum of the four.

Usage: aioapns_hang_check.py HOST DEV_PORT PROD_PORT CA P8 CONTROL_URL
"""
import asyncio
import json
import logging

import aioapns_log
import ssl
import sys
import time
import urllib.request
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection
from aioapns.exceptions import MaxAttemptsExceeded

host, dev_port, prod_port, ca, p8, control = sys.argv[1:7]
connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
connection.APNsDevelopmentClientProtocol.APNS_PORT = int(dev_port)
connection.APNsProductionClientProtocol.APNS_SERVER = host
connection.APNsProductionClientProtocol.APNS_PORT = int(prod_port)

failures = []


seen = aioapns_log.watch(logging.DEBUG)  # FlowControlError is logged at debug


def api(method, path, body=None):
    request = urllib.request.Request(f"{control}{path}", method=method, data=body and json.dumps(body).encode())
    return json.load(urllib.request.urlopen(request))


def token(environment):
    return next(t["token"] for t in api("GET", "/v1/tokens") if t["environment"] == environment and t["state"] == "active")


def client(sandbox):
    return APNs(key=open(p8).read(), key_id="SIMKEY0001", team_id="SIMTEAM001", topic="com.example.app",
                use_sandbox=sandbox, ssl_context=ssl.create_default_context(cafile=ca))


def apns_id(alert):
    """A fixed apns-id per alert, to find each push in the record (a push the gateway did not read the body of has
    no payload there)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, alert)).upper()


async def send(apns, device, alert):
    return await apns.send_notification(NotificationRequest(
        device_token=device, message={"aps": {"alert": alert}}, push_type=PushType.ALERT, notification_id=apns_id(alert)))


def records(alert):
    return api("GET", f"/v1/sends?apnsId={apns_id(alert)}&limit=100")


async def until_recorded(what, check):
    """Polls the control API (this is a script, not a test: a short sleep between asks is fine)."""
    for _ in range(600):
        if check():
            return
        await asyncio.sleep(0.1)
    failures.append(f"{what}: not seen in the record within a minute")


def expect(label, condition, detail=""):
    print(f"{label}: {'ok' if condition else 'FAILED'} {detail}")
    if not condition:
        failures.append(f"{label} {detail}")


async def meanwhile(sandbox, device, label):
    """A second client on a new connection is served while the first is held."""
    other = client(sandbox)
    result = await send(other, device, f"{label}: meanwhile")
    other.pool.close()
    expect(f"{label}: another connection served meanwhile", result.status == "200", f"status={result.status}")


async def held_then_sent_again(label, fault, device, first=None):
    """response and silence: aioapns's inactivity timer closes the held connection and it sends the push again."""
    apns = client(True)
    if first:
        expect(f"{label}: {first}", (await send(apns, device, f"{label}: {first}")).status == "200")
    api("POST", "/v1/faults", fault)
    started = time.monotonic()
    held = asyncio.create_task(send(apns, device, f"{label}: held"))
    await until_recorded(f"{label}: the held push", lambda: any(s["status"] == 0 for s in records(f"{label}: held")))
    await meanwhile(True, device, label)
    result = await held
    waited = time.monotonic() - started
    closed = [m for m in seen.messages if "ConnectionClosed" in m]
    expect(f"{label}: aioapns gave up on the held connection (its 10 s inactivity timer) and sent again", result.status == "200" and closed
           and waited >= 9, f"status={result.status} after {waited:.1f} s; aioapns logged {closed[-1:] }")
    ours = records(f"{label}: held")
    expect(f"{label}: the record shows the push unprocessed once, then accepted once",
           sorted(s["status"] for s in ours) == [0, 200], str([(s["status"], s.get("explanation")) for s in ours]))
    apns.pool.close()


async def window():
    label = "window"
    device = token("development")
    apns = client(True)
    expect(f"{label}: before", (await send(apns, device, f"{label}: before")).status == "200")
    api("POST", "/v1/faults", {"kind": "hang", "at": "window", "environment": "development"})
    # The gateway has written its SETTINGS when the control API answers; aioapns reads them when its event loop next
    # reads the socket. A push sent before that may still use the old window (RFC 9113 §6.5.3), so wait for h2 to
    # have applied them.
    held = apns.pool.connections[0]
    await until_recorded(f"{label}: SETTINGS_INITIAL_WINDOW_SIZE 0 applied by h2",
                         lambda: held.conn.remote_settings.initial_window_size == 0)
    started = time.monotonic()
    try:
        result = await send(apns, device, f"{label}: held")
        outcome = result.status
    except MaxAttemptsExceeded:
        outcome = "MaxAttemptsExceeded"
    waited = time.monotonic() - started
    flow = [m for m in seen.messages if "FlowControlError" in m]
    expect(f"{label}: h2 refused to send the body (FlowControlError), and aioapns sent it on a new connection a second later",
           outcome == "200" and flow and waited >= 1, f"{outcome} after {waited:.1f} s; aioapns logged {flow[-1:]}")
    ours = records(f"{label}: held")
    expect(f"{label}: the record shows the push accepted once", [s["status"] for s in ours] == [200], str([s["status"] for s in ours]))
    await meanwhile(True, device, label)
    hang = [s for s in api("GET", "/v1/sends?limit=1000") if s["method"] == "HANG" and "WINDOW_SIZE 0" in (s.get("explanation") or "")]
    expect(f"{label}: the record shows the window held", len(hang) >= 1)
    apns.pool.close()


async def handshake():
    label = "handshake"
    device = token("production")
    api("POST", "/v1/faults", {"kind": "hang", "at": "handshake", "environment": "production"})
    apns = client(False)
    started = time.monotonic()
    held = asyncio.create_task(send(apns, device, f"{label}: held"))
    await until_recorded(f"{label}: the held connection", lambda: any(
        s["method"] == "HANG" and "handshake" in (s.get("explanation") or "") for s in api("GET", "/v1/sends?limit=1000")))
    await meanwhile(False, device, label)
    result = await held
    waited = time.monotonic() - started
    refused = [m for m in seen.messages if "Could not connect" in m]
    expect(f"{label}: asyncio's handshake timeout fired, aioapns connected again and was answered", result.status == "200"
           and refused and waited >= 59, f"status={result.status} after {waited:.1f} s; aioapns logged {refused[-1:]}")
    apns.pool.close()


async def development_cases():
    device = token("development")
    await held_then_sent_again("response", {"kind": "hang", "at": "response", "environment": "development"}, device)
    await held_then_sent_again("silence", {"kind": "hang", "at": "silence", "after": 0, "environment": "development"}, device,
                               first="first")
    await window()


async def main():
    await asyncio.gather(handshake(), development_cases())
    api("DELETE", "/v1/faults")
    for failure in failures:
        print("FAILED:", failure)
    sys.exit(1 if failures else 0)


asyncio.run(main())
