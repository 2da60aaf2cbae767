"""Browser checks of the sandbox inbox (GET / on the control port) in Debian's chromium, headless, driven by
selenium with the system's chromedriver (no browser download). Each check saves a screenshot in SHOTS.

1. A Braze image push sent with `apnsim send` shows within 2 s as a banner whose image, the device's own copy,
   has loaded (naturalWidth > 0); Enter on it opens the details, the JWT's signature redacted.
2. A Salesforce push whose media 404s shows its _mediaAlt as the body.
3. A collapse-id pair shows one notification, and the older one as replaced. A push whose aps.category names one
   the app registered shows that category's buttons, the destructive one marked.
4. A push to an offline device shows as stored, then as a banner once the device is back online.
   A Live Activity the app starts shows as a Lock Screen card: its attributes, its state as keys and values, the
   state a push to its token sets, and, once ended, the countdown to its dismissal.
5. A Work Focus and a Scheduled Summary set from the page: what waits for the summary is listed highest
   relevance-score first and delivered in that order; a push the Focus holds is marked. The composer's push with a
   bad topic shows DeviceTokenNotForTopic and the gateway's explanation.
6. axe-core (from PyPI's axe-selenium-python) finds no serious or critical accessibility problem, light or dark,
   at desktop or phone width, and every notification can be reached with Tab.
7. With 1,000 stored deliveries the page paints its newest notifications in under 1 s, and scrolling to the
   end loads older ones.
8. When `apnsim up` stops, the page says the gateway is gone; started again, the page is live again by itself.

Usage: inbox_check.py APNSIM CONTROL_URL DEV_PORT MEDIA_URL TOKEN P8 CA SHOTS UP_PID UP_ARGUMENTS...
(UP_PID is the running `apnsim up`; UP_ARGUMENTS start it again.)
"""
import asyncio
import json
import logging
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.request

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

apnsim, control, dev_port, media, token, p8, ca, shots, up_pid = sys.argv[1:10]
up_arguments = sys.argv[10:]
os.makedirs(shots, exist_ok=True)


def post(path):
    request = urllib.request.Request(control + path, method="POST", data=b"")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def send(payload, *extra):
    """apnsim send, a provider client of its own: returns the apns-id."""
    sent = subprocess.run([apnsim, "send", "--token", token, "--port", dev_port, "--payload", json.dumps(payload), *extra],
                          capture_output=True, text=True, check=True)
    return next(line.split()[1] for line in sent.stdout.splitlines() if line.startswith("apns-id:"))


def selector(apns_id, kind="li"):
    return f"{kind}[data-apns-id='{apns_id}']"


def shot(name):
    path = os.path.join(shots, name)
    driver.save_screenshot(path)
    print("inbox: screenshot", path)


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
# The page rebuilds a device's card on each change (its banners are moved, not rebuilt), so an element found a
# moment ago may be gone: waits look again, and lists are read in one script, atomically within the page.
settled = (NoSuchElementException, StaleElementReferenceException)
wait = WebDriverWait(driver, 10, poll_frequency=0.05, ignored_exceptions=settled)


def texts(css):
    return driver.execute_script("return Array.from(document.querySelectorAll(arguments[0]), (e) => e.innerText);", css)


def text(css):
    found = texts(css)
    return found[0] if found else ""


