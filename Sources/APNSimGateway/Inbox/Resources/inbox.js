// The apnsim inbox: each simulated device as its screen would show it, from the control API, updated live by
// Server-Sent Events (GET /v1/events). Plain JavaScript, no build step, nothing fetched from elsewhere.
"use strict";

const devicesSection = document.getElementById("devices");
const statusLine = document.getElementById("status");
let refreshing = null;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function time(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : "";
}

/** One notification as a banner, or a small system row for what shows nothing. */
function notification(delivery) {
  const content = delivery.content || {};
  if (delivery.outcome !== "displayed") {
    const row = element("li", "system", `${delivery.bundleID}: ${delivery.outcome || "pending"} ${delivery.pushType} push` +
      (delivery.detail ? ` (${delivery.detail})` : ""));
    row.dataset.apnsId = delivery.apnsId;
    return row;
  }
  const item = element("li", "banner");
  item.tabIndex = 0;
  item.dataset.apnsId = delivery.apnsId;
  item.setAttribute("aria-label", `${delivery.bundleID}: ${content.title || ""} ${content.body || ""}`);
  const head = element("div", "head");
  head.append(element("span", "app", delivery.bundleID), element("time", null, time(delivery.displayedAt || delivery.acceptedAt)));
  item.append(head);
  if (content.title) item.append(element("div", "title", content.title));
  if (content.subtitle) item.append(element("div", "subtitle", content.subtitle));
  if (content.body) item.append(element("div", "body", content.body));
  for (const attachment of content.attachments || []) {
    if (attachment.refusal || !attachment.url) continue;
    const type = attachment.type || "";
    if (type.startsWith("public.mpeg-4") && !type.includes("audio")) {
      const video = element("video");
      video.src = attachment.url;
      video.controls = true;
      video.preload = "metadata";
      item.append(video);
    } else if (type.includes("audio")) {
      const audio = element("audio");
      audio.src = attachment.url;
      audio.controls = true;
      item.append(audio);
    } else {
      const image = element("img");
      image.src = attachment.url;
      image.alt = `attachment ${attachment.identifier}`;
      item.append(image);
    }
  }
  return item;
}

function deviceCard(device, deliveries) {
  const card = element("article", "device");
  card.dataset.device = device.id;
  const title = element("h2");
  const dot = element("span", "dot" + (device.online ? " online" : ""));
  dot.setAttribute("aria-label", device.online ? "online" : "offline");
  title.append(dot, document.createTextNode(device.name));
  card.append(title, element("p", "meta", `${device.model} · ${device.os} · ${device.id}`));
  const apps = element("div", "apps");
  const list = element("ul");
  for (const app of device.apps) list.append(element("li", null, `${app.bundleID} (${app.environment}) ${app.token.slice(0, 12)}…`));
  for (const refusal of device.refused || []) list.append(element("li", "refused", `${refusal.bundleID} not installed: ${refusal.message}`));
  apps.append(list);
  card.append(apps);
  const mine = deliveries.filter((delivery) => delivery.device === device.id);
  const notifications = element("ul", "notifications");
  notifications.setAttribute("aria-label", `Notifications on ${device.name}`);
  for (const delivery of mine) notifications.append(notification(delivery));
  if (mine.length === 0) card.append(element("p", "empty", "No notifications"));
  card.append(notifications);
  return card;
}

async function refresh() {
  const [devices, deliveries] = await Promise.all([
    fetch("/v1/devices").then((answer) => answer.json()),
    fetch("/v1/deliveries?order=newest&limit=200").then((answer) => answer.json()),
  ]);
  devicesSection.replaceChildren(...devices.map((device) => deviceCard(device, deliveries)));
}

function scheduleRefresh() {
  if (refreshing) return;
  refreshing = refresh().catch(() => {}).finally(() => { refreshing = null; });
}

function listen() {
  const events = new EventSource("/v1/events");
  events.addEventListener("hello", () => {
    statusLine.textContent = "Live";
    statusLine.classList.remove("gone");
    scheduleRefresh();
  });
  events.addEventListener("deliveries", scheduleRefresh);
  events.onerror = () => {
    statusLine.textContent = "The gateway is gone; reconnecting…";
    statusLine.classList.add("gone");
  };
}

listen();
scheduleRefresh();
