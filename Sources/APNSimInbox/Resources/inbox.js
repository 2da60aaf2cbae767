// The apnsim inbox: each simulated device as its screen would show it, from the control API, updated live by
// Server-Sent Events (GET /v1/events). Plain JavaScript, no build step, nothing fetched from elsewhere.
// The page asks for the newest page of deliveries and pages older ones as the list scrolls into view.
"use strict";

const devicesSection = document.getElementById("devices");
const statusLine = document.getElementById("status");
const pagingLine = document.getElementById("paging");
const pageSize = 100;

const inbox = {
  devices: [],
  /** Every device's Live Activities (GET /v1/activities), for their Lock Screen cards. */
  activities: [],
  /** Every delivery loaded, by ID. */
  deliveries: new Map(),
  /** The oldest delivery loaded, where the next older page starts; null when there is nothing older. */
  oldest: undefined,
  stackedGroups: new Set(),
};

function newestFirst(left, right) {
  return right.acceptedAt.localeCompare(left.acceptedAt) || right.id.localeCompare(left.id);
}

function render() {
  // Cards are drawn again: the notification or button that had the focus gets it back.
  const active = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset : {};
  const focused = active.id;
  const group = active.group;
  const deliveries = [...inbox.deliveries.values()].sort(newestFirst);
  devicesSection.replaceChildren(...inbox.devices.map((device) =>
    deviceCard(device, deliveries, inbox.stackedGroups, (key) => {
      if (inbox.stackedGroups.has(key)) inbox.stackedGroups.delete(key); else inbox.stackedGroups.add(key);
      render();
    }, inbox.activities)));
  if (focused) devicesSection.querySelector(`[data-id="${CSS.escape(focused)}"]`)?.focus();
  if (group) devicesSection.querySelector(`[data-group="${CSS.escape(group)}"]`)?.focus();
  composer.devicesChanged(inbox.devices);
}

function merge(records) {
  for (const record of records) inbox.deliveries.set(record.id, record);
}

async function refreshDeliveries() {
  const [newest] = await Promise.all([getJSON(`/v1/deliveries?order=newest&limit=${pageSize}`), interactions.load()]);
  merge(newest);
  if (inbox.oldest === undefined) inbox.oldest = newest.length === pageSize ? newest[newest.length - 1].id : null;
}

async function refreshDevices() {
  // An activity's change is a change of its device (the event stream's "devices").
  [inbox.devices, inbox.activities] = await Promise.all([getJSON("/v1/devices"), getJSON("/v1/activities"), attention.load()]);
}

/** The next page of older deliveries, when the end of the list scrolls into view. */
async function loadOlder() {
  if (!inbox.oldest || inbox.loadingOlder) return;
  inbox.loadingOlder = true;
  try {
    pagingLine.textContent = "Loading older notifications…";
    const older = await getJSON(`/v1/deliveries?order=newest&limit=${pageSize}&cursor=${encodeURIComponent(inbox.oldest)}`);
    merge(older);
    inbox.oldest = older.length === pageSize ? older[older.length - 1].id : null;
    pagingLine.textContent = inbox.oldest ? "" : `All ${inbox.deliveries.size} deliveries loaded.`;
    render();
  } finally {
    inbox.loadingOlder = false;
  }
  // Still in view after this page (a short list): the observer will not fire again, so ask for the next one.
  if (inbox.oldest && pagingLine.getBoundingClientRect().top < window.innerHeight + 400) await loadOlder();
}

/** Work of the page's own: a failure says so on the status line. */
function reported(work) {
  return () => work().catch((error) => { statusLine.textContent = `Could not refresh: ${error.message}`; });
}

const scheduleDeliveries = serialized(reported(async () => { await refreshDeliveries(); render(); }));
const scheduleDevices = serialized(reported(async () => { await refreshDevices(); render(); }));
const scheduleAll = serialized(reported(async () => {
  await Promise.all([refreshDevices(), refreshDeliveries()]);
  render();
  // When the newest notifications are first on screen (the browser check measures it).
  if (performance.getEntriesByName("inbox-first-render").length === 0) performance.mark("inbox-first-render");
}));

/** Forgets what was loaded and loads it again: for a gateway started again (another record), or an emptied record. */
function startOver() {
  inbox.deliveries.clear();
  inbox.oldest = undefined;
  pagingLine.textContent = "";
  scheduleAll();
  sendsLog.refresh();
}

function listen() {
  const events = new EventSource("/v1/events");
  events.addEventListener("hello", (event) => {
    statusLine.textContent = "Live";
    statusLine.classList.remove("gone");
    const run = JSON.parse(event.data).run;
    // The same gateway (the stream was only renewed): what is loaded stays, and only what is new is asked for.
    if (run === inbox.run) { scheduleAll(); sendsLog.refresh(); } else { inbox.run = run; startOver(); }
  });
  events.addEventListener("reset", startOver);
  events.addEventListener("deliveries", scheduleDeliveries);
  events.addEventListener("devices", scheduleDevices);
  // Time alone makes an activity stale or dismissed, and counts an ended one's minutes down: look again each 30 s
  // while there are any.
  setInterval(() => { if (inbox.activities.length) scheduleDevices(); }, 30000);
  events.addEventListener("sends", () => sendsLog.refresh());
  events.addEventListener("connections", () => sendsLog.refresh());
  events.onerror = () => {
    statusLine.textContent = "The gateway is gone; reconnecting…";
    statusLine.classList.add("gone");
  };
}

/** Enter or Space on a notification, or a click, opens its details. */
function openDetailsFrom(event) {
  const row = event.target.closest("[data-id]");
  if (!row || event.target.closest("video, audio, a, input, form") || event.target.closest("button:not([data-interaction='details'])")) return;
  const delivery = inbox.deliveries.get(row.dataset.id);
  if (delivery) details.show(delivery);
}

devicesSection.addEventListener("click", (event) => {
  const row = event.target.closest("[data-id]");
  const delivery = row && inbox.deliveries.get(row.dataset.id);
  if (delivery && interactions.clicked(event, delivery, () => render())) return;
  openDetailsFrom(event);
});
devicesSection.addEventListener("keydown", (event) => {
  if (event.key === "Enter" || event.key === " ") {
    if (event.target.matches("[data-id]")) {
      event.preventDefault();
      openDetailsFrom(event);
    }
  }
});

new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) loadOlder().catch((error) => { pagingLine.textContent = error.message; });
}, { rootMargin: "400px" }).observe(pagingLine);

composer.start();
sendsLog.start();
listen();