def braze_image():
    payload = {"aps": {"alert": {"title": "Inbox", "body": "a Braze image"}, "thread-id": "sale", "mutable-content": 1,
                       "badge": 2}, "ab": {"att": {"url": f"{media}/sample.jpg", "type": "jpg"}}}
    apns_id = send(payload)
    started = time.monotonic()

    def loaded(d):
        return d.execute_script(
            "const i = document.querySelector(arguments[0]);"
            "return i && i.complete && i.naturalWidth > 0 ? [i.naturalWidth, i.getAttribute('src')] : null;",
            selector(apns_id, "li.banner") + " img")

    width, source = WebDriverWait(driver, 2, poll_frequency=0.05, ignored_exceptions=settled).until(loaded)
    print(f"inbox: the banner for {apns_id} showed its image ({width} px wide, from {source}) "
          f"{(time.monotonic() - started) * 1000:.0f} ms after apnsim send returned")
    assert source.startswith("/v1/attachments/"), f"the image came from {source}, not the device's copy"
    badge = wait.until(lambda d: text("article[data-device='iphone-dev'] .badge"))
    assert badge == "2", f"the app's badge shows {badge!r}, not 2"
    # Its group is the one the device's receipt named (presentation: the app and thread "sale").
    group = driver.execute_script(
        "return arguments[0] && arguments[0].closest('li.group').querySelector('.group-head').textContent;",
        driver.find_element(By.CSS_SELECTOR, selector(apns_id, "li.banner")))
    assert group.startswith("com.example.app · sale"), f"the Braze banner is in the group {group!r}"
    shot("inbox-braze.png")

    banner = driver.find_element(By.CSS_SELECTOR, selector(apns_id, "li.banner"))
    banner.send_keys(Keys.ENTER)
    wait.until(lambda d: d.find_element(By.ID, "details").get_attribute("open") is not None)
    wait.until(lambda d: "signature redacted" in d.find_element(By.ID, "details-send").text)
    shown = driver.find_element(By.ID, "details").text
    for expected in ("braze", "public.jpeg", "SHA-256", "apns-topic", "200: accepted"):
        assert expected in shown, f"the details do not show {expected!r}"
    shot("inbox-details.png")
    driver.find_element(By.ID, "details").send_keys(Keys.ESCAPE)
    wait.until(lambda d: d.find_element(By.ID, "details").get_attribute("open") is None)
    print("inbox: Enter on the banner opened its delivery and send records side by side, the JWT signature redacted")


def salesforce_alt_text():
    payload = {"aps": {"alert": {"title": "Shipping", "body": "Your order shipped"}, "mutable-content": 1},
               "_mediaUrl": f"{media}/missing.jpg", "_mediaAlt": "A parcel on its way"}
    apns_id = send(payload)
    body = wait.until(lambda d: text(selector(apns_id, "li.banner") + " .body"))
    assert body == "A parcel on its way", f"the Salesforce banner's body is {body!r}"
    assert not driver.find_elements(By.CSS_SELECTOR, selector(apns_id, "li.banner") + " img")
    print("inbox: the Salesforce push whose media 404s shows its _mediaAlt:", body)
    shot("inbox-salesforce-alt.png")


def category_buttons():
    apns_id = send({"aps": {"alert": {"title": "Shipped", "body": "Your order is on its way"}, "category": "ORDER"}})
    buttons = wait.until(lambda d: texts(selector(apns_id, "li.banner") + " .action"))
    assert buttons == ["Track order", "Cancel order"], f"the ORDER push shows the buttons {buttons}"
    destructive = texts(selector(apns_id, "li.banner") + " .action.destructive")
    assert destructive == ["Cancel order"], f"the destructive buttons are {destructive}"
    print("inbox: the ORDER push shows its category's buttons:", ", ".join(buttons))
    shot("inbox-category-buttons.png")


def collapse_pair():
    first = send({"aps": {"alert": {"title": "Score", "body": "1 - 0"}}}, "--collapse-id", "match-7")
    second = send({"aps": {"alert": {"title": "Score", "body": "2 - 0"}}}, "--collapse-id", "match-7")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, selector(first, "li.replaced")))
    banners = [banner for banner in texts("li.banner") if "Score" in banner]
    assert len(banners) == 1 and "2 - 0" in banners[0], f"the collapse pair shows {banners}"
    assert driver.find_elements(By.CSS_SELECTOR, selector(second, "li.banner"))
    print("inbox: the collapse-id pair shows one notification (2 - 0); 1 - 0 shows as replaced")
    shot("inbox-collapse.png")
    # By keyboard: Enter on a group's Stack button stacks it and leaves the focus on the button, and again unstacks.
    toggle = driver.find_element(By.CSS_SELECTOR, "article[data-device='iphone-dev'] .stack-toggle")
    key = toggle.get_attribute("data-group")
    for stacked in (True, False):
        driver.execute_script("document.querySelector(`[data-group='${arguments[0]}']`).focus()", key)
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait.until(lambda d: d.execute_script(
            "const b = document.activeElement; return b && b.dataset.group === arguments[0] && "
            "b.closest('li.group').classList.contains('stacked') === arguments[1];", key, stacked))
    print("inbox: Enter on Stack stacked the group and Enter again opened it, the focus staying on the button")


