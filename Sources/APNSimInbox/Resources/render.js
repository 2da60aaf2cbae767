// What a device's screen shows, built from the control API's records (docs/inbox.md): device cards, notification
// groups by app and thread-id, banners with their attachments, Live Activity cards, and small rows for what shows
// nothing. Pure functions of the records (helpers in common.js); inbox.js decides when to call them.
"use strict";

const attachmentKinds = {
  video: ["public.mpeg-4", "public.avi", "public.mpeg", "public.mpeg-2-video"],
  audio: ["public.mpeg-4-audio", "public.mp3", "public.aiff-audio", "com.microsoft.waveform-audio", "public.aifc-audio"],
};

/** Where the page loads an attachment from: the device's own copy, or the source URL while there is none. */
function attachmentSource(attachment) {
  return attachment.sha256 ? `/v1/attachments/${attachment.sha256}` : attachment.url;
}

function attachmentElement(attachment) {
  const type = attachment.type || "";
  const fallback = attachment.url;
  let node;
  if (attachmentKinds.video.includes(type)) {
    node = element("video");
    node.controls = true;
    node.preload = "metadata";  // the first frame is the poster, as a notification's video shows one
    node.setAttribute("aria-label", `video attachment ${attachment.identifier}`);
  } else if (attachmentKinds.audio.includes(type)) {
    node = element("audio");
    node.controls = true;
    node.preload = "metadata";
    node.setAttribute("aria-label", `audio attachment ${attachment.identifier}`);
  } else {
    node = element("img");
    node.alt = `image attachment ${attachment.identifier}`;
    node.loading = "lazy";
    node.decoding = "async";
  }
  node.className = "attachment";
  node.dataset.sha256 = attachment.sha256 || "";
  node.addEventListener("error", () => {
    // No copy from the device (a gateway restarted without it): the source URL, once.
    if (fallback && node.src !== fallback && !node.dataset.fellBack) {
      node.dataset.fellBack = "1";
      node.src = fallback;
    }
  });
  node.src = attachmentSource(attachment);
  return node;
}

/**
 * Nodes already built, by delivery ID and what they showed: a refresh moves them instead of building them again,
 * so images are not fetched again and a playing video keeps playing.
 */
const builtNodes = new Map();

function reuse(delivery, kind, build) {
  const signature = `${kind}|${delivery.outcome}|${delivery.deliveredAt}|${delivery.displayedAt}`;
  const built = builtNodes.get(delivery.id);
  if (built && built.signature === signature) return built.node;
  const node = build();
  builtNodes.set(delivery.id, { signature, node });
  return node;
}

const interruptionMarks = { "time-sensitive": "Time Sensitive", passive: "Passive", critical: "Critical" };

/** One displayed notification as a banner: app, time, mark, title / subtitle / body (cut as iOS cuts), media. */
function banner(delivery) {
  return reuse(delivery, "banner", () => buildBanner(delivery));
}

function buildBanner(delivery) {
  const content = delivery.content || {};
  const item = element("li", "banner");
  item.tabIndex = 0;
  item.dataset.apnsId = delivery.apnsId;
  item.dataset.id = delivery.id;
  const mark = interruptionMarks[content.interruptionLevel];
  item.setAttribute("aria-label", [delivery.bundleID, mark, content.title, content.subtitle, content.body]
    .filter(Boolean).join(". ") + ". Press Enter for details.");
  const head = element("div", "head");
  head.append(element("span", "app", delivery.bundleID));
  if (mark) head.append(element("span", `mark ${content.interruptionLevel}`, mark));
  head.append(timeElement(delivery.displayedAt || delivery.acceptedAt));
  item.append(head);
  if (delivery.presentation && delivery.presentation.banner === false) {
    // Delivered quietly: a Focus held it, or it is passive, or its app's willPresent asked for no banner.
    const held = /held by the (.+?) Focus/.exec(delivery.detail || "");
    head.append(element("span", "quiet", held ? `Held by ${held[1]}` : "Delivered quietly"));
  }
  if (content.title) item.append(element("div", "title", content.title));
  if (content.subtitle) item.append(element("div", "subtitle", content.subtitle));
  if (content.body) item.append(element("div", "body", content.body));
  for (const attachment of content.attachments || []) item.append(attachmentElement(attachment));
  if (content.actions && content.actions.length) item.append(actionsElement(content.actions));
  const controls = element("div", "controls");
  for (const [kind, label] of [["dismiss", "Dismiss"], ["details", "Details"]]) {
    const button = element("button", "control", label);
    button.type = "button";
    button.dataset.interaction = kind;
    controls.append(button);
  }
  item.append(controls);
  item.title = "Click to tap it, as the user would; Enter or Details shows its records";
  return item;
}

