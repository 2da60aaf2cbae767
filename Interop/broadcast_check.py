"""Interop check: Live Activities and iOS 18 broadcast channels from providers nobody here wrote.

1. aioapns (PyPI) starts a Live Activity by push-to-start on one device and updates it by the activity's token.
2. A provider written against Apple's documents with httpx (PyPI, HTTP/2) creates a channel on the management port,
   reads and lists it, subscribes an activity on every device to it (the control API, as each app would), sends
   ONE broadcast, and checks that every device shows the new state; then deletes the channel and sees a broadcast
   refused with ChannelNotRegistered.

Usage: broadcast_check.py HOST PROVIDER_PORT MANAGEMENT_PORT CONTROL_URL CA P8
Prints how long the fan-out took; exits non-zero, saying why, if anything is not as Apple's documents say.
"""
import asyncio
import json
import ssl
import sys
import time
import uuid

import httpx
import jwt
from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection

host, provider_port, management_port, control, ca, p8 = sys.argv[1:7]
app = "com.example.app"
failures = []


def check(label, ok, detail=""):
    print(f"{label}: {'ok' if ok else 'UNEXPECTED'} {detail}".rstrip())
    if not ok:
        failures.append(f"{label} {detail}")


def provider_token():
    return jwt.encode({"iss": "SIMTEAM001", "iat": int(time.time())}, open(p8).read(), algorithm="ES256",
                      headers={"kid": "SIMKEY0001"})


async def activity_by_push_to_start(http):
    """aioapns: a push-to-start push, then an update to the token the new activity gets."""
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
    connection.APNsDevelopmentClientProtocol.APNS_PORT = int(provider_port)
    devices = (await http.get(f"{control}/v1/devices")).json()
    device = next(d for d in devices if d["apps"] and d["apps"][0].get("pushToStartTokens"))
    start_token = device["apps"][0]["pushToStartTokens"]["DeliveryAttributes"]
    client = APNs(key=open(p8).read(), key_id="SIMKEY0001", team_id="SIMTEAM001",
                  topic=f"{app}.push-type.liveactivity", use_sandbox=True,
                  ssl_context=ssl.create_default_context(cafile=ca))
    now = int(time.time())
    start_id = str(uuid.uuid4())
    started = await client.send_notification(NotificationRequest(
        device_token=start_token, notification_id=start_id, push_type=PushType.LIVEACTIVITY, message={"aps": {
            "event": "start", "timestamp": now, "attributes-type": "DeliveryAttributes", "attributes": {"orderID": "PY-1"},
            "content-state": {"status": "packed", "etaMinutes": 30}, "alert": {"title": "Order PY-1", "body": "Packed"},
            "input-push-token": 1}}))
    check("aioapns push-to-start accepted", started.status == "200", f"{started.status} {started.description}")
    record = (await http.get(f"{control}/v1/deliveries", params={"apnsId": start_id, "wait": 30})).json()
    check("push-to-start started an activity", bool(record) and (record[0].get("activity") or {}).get("result") == "started",
          json.dumps(record)[:300])
    activities = (await http.get(f"{control}/v1/activities", params={"device": device["id"]})).json()
    activity = next(a for a in activities if a["attributes"].get("orderID") == "PY-1")
    update_id = str(uuid.uuid4())
    updated = await client.send_notification(NotificationRequest(
        device_token=activity["token"], notification_id=update_id, push_type=PushType.LIVEACTIVITY, message={"aps": {
            "event": "update", "timestamp": now + 1, "content-state": {"status": "on the way", "etaMinutes": 12}}}))
    check("aioapns update accepted", updated.status == "200", f"{updated.status} {updated.description}")
    record = (await http.get(f"{control}/v1/deliveries", params={"apnsId": update_id, "wait": 30})).json()
    check("the update applied", bool(record) and (record[0].get("activity") or {}).get("result") == "applied",
          json.dumps(record)[:300])


