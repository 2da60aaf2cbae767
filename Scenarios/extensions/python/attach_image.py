#!/usr/bin/env python3
"""A notification service extension in Python, for apnsim's extension protocol (docs/extension-protocol.md).

For each push whose payload has an "image_url", it downloads the image into the folder the device gives it and
attaches it; when the device says time is up ("expire") before the download is done, it hands over its best
attempt: the text with "(image still loading)" added to the body. Standard library only.
"""
import json
import os
import sys
import threading
import urllib.request

output = threading.Lock()
handed_over = set()


def reply(message):
    with output:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def hand_over(request_id, content):
    """The content handler: call it once per push."""
    if request_id in handed_over:
        return
    handed_over.add(request_id)
    reply({"type": "content", "id": request_id, "content": content})


def attach(request):
    content = dict(request["content"])
    url = content.get("userInfo", {}).get("image_url")
    if not isinstance(url, str):
        hand_over(request["id"], content)
        return
    try:
        # URLSession's default time-out; the device says "expire" well before it.
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
            kind = response.headers.get_content_type()
        extension = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif"}.get(kind) or url.rsplit(".", 1)[-1]
        path = os.path.join(request["attachmentsDirectory"], f"image.{extension}")
        with open(path, "wb") as file:
            file.write(data)
        content["attachments"] = [{"identifier": "image", "file": path}]
    except Exception as error:  # the push is shown as sent
        reply({"type": "log", "message": f"cannot attach {url}: {error}"})
    hand_over(request["id"], content)


pending = {}
for line in sys.stdin:  # the device closes standard input when it stops; then this ends
    message = json.loads(line)
    if message["type"] == "request":
        pending[message["id"]] = message
        threading.Thread(target=attach, args=(message,), daemon=True).start()
    elif message["type"] == "expire":
        request = pending.get(message["id"])
        if request:
            best = dict(request["content"])
            best["body"] = (best.get("body") or "") + " (image still loading)"
            hand_over(message["id"], best)