def stored_then_delivered():
    post("/v1/devices/iphone-dev/offline")
    wait.until(lambda d: "offline" in text("article[data-device='iphone-dev'] .meta"))
    apns_id = send({"aps": {"alert": {"title": "While away", "body": "stored for later"}}})
    row = wait.until(lambda d: text(selector(apns_id, "li.stored")))
    print("inbox: the push to the offline device shows as:", row)
    shot("inbox-stored.png")
    post("/v1/devices/iphone-dev/online")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, selector(apns_id, "li.banner")))
    assert not driver.find_elements(By.CSS_SELECTOR, selector(apns_id, "li.stored"))
    print("inbox: back online, it shows as a banner")
    shot("inbox-delivered.png")


def post_json(path, body):
    request = urllib.request.Request(control + path, method="POST", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def live_activity():
    """An app starts a delivery-tracking activity, a provider updates it by its own token, the app ends it: the
    device's Lock Screen card shows the attributes, the state as keys and values, and the countdown to dismissal."""
    started = post_json("/v1/devices/iphone-dev/activities", {
        "bundleID": "com.example.app", "attributesType": "DeliveryAttributes", "attributes": {"orderID": "A-1042"},
        "contentState": {"status": "packed", "etaMinutes": 45}})
    card = f"li.lock-screen[data-activity-id='{started['id']}']"
    wait.until(lambda d: "packed" in text(card))
    update = {"aps": {"event": "update", "timestamp": int(time.time()), "content-state": {"status": "on the way", "etaMinutes": 20}}}
    subprocess.run([apnsim, "send", "--token", started["token"], "--port", dev_port, "--topic", "com.example.app.push-type.liveactivity",
                    "--push-type", "liveactivity", "--payload", json.dumps(update)], capture_output=True, text=True, check=True)
    wait.until(lambda d: "on the way" in text(card))
    shown = text(card)
    assert "orderID A-1042" in shown and "etaMinutes" in shown and "20" in shown, f"the activity's card shows {shown!r}"
    dismissal = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 2 * 3600 + 90))
    post_json(f"/v1/activities/{started['id']}/end", {"contentState": {"status": "delivered", "etaMinutes": 0}, "dismissalDate": dismissal})
    wait.until(lambda d: "Ended · dismissed in 2 h" in text(card))
    print(f"inbox: the Live Activity {started['id']} shows its update and, ended, its countdown: {text(card)!r}")
    shot("inbox-live-activity.png")


def widgets():
    """The sandbox's app declares a widget and a control: the device card lists both as not reloaded yet; a widgets
    push to the app's widget token (WidgetKit, iOS 26) reloads the widget, and the card shows when."""
    card = "article.device[data-device='iphone-dev'] .apps li.widget"

    def rows():
        return [" ".join(row.split()) for row in texts(card)]
    wait.until(lambda d: "Widgets com.example.app.order-status not reloaded yet" in rows())
    assert "Control com.example.app.reorder not reloaded yet" in rows(), f"the card lists {rows()!r}"
    with urllib.request.urlopen(control + "/v1/devices", timeout=10) as answer:
        device = next(d for d in json.load(answer) if d["id"] == "iphone-dev")
    app = next(a for a in device["apps"] if a["bundleID"] == "com.example.app")
    subprocess.run([apnsim, "send", "--token", app["widgetToken"], "--port", dev_port, "--topic", "com.example.app.push-type.widgets",
                    "--push-type", "widgets", "--payload", json.dumps({"aps": {"content-changed": True}})],
                   capture_output=True, text=True, check=True)
    wait.until(lambda d: any(row.startswith("Widgets com.example.app.order-status reloaded ") for row in rows()))
    print(f"inbox: the widget shows its reload by push: {rows()!r}")