async def broadcast_to_every_device(http):
    tls = ssl.create_default_context(cafile=ca)
    headers = {"authorization": f"bearer {provider_token()}"}
    async with httpx.AsyncClient(http2=True, verify=tls, timeout=60) as apns:
        manage = f"https://{host}:{management_port}/1/apps/{app}"
        request_id = str(uuid.uuid4())
        created = await apns.post(f"{manage}/channels", headers={**headers, "apns-request-id": request_id},
                                  content=json.dumps({"message-storage-policy": 1, "push-type": "LiveActivity"}))
        check("create channel", created.status_code == 201 and created.http_version == "HTTP/2"
              and created.headers.get("apns-request-id") == request_id, f"{created.status_code} {created.http_version}")
        channel = created.headers["apns-channel-id"]
        read = await apns.get(f"{manage}/channels", headers={**headers, "apns-channel-id": channel})
        check("read channel", read.status_code == 200 and read.json() == {"message-storage-policy": 1, "push-type": "LiveActivity"},
              read.text)
        listed = await apns.get(f"{manage}/all-channels", headers=headers)
        check("list channels", listed.status_code == 200 and channel in listed.json().get("channels", []), listed.text)

        devices = [d for d in (await http.get(f"{control}/v1/devices")).json() if d["online"] and d["apps"]]
        limit = asyncio.Semaphore(32)

        async def subscribe(device):
            async with limit:
                body = {"bundleID": app, "attributesType": "DeliveryAttributes", "attributes": {"orderID": device["id"]},
                        "contentState": {"status": "packed", "etaMinutes": 40}, "channel": channel}
                answer = await http.post(f"{control}/v1/devices/{device['id']}/activities", json=body)
                return answer.status_code
        statuses = await asyncio.gather(*(subscribe(d) for d in devices))
        check(f"{len(devices)} activities subscribed", all(s == 201 for s in statuses), str(set(statuses)))

        apns_id = str(uuid.uuid4())
        update = {"aps": {"event": "update", "timestamp": int(time.time()) + 10,
                          "content-state": {"status": "out for delivery", "etaMinutes": 5}}}
        began = time.monotonic()
        sent = await apns.post(f"https://{host}:{provider_port}/4/broadcasts/apps/{app}", content=json.dumps(update), headers={
            **headers, "apns-channel-id": channel, "apns-push-type": "LiveActivity", "apns-priority": "10",
            "apns-expiration": str(int(time.time()) + 3600), "apns-id": apns_id})
        check("broadcast accepted", sent.status_code == 200 and "apns-request-id" in sent.headers, f"{sent.status_code} {sent.text}")
        displayed = (await http.get(f"{control}/v1/deliveries", params={
            "apnsId": apns_id, "wait": 60, "count": len(devices), "limit": len(devices) + 1})).json()
        took = time.monotonic() - began
        check(f"broadcast displayed on {len(displayed)} of {len(devices)} devices", len(displayed) == len(devices))
        print(f"fan-out: one broadcast to {len(devices)} devices, displayed on all in {took * 1000:.0f} ms")
        activities = (await http.get(f"{control}/v1/activities", params={"channel": channel})).json()
        showing = sum(1 for a in activities if a["contentState"].get("status") == "out for delivery")
        check(f"every subscribed activity shows the new state ({showing} of {len(activities)})",
              showing == len(activities) == len(devices))

        deleted = await apns.delete(f"{manage}/channels", headers={**headers, "apns-channel-id": channel})
        check("delete channel", deleted.status_code == 204, str(deleted.status_code))
        refused = await apns.post(f"https://{host}:{provider_port}/4/broadcasts/apps/{app}", content=json.dumps(update), headers={
            **headers, "apns-channel-id": channel, "apns-push-type": "LiveActivity", "apns-priority": "10"})
        check("broadcast to a deleted channel", refused.status_code == 400 and refused.json().get("reason") == "ChannelNotRegistered",
              refused.text)


async def main():
    async with httpx.AsyncClient(timeout=90) as http:
        await activity_by_push_to_start(http)
        await broadcast_to_every_device(http)


asyncio.run(main())
if failures:
    print("broadcast interop FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("broadcast interop: all answers as expected")