/** The buttons of the notification's category, as iOS shows them under an expanded notification (a banner shows the
 *  first two). A destructive action is red; a text input action says so. */
function actionsElement(actions) {
  const row = element("div", "actions");
  actions.forEach((action, index) => {
    const options = action.options || [];
    const button = element("button", "action" + (options.includes("destructive") ? " destructive" : "") + (index >= 2 ? " beyond-banner" : ""),
      action.textInput ? `${action.title}…` : action.title);
    button.type = "button";
    button.dataset.interaction = "action";
    button.dataset.action = action.identifier;
    button.title = [`identifier ${action.identifier}`, ...options, action.textInput && `text input: ${action.textInput.placeholder}`,
      index >= 2 && "not on a banner (it shows the first two)"].filter(Boolean).join(", ");
    row.append(button);
  });
  return row;
}

/** What shows nothing on screen, or not yet: a small row that says what happened. */
function systemRow(delivery, className, text) {
  return reuse(delivery, `row ${className} ${text}`, () => buildSystemRow(delivery, className, text));
}

function buildSystemRow(delivery, className, text) {
  const row = element("li", `system ${className}`, text);
  row.tabIndex = 0;
  row.dataset.apnsId = delivery.apnsId;
  row.dataset.id = delivery.id;
  row.setAttribute("aria-label", `${text}. Press Enter for details.`);
  return row;
}

function pendingRow(delivery, device) {
  if (delivery.deliveredAt) {
    return systemRow(delivery, "running", `${delivery.bundleID}: delivered; the service extension is running`);
  }
  const why = device && !device.online ? "stored until the device is back online" : "on its way to the device";
  return systemRow(delivery, "stored", `${delivery.bundleID}: ${why}`);
}

function replacedRow(delivery) {
  const content = delivery.content || {};
  return systemRow(delivery, "replaced", `Replaced: ${content.title || content.body || delivery.apnsId}` +
    (delivery.detail ? ` (${delivery.detail})` : ""));
}

/** The Live Activity of one app: its latest update, changed in place by each new one. */
function liveActivityCard(updates) {
  const latest = updates[0];
  const card = element("li", "live-activity");
  card.tabIndex = 0;
  card.dataset.apnsId = latest.apnsId;
  card.dataset.id = latest.id;
  const detail = latest.detail || "";
  const match = /^Live Activity (\w+), content-state (.*)$/.exec(detail);
  const event = match ? match[1] : "update";
  const head = element("div", "head");
  head.append(element("span", "app", `${latest.bundleID} · Live Activity`), timeElement(latest.displayedAt || latest.acceptedAt));
  card.append(head);
  card.append(element("div", "title", event === "end" ? "Ended" : `${updates.length} update${updates.length === 1 ? "" : "s"}`));
  if (match) card.append(element("pre", "state", match[2]));
  card.setAttribute("aria-label", `Live Activity of ${latest.bundleID}: ${event}. Press Enter for details.`);
  return card;
}