def press(css):
    """Clicks the element `css` finds, scrolled to the middle of the window first (the page's header stays on top)."""
    node = driver.find_element(By.CSS_SELECTOR, css)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()


def interactions():
    """The user's side in the inbox: a click taps a Braze push, which leaves the list for Answered with the URL its app
    opened; a text-input button asks for the reply and sends it; a button that takes no text is pressed at once;
    Dismiss dismisses. Each is the control API's interaction record."""
    braze = send({"aps": {"alert": {"title": "Flash sale", "body": "tap me"}}, "ab": {"c": "Y2Ft"}, "ab_uri": "shop://sale/42"})
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, selector(braze, "li.banner")))
    press(selector(braze, "li.banner") + " .title")
    answered = selector(braze, "li.answered")
    wait.until(lambda d: "shop://sale/42" in text(answered))
    assert "Braze reported pushClick" in text(answered), f"the answered row shows {text(answered)!r}"
    assert not driver.find_elements(By.CSS_SELECTOR, selector(braze, "li.banner")), "a tapped notification leaves the list"
    message = send({"aps": {"alert": {"title": "Sam", "body": "Are you coming?"}, "category": "MESSAGE"}})
    banner = selector(message, "li.banner")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, banner + " button[data-action='REPLY']"))
    press(banner + " button[data-action='REPLY']")
    field = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, banner + " form.reply input"))
    field.send_keys("On my way")
    shot("inbox-reply.png")
    field.send_keys(Keys.ENTER)
    wait.until(lambda d: 'the text "On my way"' in text(selector(message, "li.answered")))
    order = send({"aps": {"alert": {"title": "Shipped", "body": "Track it"}, "category": "ORDER"}})
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, selector(order, "li.banner") + " button[data-interaction='dismiss']"))
    press(selector(order, "li.banner") + " button[data-interaction='dismiss']")
    wait.until(lambda d: "iOS did not tell the app" in text(selector(order, "li.answered")))
    recorded = json.load(urllib.request.urlopen(control + "/v1/interactions?device=iphone-dev", timeout=10))
    kinds = [record["action"].split(".")[-1] for record in recorded]
    assert kinds[-3:] == ["UNNotificationDefaultActionIdentifier", "REPLY", "UNNotificationDismissActionIdentifier"], kinds
    print("inbox: a click tapped the Braze push (opened shop://sale/42), Reply sent its text, Dismiss dismissed:",
          ", ".join(kinds[-3:]))
    shot("inbox-answered.png")
    salesforce = send({"aps": {"alert": {"title": "Your table", "body": "is ready"}}, "_sid": "SFMC", "_m": "MTAx",
                       "_od": "https://example.com/tables/7"})
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, selector(salesforce, "li.banner")))
    press(selector(salesforce, "li.banner") + " .title")
    wait.until(lambda d: "https://example.com/tables/7" in text(selector(salesforce, "li.answered")))
    iterable = send({"aps": {"alert": {"title": "Order 9", "body": "Out for delivery"}, "mutable-content": 1},
                     "itbl": {"campaignId": 1, "templateId": 2, "messageId": "msg-inbox",
                              "actionButtons": [{"identifier": "track", "buttonType": "default", "title": "Track",
                                                 "action": {"type": "openUrl", "data": "app://orders/9/track"}}]}})
    button = selector(iterable, "li.banner") + " button[data-action='track']"
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, button))
    press(button)
    wait.until(lambda d: "app://orders/9/track" in text(selector(iterable, "li.answered")))
    assert "Iterable reported trackPushOpen" in text(selector(iterable, "li.answered")), text(selector(iterable, "li.answered"))
    print("inbox: a Salesforce push opened its OpenDirect URL, and an Iterable push's own Track button its URL")


