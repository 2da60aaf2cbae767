"""Interop check: how aioapns (from PyPI, written by nobody here) lives through a GOAWAY with a request in
flight. A goAway fault after 2 pushes makes the gateway end the connection on the third with
{"reason":"Shutdown"} and last-stream-id 3; aioapns must see it, and the push it had sent on stream 5 must not be
lost: aioapns sends it again on a new connection, and the gateway's record shows stream 5 not processed and the
push accepted once.

Usage: aioapns_goaway_check.py HOST DEV_PORT CA P8 DEV_TOKEN CONTROL_URL
"""
import asyncio
import json
import aioapns_log
import ssl
import sys
import urllib.request

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection

host, port, ca, p8, token, control = sys.argv[1:7]
connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
connection.APNsDevelopmentClientProtocol.APNS_PORT = int(port)


async def main():
    seen = aioapns_log.watch()
    fault = urllib.request.Request(f"{control}/v1/faults", method="POST",
                                   data=b'{"kind":"goAway","after":2,"reason":"Shutdown"}')
    print("fault:", urllib.request.urlopen(fault).read().decode())
    client = APNs(key=open(p8).read(), key_id="SIMKEY0001", team_id="SIMTEAM001", topic="com.example.app",
                  use_sandbox=True, ssl_context=ssl.create_default_context(cafile=ca))
    statuses = []
    for number in range(5):
        result = await client.send_notification(NotificationRequest(
            device_token=token, message={"aps": {"alert": f"goaway {number}"}}, push_type=PushType.ALERT))
        statuses.append(result.status)
    print("aioapns answers:", statuses)
    goaways = [m for m in seen.messages if "terminated" in m]
    print("aioapns saw:", goaways)
    sends = json.load(urllib.request.urlopen(f"{control}/v1/sends?limit=100"))
    ours = [s for s in sends if "goaway" in (s.get("payload") or "") or s.get("fault")]
    for s in reversed(ours):
        print("record:", s["method"], s["status"], s.get("fault", ""), s.get("explanation", ""))
    failures = []
    if statuses != ["200"] * 5:
        failures.append(f"every push should end accepted, got {statuses}")
    if not any('"reason":"Shutdown"' in m and "last_stream_id=3" in m for m in goaways):
        failures.append("aioapns did not report the GOAWAY with last_stream_id=3")
    accepted = [s for s in sends if s["status"] == 200 and "goaway" in (s.get("payload") or "")]
    alerts = sorted(json.loads(s["payload"])["aps"]["alert"] for s in accepted)
    if alerts != [f"goaway {n}" for n in range(5)]:
        failures.append(f"each push should be accepted exactly once, got {alerts}")
    if not any(s["status"] == 0 and "above the last stream 3" in s.get("explanation", "") for s in sends):
        failures.append("the stream the GOAWAY left unprocessed is not in the record")
    for failure in failures:
        print("FAILED:", failure)
    sys.exit(1 if failures else 0)


asyncio.run(main())