/** "3 h 59 min", "12 min", "less than a minute": how long until `iso`. */
function timeUntil(iso, now) {
  const minutes = Math.floor((Date.parse(iso) - now) / 60000);
  if (minutes < 1) return "less than a minute";
  const hours = Math.floor(minutes / 60);
  return hours ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

/**
 * One Live Activity as the Lock Screen shows it (GET /v1/activities): its app and type, its attributes, its content
 * state as keys and values, and its marks: stale, ended with the time left until it is dismissed.
 */
function activityCard(activity, now) {
  const card = element("li", "live-activity lock-screen" + (activity.stale ? " stale" : "") + (activity.ended ? " ended" : ""));
  card.tabIndex = 0;
  card.dataset.activityId = activity.id;
  const head = element("div", "head");
  head.append(element("span", "app", `${activity.bundleID} · ${activity.attributesType}`), timeElement(activity.startedAt));
  card.append(head);
  const attributes = Object.entries(activity.attributes).map(([key, value]) => `${key} ${typeof value === "string" ? value : JSON.stringify(value)}`);
  if (attributes.length) card.append(element("div", "title", attributes.join(" · ")));
  const state = element("dl", "state");
  for (const [key, value] of Object.entries(activity.contentState)) {
    state.append(element("dt", null, key), element("dd", null, typeof value === "string" ? value : JSON.stringify(value)));
  }
  card.append(state);
  const marks = [];
  if (activity.stale) marks.push("Stale");
  if (activity.ended) marks.push(`Ended · dismissed in ${timeUntil(activity.dismissalDate, now)}`);
  if (marks.length) card.append(element("p", "marks", marks.join(" · ")));
  card.setAttribute("aria-label", `Live Activity of ${activity.bundleID}, ${activity.attributesType}: `
    + Object.entries(activity.contentState).map(([key, value]) => `${key} ${value}`).join(", ")
    + (marks.length ? `. ${marks.join(". ")}` : ""));
  return card;
}

const systemText = {
  widget: "WidgetKit push",
  background: "woken in the background",
  voip: "VoIP push to PushKit",
  suppressed: "suppressed",
  dropped: "dropped",
};

/**
 * A device's notifications the way its Notification Center groups them, as the device said in each receipt
 * (`presentation`: its app and thread), the group with the newest notification first. Every notification shows; a
 * group can be stacked as iOS stacks it (its newest one on top) with its button. A displayed push with no
 * presentation showed nothing (only its badge or sound changed).
 */
function notificationGroups(deliveries, device) {
  const groups = new Map();
  const waiting = [];
  const system = [];
  const answered = [];
  const activities = new Map();
  for (const delivery of deliveries) {
    if (!delivery.outcome) { waiting.push(pendingRow(delivery, device)); continue; }
    if (delivery.outcome === "liveactivity") {
      // A push to an activity's own token: the activity's Lock Screen card (GET /v1/activities) shows it.
      if (delivery.activity) continue;
      if (!activities.has(delivery.bundleID)) activities.set(delivery.bundleID, []);
      activities.get(delivery.bundleID).push(delivery);
      continue;
    }
    if (attention.waits(delivery)) continue;  // in the device's upcoming summary
    const record = interactions.answered.get(delivery.id);
    if (record && delivery.outcome === "displayed") { answered.push(interactions.answeredRow(delivery, record)); continue; }
    if (delivery.outcome === "displayed" || delivery.outcome === "replaced") {
      const shown = delivery.presentation;
      if (!shown) {
        system.push(systemRow(delivery, "badge-only", `${delivery.bundleID}: ${delivery.detail || "nothing to show"}`));
        continue;
      }
      const key = `${shown.bundleID}\u0000${shown.threadID || ""}`;
      if (!groups.has(key)) groups.set(key, { bundleID: shown.bundleID, thread: shown.threadID, items: [] });
      groups.get(key).items.push(delivery);
      continue;
    }
    const what = systemText[delivery.outcome] || delivery.outcome;
    system.push(systemRow(delivery, delivery.outcome, `${delivery.bundleID}: ${what}` + (delivery.detail ? ` (${delivery.detail})` : "")));
  }
  return { groups: [...groups.values()], waiting, system, answered, activities: [...activities.values()] };
}

function groupElement(group, key, stacked, onToggle) {
  const item = element("li", "group" + (stacked ? " stacked" : ""));
  const shown = group.items.filter((delivery) => delivery.outcome === "displayed").length;
  const label = `${group.bundleID}${group.thread ? ` · ${group.thread}` : ""}`;
  const head = element("div", "group-head");
  head.append(element("h4", null, `${label} · ${shown} notification${shown === 1 ? "" : "s"}`));
  if (group.items.length > 1) {
    const toggle = element("button", "stack-toggle", stacked ? `Show all ${group.items.length}` : "Stack");
    toggle.type = "button";
    toggle.dataset.group = key;  // so focus comes back to it after the card is drawn again
    toggle.setAttribute("aria-expanded", String(!stacked));
    toggle.setAttribute("aria-label", stacked ? `Show all ${group.items.length} of ${label}` : `Stack ${label} as iOS does`);
    toggle.addEventListener("click", onToggle);
    head.append(toggle);
  }
  item.append(head);
  const list = element("ul", "stack");
  list.setAttribute("aria-label", label);
  const visible = stacked ? group.items.slice(0, 1) : group.items;
  for (const delivery of visible) list.append(delivery.outcome === "replaced" ? replacedRow(delivery) : banner(delivery));
  item.append(list);
  return item;
}

/**
 * An app's widgets and controls that take pushes (GET /v1/devices: widgetKinds, controlTokens), each with when a push
 * last reloaded it, or "not reloaded yet".
 */
function widgetRows(app) {
  const rows = [];
  const row = (what, kinds, at) => {
    const item = element("li", "widget");
    item.append(element("span", "widget-kind", `${what} ${kinds.join(", ")}`),
      at ? element("span", null, "reloaded") : element("span", null, "not reloaded yet"));
    if (at) item.append(timeElement(at));
    return item;
  };
  if (app.widgetToken) rows.push(row("Widgets", app.widgetKinds || [], app.widgetsReloadedAt));
  for (const kind of Object.keys(app.controlTokens || {}).sort()) {
    rows.push(row("Control", [kind], (app.controlsReloadedAt || {})[kind]));
  }
  return rows;
}

/** Which devices' "Not shown on screen" lists are open, so a refresh keeps them open. */
const openSystemLists = new Set();

function deviceCard(device, deliveries, stackedGroups, onToggle, lockScreen = []) {
  const card = element("article", "device");
  card.dataset.device = device.id;
  card.setAttribute("aria-labelledby", `device-${device.id}`);
  const title = element("h3");
  title.id = `device-${device.id}`;
  const dot = element("span", "dot" + (device.online ? " online" : ""));
  dot.setAttribute("role", "img");
  dot.setAttribute("aria-label", device.online ? "online" : "offline");
  title.append(dot, document.createTextNode(device.name));
  card.append(title, element("p", "meta", `${device.model} · ${device.os} · ${device.id} · ${device.online ? "online" : "offline"}`));

  const apps = element("ul", "apps");
  apps.setAttribute("aria-label", `Apps on ${device.name}`);
  for (const app of device.apps) {
    const item = element("li");
    const icon = element("span", "icon", app.bundleID.split(".").pop().slice(0, 1).toUpperCase());
    icon.setAttribute("aria-hidden", "true");
    if (app.badge) icon.append(element("span", "badge", String(app.badge)));
    item.append(icon, element("span", "bundle", app.bundleID),
      element("span", "token", `${app.environment} · ${app.token.slice(0, 12)}…`));
    if (app.badge) item.append(element("span", "visually-hidden", `, badge ${app.badge}`));
    item.title = app.token;
    apps.append(item, ...widgetRows(app));
  }
  for (const refusal of device.refused || []) {
    apps.append(element("li", "refused", `${refusal.bundleID} not installed: ${refusal.message}`));
  }
  card.append(apps);
  card.append(attention.controls(device, () => scheduleAll()));

  const mine = deliveries.filter((delivery) => delivery.device === device.id);
  const { groups, waiting, system, answered, activities } = notificationGroups(mine, device);
  card.append(...attention.lists(device, mine));
  if (waiting.length) {
    const list = element("ul", "waiting");
    list.setAttribute("aria-label", `Waiting for ${device.name}`);
    list.append(...waiting);
    card.append(list);
  }
  // Each app's activities in the order iOS shows them (displayRank: the highest relevance-score first).
  const running = lockScreen.filter((activity) => activity.device === device.id && activity.visible)
    .sort((left, right) => left.bundleID.localeCompare(right.bundleID) || (left.displayRank ?? 0) - (right.displayRank ?? 0));
  if (activities.length || running.length) {
    const list = element("ul", "activities");
    list.setAttribute("aria-label", `Live Activities on ${device.name}`);
    const now = Date.now();
    list.append(...running.map((activity) => activityCard(activity, now)), ...activities.map(liveActivityCard));
    card.append(list);
  }
  const list = element("ul", "notifications");
  list.setAttribute("aria-label", `Notifications on ${device.name}`);
  for (const group of groups) {
    const key = `${device.id}|${group.bundleID}|${group.thread || ""}`;
    list.append(groupElement(group, key, stackedGroups.has(key), () => onToggle(key)));
  }
  if (groups.length === 0 && waiting.length === 0 && activities.length === 0 && running.length === 0) card.append(element("p", "empty", "No notifications"));
  card.append(list);
  if (answered.length) {
    const done = element("ul", "answered-list");
    done.setAttribute("aria-label", `Answered on ${device.name}`);
    done.append(...answered);
    card.append(element("h4", "answered-head", `Answered (${answered.length})`), done);
  }
  if (system.length) {
    const details = element("details", "system-list");
    details.open = openSystemLists.has(device.id);
    details.addEventListener("toggle", () => {
      if (details.open) openSystemLists.add(device.id); else openSystemLists.delete(device.id);
    });
    details.append(element("summary", null, `Not shown on screen (${system.length})`));
    const rows = element("ul");
    rows.append(...system);
    details.append(rows);
    card.append(details);
  }
  return card;
}