def focus_and_summary():
    """A Focus and a Scheduled Summary set from the page: the pushes that wait for the summary are listed highest
    relevance-score first; Deliver summary now delivers them in that order; with the summary off, a push the Focus
    holds is marked as held."""
    card = "article.device[data-device='iphone-dev']"
    focus = "select[data-focus='iphone-dev']"

    def settled_do(action):
        """Does `action` on elements found afresh, again if the card was drawn again under it (each change redraws it)."""
        wait.until(lambda d: action() or True)

    def choose_focus(value):
        settled_do(lambda: Select(driver.find_element(By.CSS_SELECTOR, focus)).select_by_value(value))
        wait.until(lambda d: d.execute_script("return document.querySelector(arguments[0]).value", focus) == value)

    def set_times(value):
        def fill():
            field = driver.find_element(By.CSS_SELECTOR, card + " form.summary input[name='times']")
            field.clear()
            field.send_keys(value, Keys.ENTER)
        settled_do(fill)

    choose_focus("Work")
    set_times("08:00, 18:00")
    wait.until(lambda d: "Change summary" in text(card + " form.summary"))
    low = send({"aps": {"alert": {"title": "Digest", "body": "low"}, "relevance-score": 0.3}})
    high = send({"aps": {"alert": {"title": "Digest", "body": "high"}, "relevance-score": 0.8}})
    upcoming = card + " ol.summary-list.upcoming li"
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, upcoming)) == 2)
    order = driver.execute_script("return Array.from(document.querySelectorAll(arguments[0]), (e) => e.dataset.apnsId);", upcoming)
    assert order == [high, low], f"the upcoming summary lists {order}, not highest relevance first"
    assert not driver.find_elements(By.CSS_SELECTOR, selector(high, "li.banner")), "a push waiting for the summary shows no banner"
    shot("inbox-upcoming-summary.png")
    settled_do(lambda: press(card + " button[data-deliver-summary='iphone-dev']"))
    delivered = card + " ol.summary-list.delivered li"
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, delivered)) == 2)
    order = driver.execute_script("return Array.from(document.querySelectorAll(arguments[0]), (e) => e.dataset.apnsId);", delivered)
    assert order == [high, low], f"the delivered summary lists {order}"
    assert not driver.find_elements(By.CSS_SELECTOR, upcoming), "nothing waits once the summary is delivered"
    shot("inbox-summary-delivered.png")
    settled_do(lambda: press(card + " form.summary button:not([type='submit']):not([data-deliver-summary])"))  # Summary off
    wait.until(lambda d: "Set summary" in text(card + " form.summary"))
    held = send({"aps": {"alert": {"title": "Lunch?", "body": "held"}}})
    wait.until(lambda d: "Held by Work" in text(selector(held, "li.banner")))
    choose_focus("")
    print(f"inbox: Work Focus and a summary set from the page; the summary listed and delivered {high} before {low};"
          f" with the summary off, {held} was held by Work")


def find_by_unique_id():
    """The sends log finds a push by the apns-unique-id the gateway answered it with, as the Console does."""
    sent = subprocess.run([apnsim, "send", "--token", token, "--port", dev_port, "--payload",
                           json.dumps({"aps": {"alert": "find me"}})], capture_output=True, text=True, check=True)
    unique = next(line.split()[1] for line in sent.stdout.splitlines() if line.startswith("apns-unique-id:"))
    apns_id = next(line.split()[1] for line in sent.stdout.splitlines() if line.startswith("apns-id:"))
    field = driver.find_element(By.CSS_SELECTOR, "#sends-filter input[name='id']")
    field.clear()
    field.send_keys(unique, Keys.ENTER)
    wait.until(lambda d: [r.get_attribute("data-apns-id") for r in d.find_elements(By.CSS_SELECTOR, "#sends-rows tr")] == [apns_id])
    field.clear()
    field.send_keys(Keys.ENTER)
    print(f"inbox: the sends log found push {apns_id} by its apns-unique-id {unique}")


