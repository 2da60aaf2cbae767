"""The compose stack as a provider team uses it: aioapns (from PyPI, written by nobody here) on the host sends
through the gateway container's published port, and the control API says what the device containers displayed.

Usage:
  compose_check.py rich CONTROL_URL TOKEN CA P8 PROVIDER_PORT MEDIA_URL
      one Braze rich push to a device of each device container, each displayed with the media container's image
  compose_check.py hold CONTROL_URL TOKEN CA P8 PROVIDER_PORT IDS_FILE
      takes every device offline, sends one push to each, writes the apns-ids answered 200 to IDS_FILE
  compose_check.py each CONTROL_URL TOKEN CA P8 PROVIDER_PORT
      one alert to every online device, each displayed (Benchmarks/footprint.sh)
  compose_check.py tokens CONTROL_URL TOKEN HOST
      prints, as JSON, the development token of each device of the container whose host name is HOST
  compose_check.py hold-stopped CONTROL_URL TOKEN CA P8 PROVIDER_PORT TOKENS_FILE IDS_FILE
      waits until the devices in TOKENS_FILE are offline (their container stopped), sends one push to each, and
      writes the apns-ids answered 200 to IDS_FILE
  compose_check.py displayed CONTROL_URL TOKEN IDS_FILE
      waits until every apns-id in IDS_FILE has a delivery, and fails unless each was displayed
  compose_check.py load CONTROL_URL TOKEN CA P8 PROVIDER_PORT COUNT KILL_AT KILL_COMMAND IDS_FILE
      COUNT alerts to the online devices in turn, 50 at a time; KILL_COMMAND (a shell line) runs as the KILL_AT-th
      is answered 200; writes the apns-ids answered 200 to IDS_FILE (one not answered is the provider's to retry)
  compose_check.py kept CONTROL_URL TOKEN IDS_FILE
      waits until every apns-id in IDS_FILE has a delivery outcome: displayed, or replaced by a newer push for its
      app while its device was between replicas (APNs keeps one); fails on any other, on none, and on a delivery
      its device says it showed twice
Exits non-zero, saying why, when anything is not as expected.
"""
import asyncio
import json
import logging
import ssl
import sys
import time
import urllib.request
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection


def control(base, token, path, method="GET"):
    request = urllib.request.Request(base + path, method=method, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.load(answer)


def devices_by_container(base, token):
    """The online devices' development tokens, grouped by the container whose host name is in their ID."""
    groups = {}
    for device in control(base, token, "/v1/devices"):
        apps = [app for app in device["apps"] if app["environment"] == "development" and app.get("token")]
        if device["online"] and apps and device["id"].startswith("dev-"):
            container = device["id"].split("-")[1]
            groups.setdefault(container, []).append((device["id"], apps[0]["token"]))
    return groups


def client(ca, p8, port):
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = "127.0.0.1"
    connection.APNsDevelopmentClientProtocol.APNS_PORT = int(port)
    return APNs(key=open(p8).read(), key_id="SIMKEY0001", team_id="SIMTEAM001", topic="com.example.app",
                use_sandbox=True, ssl_context=ssl.create_default_context(cafile=ca))


async def send(apns, device_token, message):
    apns_id = str(uuid.uuid4())
    result = await apns.send_notification(NotificationRequest(device_token=device_token, message=message,
                                                              notification_id=apns_id, push_type=PushType.ALERT))
    if result.status != "200":
        sys.exit(f"the push to {device_token} was answered {result.status} {result.description}")
    return apns_id


def wait_for(base, token, apns_ids, within=300):
    """Each apns-id's delivery record once it has an outcome (long-polls of the control API, asked again)."""
    deadline = time.monotonic() + within
    found = {}
    while time.monotonic() < deadline and len(found) < len(apns_ids):
        for apns_id in apns_ids:
            if apns_id in found:
                continue
            records = control(base, token, f"/v1/deliveries?apnsId={apns_id}&wait=10")
            if records and records[0].get("outcome"):
                found[apns_id] = records[0]
    missing = [i for i in apns_ids if i not in found]
    if missing:
        sys.exit(f"{len(missing)} of {len(apns_ids)} pushes answered 200 have no delivery outcome: {missing[:5]}")
    return found


async def rich(base, token, ca, p8, port, media):
    groups = devices_by_container(base, token)
    if len(groups) < 3:
        sys.exit(f"expected devices from 3 containers, found {len(groups)}: {sorted(groups)}")
    apns = client(ca, p8, port)
    sent = {}
    for container, devices in sorted(groups.items()):
        device_id, device_token = devices[0]
        payload = {"aps": {"alert": {"title": "compose", "body": f"to {device_id}"}, "mutable-content": 1},
                   "ab": {"att": {"url": f"{media}/sample.jpg", "type": "jpg"}}}
        sent[await send(apns, device_token, payload)] = device_id
    for apns_id, record in wait_for(base, token, list(sent)).items():
        attachments = record["content"].get("attachments") or []
        if record["outcome"] != "displayed" or not attachments:
            sys.exit(f"{sent[apns_id]}: {record['outcome']} with {len(attachments)} attachments: {record.get('detail')}")
        print(f"{sent[apns_id]}: displayed with {attachments[0]['type']} {attachments[0]['size']} bytes from the media container")


async def hold(base, token, ca, p8, port, ids_file):
    devices = [d for group in devices_by_container(base, token).values() for d in group]
    for device_id, _ in devices:
        control(base, token, f"/v1/devices/{device_id}/offline", method="POST")
    apns = client(ca, p8, port)
    ids = [await send(apns, device_token, {"aps": {"alert": f"held for {device_id}"}}) for device_id, device_token in devices]
    with open(ids_file, "w") as out:
        json.dump(ids, out)
    print(f"{len(ids)} pushes answered 200 for {len(devices)} offline devices")


async def each(base, token, ca, p8, port):
    devices = [d for group in devices_by_container(base, token).values() for d in group]
    apns = client(ca, p8, port)
    ids = await asyncio.gather(*(send(apns, device_token, {"aps": {"alert": f"to {device_id}"}}) for device_id, device_token in devices))
    outcomes = {record["outcome"] for record in wait_for(base, token, list(ids)).values()}
    if outcomes != {"displayed"}:
        sys.exit(f"pushes ended as {outcomes}, not all displayed")
    print(f"{len(ids)} pushes, one to each device, all displayed")


def tokens(base, token, host):
    """The development token of each device of one container, by device ID (offline devices keep theirs listed)."""
    found = {}
    for device in control(base, token, "/v1/devices"):
        if device["id"].startswith(f"dev-{host}-"):
            found[device["id"]] = next(app["token"] for app in device["apps"] if app["environment"] == "development")
    if not found:
        sys.exit(f"no device of container {host} is listed")
    print(json.dumps(found, sort_keys=True))


async def hold_stopped(base, token, ca, p8, port, tokens_file, ids_file):
    held = json.load(open(tokens_file))
    deadline = time.monotonic() + 120
    while True:
        online = [d["id"] for d in control(base, token, "/v1/devices") if d["id"] in held and d["online"]]
        if not online:
            break
        if time.monotonic() > deadline:
            sys.exit(f"still online 120 s after their container stopped: {online}")
        time.sleep(0.5)
    apns = client(ca, p8, port)
    ids = [await send(apns, device_token, {"aps": {"alert": f"held for {device_id} while its container was stopped"}})
           for device_id, device_token in sorted(held.items())]
    with open(ids_file, "w") as out:
        json.dump(ids, out)
    print(f"{len(ids)} pushes answered 200 for the {len(held)} devices of a stopped container")


def displayed(base, token, ids_file):
    ids = json.load(open(ids_file))
    outcomes = {record["outcome"] for record in wait_for(base, token, ids).values()}
    if outcomes != {"displayed"}:
        sys.exit(f"held pushes ended as {outcomes}, not all displayed")
    print(f"all {len(ids)} pushes answered 200 before the SIGKILL were displayed after the restart")


async def load(base, token, ca, p8, port, count, kill_at, kill_command, ids_file):
    # 50 requests at a time share aioapns's pool of connections, which waits for a free one and says so each time.
    logging.getLogger("aioapns").setLevel(logging.ERROR)
    devices = [d for group in devices_by_container(base, token).values() for d in group]
    apns = client(ca, p8, port)
    accepted, unanswered, killed = [], 0, False

    async def one(number):
        nonlocal unanswered, killed
        device_id, device_token = devices[number % len(devices)]
        apns_id = str(uuid.uuid4())
        try:
            result = await apns.send_notification(NotificationRequest(
                device_token=device_token, message={"aps": {"alert": f"load {number} to {device_id}"}},
                notification_id=apns_id, push_type=PushType.ALERT))
        except Exception:  # the connection went with the replica: never answered
            unanswered += 1
            return
        if result.status != "200":
            unanswered += 1
            return
        accepted.append(apns_id)
        if len(accepted) == int(kill_at) and not killed:
            killed = True
            await (await asyncio.create_subprocess_shell(kill_command)).wait()

    for start in range(0, int(count), 50):
        await asyncio.gather(*(one(n) for n in range(start, min(start + 50, int(count)))))
    with open(ids_file, "w") as out:
        json.dump(accepted, out)
    if not killed:
        sys.exit(f"only {len(accepted)} pushes were answered 200: the kill at the {kill_at}th never ran")
    print(f"{count} pushes to {len(devices)} devices: {len(accepted)} answered 200, {unanswered} not answered "
          f"(their connection went with the killed replica); the kill ran at the {kill_at}th 200")


def kept(base, token, ids_file):
    ids = json.load(open(ids_file))
    records = wait_for(base, token, ids)
    replaced = [r for r in records.values() if r["outcome"] == "dropped" and (r.get("detail") or "").startswith("replaced by a newer push")]
    other = [r for r in records.values() if r["outcome"] != "displayed" and r not in replaced]
    if other:
        sys.exit(f"{len(other)} pushes answered 200 neither displayed nor replaced: {[(r['apnsId'], r['outcome'], r.get('detail')) for r in other[:3]]}")
    # A device that shows a delivery it showed before says so in that delivery's receipt (docs/cluster.md).
    twice = [r["apnsId"] for r in records.values() if (r.get("detail") or "").startswith("shown again")]
    if twice:
        sys.exit(f"{len(twice)} deliveries were shown twice: {twice[:5]}")
    print(f"0 of {len(ids)} pushes answered 200 lost, 0 shown twice: {len(ids) - len(replaced)} displayed once, {len(replaced)} "
          f"replaced by a newer one for their app while their device moved to another replica")


command, arguments = sys.argv[1], sys.argv[2:]
if command == "rich":
    asyncio.run(rich(*arguments))
elif command == "hold":
    asyncio.run(hold(*arguments))
elif command == "each":
    asyncio.run(each(*arguments))
elif command == "tokens":
    tokens(*arguments)
elif command == "hold-stopped":
    asyncio.run(hold_stopped(*arguments))
elif command == "displayed":
    displayed(*arguments)
elif command == "load":
    asyncio.run(load(*arguments))
elif command == "kept":
    kept(*arguments)
else:
    sys.exit(__doc__)
