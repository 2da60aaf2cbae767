// The composer: a device, an app, a template and media, sent with POST /v1/compose, which sends through the
// provider API with a signed JWT, so the push meets every rule a provider's does and a rejection shows Apple's
// status, reason and the gateway's explanation.
"use strict";

const composer = (() => {
  const form = document.getElementById("compose");
  const fields = {
    device: document.getElementById("compose-device"), app: document.getElementById("compose-app"),
    template: document.getElementById("compose-template"), media: document.getElementById("compose-media"),
    failure: document.getElementById("compose-failure"), pushType: document.getElementById("compose-push-type"),
    topic: document.getElementById("compose-topic"), collapse: document.getElementById("compose-collapse"),
    payload: document.getElementById("compose-payload"),
  };
  const result = document.getElementById("compose-result");
  const off = document.getElementById("composer-off");
  let devices = [];
  let shownDevices = "";

  /** How the media server misbehaves on request (its query parameters, docs/inbox.md). */
  const failures = [
    ["as served", ""], ["slow (5 s)", "delay=5"], ["404", "status=404"], ["wrong type (text/html)", "type=text/html"],
    ["oversized (11 MB)", "size=11000000"],
  ];

  const alert = (title, body) => ({ title, body });
  /** Each template: its push type and its payload for a media URL. */
  const templates = {
    "Plain alert": { pushType: "alert", payload: () => ({ aps: { alert: alert("Hello", "A plain alert from the apnsim composer"), sound: "default", badge: 1 } }) },
    "Braze image": {
      pushType: "alert",
      payload: (media) => ({ aps: { alert: alert("Braze", "An image push"), "mutable-content": 1 },
        ab: { att: { url: media, type: (media.split("?")[0].split(".").pop() || "jpg") } } }),
    },
    "Salesforce image with alt text": {
      pushType: "alert",
      payload: (media) => ({ aps: { alert: alert("Salesforce", "An image push"), "mutable-content": 1 },
        _mediaUrl: media, _mediaAlt: "The image could not be shown" }),
    },
    "Sailthru video": {
      pushType: "alert",
      payload: (media) => ({ aps: { alert: alert("Sailthru", "A video push"), "mutable-content": 1 },
        _st: { video_url: media } }),
      media: "sample.mp4",
    },
    Background: { pushType: "background", priority: 5, payload: () => ({ aps: { "content-available": 1 }, refresh: "inbox" }) },
    "Live Activity update": {
      pushType: "liveactivity",
      payload: () => ({ aps: { timestamp: Math.floor(Date.now() / 1000), event: "update",
        "content-state": { status: "On its way", minutesLeft: 12 } } }),
    },
    "Paste a payload": { pushType: "alert", payload: null },
  };

  function option(value, text = value) {
    const node = document.createElement("option");
    node.value = value;
    node.textContent = text;
    return node;
  }

  function mediaURL() {
    const base = fields.media.value;
    const query = fields.failure.value;
    return query ? `${base}?${query}` : base;
  }

  function fillPayload() {
    const template = templates[fields.template.value];
    fields.pushType.value = template.pushType;
    if (template.payload) fields.payload.value = JSON.stringify(template.payload(mediaURL()), null, 2);
  }

  function fillApps() {
    const device = devices.find((candidate) => candidate.id === fields.device.value);
    const chosen = fields.app.value;
    fields.app.replaceChildren(...(device ? device.apps : []).map((app) => option(app.bundleID)));
    if ([...fields.app.options].some((node) => node.value === chosen)) fields.app.value = chosen;
  }

  /** inbox.js calls this with each new device list. */
  function devicesChanged(list) {
    // Only when the devices or their apps changed: rebuilding a list the user has open would close it.
    const signature = JSON.stringify(list.map((device) => [device.id, device.name, device.apps.map((app) => app.bundleID)]));
    if (signature === shownDevices) return;
    shownDevices = signature;
    devices = list;
    const chosen = fields.device.value;
    fields.device.replaceChildren(...list.map((device) => option(device.id, `${device.name} (${device.id})`)));
    if (list.some((device) => device.id === chosen)) fields.device.value = chosen;
    fillApps();
  }

  async function start() {
    fields.template.replaceChildren(...Object.keys(templates).map((name) => option(name)));
    fields.failure.replaceChildren(...failures.map(([name, query]) => option(query, name)));
    fields.device.addEventListener("change", fillApps);
    fields.template.addEventListener("change", () => {
      const wanted = templates[fields.template.value].media;
      if (wanted) {
        const match = [...fields.media.options].find((node) => node.value.endsWith(`/${wanted}`));
        if (match) fields.media.value = match.value;
      }
      fillPayload();
    });
    fields.media.addEventListener("change", fillPayload);
    fields.failure.addEventListener("change", fillPayload);
    form.addEventListener("submit", (event) => { event.preventDefault(); send(); });
    try {
      const offer = await getJSON("/v1/compose");
      if (!offer.available) {
        off.hidden = false;
        off.textContent = `The composer is off: ${offer.why}.`;
        document.getElementById("compose-send").disabled = true;
      }
      fields.pushType.replaceChildren(...(offer.pushTypes || ["alert"]).map((type) => option(type)));
      const media = offer.media;
      fields.media.replaceChildren(...(media ? media.fixtures.map((name) => option(`${media.url}/${name}`, name)) : [option("", "no media server")]));
      if (media && media.fixtures.includes("sample.jpg")) fields.media.value = `${media.url}/sample.jpg`;
    } catch (error) {
      off.hidden = false;
      off.textContent = `The composer cannot start: ${error.message}`;
    }
    fillPayload();
  }

  async function send() {
    const body = {
      device: fields.device.value, bundleID: fields.app.value, payload: fields.payload.value,
      pushType: fields.pushType.value,
    };
    if (fields.topic.value.trim()) body.topic = fields.topic.value.trim();
    if (fields.collapse.value.trim()) body.collapseID = fields.collapse.value.trim();
    const priority = templates[fields.template.value].priority;
    if (priority) body.priority = priority;
    result.className = "";
    result.textContent = "Sending…";
    try {
      const answer = await fetch("/v1/compose", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const sent = await answer.json();
      if (!answer.ok) throw new Error(sent.error || `the control API answered ${answer.status}`);
      result.dataset.apnsId = sent.apnsId || "";
      result.dataset.status = String(sent.status);
      result.dataset.reason = sent.reason || "";
      if (sent.status === 200) {
        result.className = "ok";
        result.textContent = `200: accepted for ${sent.topic}, apns-id ${sent.apnsId}`;
      } else {
        result.className = "rejected";
        result.textContent = `${sent.status} ${sent.reason}: ${sent.explanation || "no explanation recorded"}`;
      }
    } catch (error) {
      result.className = "rejected";
      result.dataset.status = "";
      result.textContent = `Not sent: ${error.message}`;
    }
  }

  return { start, devicesChanged };
})();