def connection_refused():
    """A connection the gateway refuses shows in the sends log: HTTP/1.1 over TLS is answered 505, no request is
    recorded, and the log's row names HTTP2Required."""
    subprocess.run(["curl", "-s", "--http1.1", "--cacert", ca, "--resolve", f"api.sandbox.push.apple.com:{dev_port}:127.0.0.1",
                    "-o", "/dev/null", f"https://api.sandbox.push.apple.com:{dev_port}/3/device/{token}"], check=False)
    wait.until(lambda d: "HTTP2Required" in text("#sends-rows tr.connection"))
    row = text("#sends-rows tr.connection")
    assert "negotiate ALPN h2" in row and "conn" in row, row
    shot("inbox-connection-refused.png")
    print("inbox: the sends log shows the refused connection:", row.replace("\n", " "))


def composer_bad_topic():
    Select(driver.find_element(By.ID, "compose-device")).select_by_value("iphone-dev")
    Select(driver.find_element(By.ID, "compose-template")).select_by_visible_text("Plain alert")
    topic = driver.find_element(By.ID, "compose-topic")
    topic.clear()
    topic.send_keys("com.example.other")
    driver.find_element(By.ID, "compose-send").click()
    result = wait.until(lambda d: d.find_element(By.ID, "compose-result") if
                        d.find_element(By.ID, "compose-result").get_attribute("data-status") else None)
    answer = result.text
    assert result.get_attribute("data-status") == "400", answer
    assert "DeviceTokenNotForTopic" in answer and "belongs to com.example.app, not com.example.other" in answer, answer
    print("inbox: the composer's push with a bad topic answered:", answer)
    wait.until(lambda d: "DeviceTokenNotForTopic" in text("#sends-rows"))
    shot("inbox-composer-bad-topic.png")
    topic.clear()


def accessibility():
    for width, height in ((1400, 1000), (390, 844)):
        driver.set_window_size(width, height)
        for scheme in ("light", "dark"):
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            axe = Axe(driver)
            axe.inject()
            found = axe.run()
            problems = [f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
                        for v in found["violations"] if v["impact"] in ("serious", "critical")]
            assert not problems, f"axe-core at {width} px, {scheme}: " + "; ".join(problems)
            print(f"inbox: axe-core at {width} px wide, {scheme}: {len(found['passes'])} rules pass, "
                  f"no serious or critical problem ({len(found['violations'])} minor)")
            if width < 500 and scheme == "dark":
                shot("inbox-phone-dark.png")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.set_window_size(1400, 1000)
    # Every notification on the page is in the Tab order.
    focusable = driver.execute_script(
        "return Array.from(document.querySelectorAll('#devices [data-id]')).every((e) => e.tabIndex === 0);")
    assert focusable, "a notification is not reachable with Tab"


async def flood(count):
    """count plain alerts from aioapns (a client nobody here wrote), over its own connections."""
    from aioapns import APNs, NotificationRequest, PushType
    from aioapns import connection
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = "127.0.0.1"
    connection.APNsDevelopmentClientProtocol.APNS_PORT = int(dev_port)
    client = APNs(key=open(p8).read(), key_id="SIMKEY0001", team_id="SIMTEAM001", topic="com.example.app",
                  use_sandbox=True, ssl_context=ssl.create_default_context(cafile=ca), max_connections=4)
    requests = [NotificationRequest(device_token=token, push_type=PushType.ALERT, message={
        "aps": {"alert": {"title": f"Bulk {n}", "body": f"push {n} of {count}"}, "thread-id": f"bulk-{n % 5}"}})
        for n in range(count)]
    # A new token connection starts with one stream (as Apple's do); aioapns waits for more, noisily.
    logging.getLogger("aioapns").setLevel(logging.ERROR)
    results = await asyncio.gather(*(client.send_notification(r) for r in requests))
    refused = [r for r in results if r.status != "200"]
    assert not refused, f"{len(refused)} of the {count} pushes were refused: {refused[0].description}"


def first_render_ms():
    wait.until(lambda d: d.execute_script("return performance.getEntriesByName('inbox-first-render').length > 0"))
    return driver.execute_script("return performance.getEntriesByName('inbox-first-render')[0].startTime")


def thousand_deliveries(reference):
    started = time.monotonic()
    asyncio.run(flood(1000))
    urllib.request.urlopen(f"{control}/v1/deliveries?token={token}&wait=30&count=1000&limit=1000", timeout=60).read()
    print(f"inbox: 1,000 pushes sent with aioapns and displayed in {time.monotonic() - started:.1f} s")
    driver.get(control + "/")
    first_render_ms()
    paint, rendered, requests = driver.execute_script(
        "const p = performance.getEntriesByName('first-contentful-paint')[0];"
        "const r = performance.getEntriesByName('inbox-first-render')[0];"
        "return [p ? p.startTime : -1, r.startTime, performance.getEntriesByType('resource').length];")
    shown = len(driver.find_elements(By.CSS_SELECTOR, "article[data-device='iphone-dev'] li[data-id]"))
    print(f"inbox: with 1,000 stored deliveries: first contentful paint {paint:.0f} ms, the newest {shown} notifications "
          f"drawn {rendered:.0f} ms after navigation, {requests} requests; with none stored {reference:.0f} ms "
          f"(ratio {rendered / reference:.2f})")
    assert 0 <= paint < 1000 and rendered < 1000, "the page took 1 s or more to paint"
    shot("inbox-1000.png")
    def count():
        return len(driver.find_elements(By.CSS_SELECTOR, "article[data-device='iphone-dev'] li[data-id]"))

    more = shown
    for _ in range(12):
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        before = more
        WebDriverWait(driver, 5, poll_frequency=0.05, ignored_exceptions=settled).until(
            lambda d: count() > before or "All" in text("#paging"))
        more = count()
        if "All" in driver.find_element(By.ID, "paging").text:
            break
    assert more > shown, f"scrolling to the end loaded nothing older ({shown} shown before, {more} after)"
    print(f"inbox: scrolling to the end paged older notifications: {more} shown,",
          driver.find_element(By.ID, "paging").text or "more to come")


def stopped(pid):
    """Whether the process has ended (a zombie its parent, the shell, has not reaped yet counts)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1].startswith("Z")
    except FileNotFoundError:
        return True


def gateway_restart():
    os.kill(int(up_pid), signal.SIGINT)
    wait.until(lambda d: "gone" in text("#status"))
    print("inbox: apnsim up stopped; the page says:", text("#status"))
    shot("inbox-gone.png")
    WebDriverWait(driver, 30, poll_frequency=0.1).until(lambda d: stopped(up_pid))
    again = subprocess.Popen([apnsim, "up", *up_arguments], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        WebDriverWait(driver, 60, poll_frequency=0.1, ignored_exceptions=settled).until(
            lambda d: text("#status") == "Live" and "online" in text("article[data-device='iphone-dev'] .meta"))
        print("inbox: apnsim up started again; the page is Live again and shows the device online, with no reload")
        shot("inbox-back.png")
    finally:
        again.send_signal(signal.SIGINT)
        again.wait(30)


try:
    driver.get(control + "/")
    first_render_ms()
    driver.get(control + "/")  # again, warm as the reload with 1,000 below will be
    wait.until(lambda d: d.find_element(By.ID, "status").text == "Live")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.device"))
    reference = first_render_ms()  # the same page with nothing stored: the reference for the 1,000 below
    print("inbox: page open,", len(driver.find_elements(By.CSS_SELECTOR, "article.device")), "devices shown, status Live,",
          f"drawn {reference:.0f} ms after navigation")
    braze_image()
    salesforce_alt_text()
    category_buttons()
    collapse_pair()
    stored_then_delivered()
    live_activity()
    widgets()
    interactions()
    focus_and_summary()
    find_by_unique_id()
    connection_refused()
    composer_bad_topic()
    driver.execute_script("window.scrollTo(0, 0)")
    shot("inbox.png")
    accessibility()
    thousand_deliveries(reference)
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, f"the browser logged errors: {severe}"
    gateway_restart()  # last: refused connections while the gateway is down are logged, as they should be
finally:
    driver.quit()
