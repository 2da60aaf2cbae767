// A device's Focus and Scheduled Summary in the inbox: set them, see what a Focus holds and what waits for the next
// summary, and deliver the summary now (POST /v1/devices/{id}/focus, …/summary, …/summary/deliver;
// docs/interactions.md). The summaries devices delivered (GET /v1/summaries) show in the order iOS shows them.
"use strict";

const attention = (() => {
  /** Every summary delivered, oldest first. */
  let summaries = [];
  /** The deliveries that went out in a summary. */
  const summarized = new Set();
  const focusNames = ["Do Not Disturb", "Sleep", "Work"];

  async function load() {
    summaries = await getJSON("/v1/summaries?limit=100000");
    summarized.clear();
    for (const summary of summaries) for (const item of summary.notifications) summarized.add(item.deliveryId);
  }

  /** Whether `delivery` waits for its device's next summary. */
  function waits(delivery) {
    return Boolean(delivery.presentation && delivery.presentation.summary && !summarized.has(delivery.id));
  }

  async function send(method, path, body) {
    const answer = await fetch(path, {
      method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await answer.json();
    if (!answer.ok) throw new Error(json.error || `${path} answered ${answer.status}`);
    return json;
  }

  /** The Focus and summary controls of `device`, and what they are now. */
  function controls(device, refresh) {
    const box = element("div", "attention");
    const path = `/v1/devices/${encodeURIComponent(device.id)}`;
    const problem = element("p", "interaction-error");
    problem.setAttribute("role", "alert");
    const run = (work) => work().then(refresh).catch((error) => { problem.textContent = error.message; });

    const focus = element("label", "focus", "Focus ");
    const select = element("select");
    select.dataset.focus = device.id;
    for (const name of ["", ...focusNames]) {
      const option = element("option", null, name || "Off");
      option.value = name;
      select.append(option);
    }
    const current = device.focus ? device.focus.name : "";
    if (current && !focusNames.includes(current)) select.append(Object.assign(element("option", null, current), { value: current }));
    select.value = current;
    select.addEventListener("change", () => run(() => select.value
      ? send("POST", `${path}/focus`, { name: select.value, allowedApps: device.focus ? device.focus.allowedApps : [] })
      : send("DELETE", `${path}/focus`)));
    focus.append(select);

    const form = element("form", "summary");
    const times = element("input");
    times.name = "times";
    times.placeholder = "08:00, 18:00";
    times.value = device.summary ? device.summary.times.join(", ") : "";
    times.setAttribute("aria-label", `Scheduled Summary times on ${device.name}, HH:mm, separated by commas`);
    const set = element("button", null, device.summary ? "Change summary" : "Set summary");
    set.type = "submit";
    form.append(element("span", null, "Summary "), times, set);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const list = times.value.split(",").map((time) => time.trim()).filter(Boolean);
      run(() => list.length ? send("POST", `${path}/summary`, { times: list }) : send("DELETE", `${path}/summary`));
    });
    if (device.summary) {
      const off = element("button", null, "Summary off");
      off.type = "button";
      off.addEventListener("click", () => run(() => send("DELETE", `${path}/summary`)));
      form.append(off);
    }
    const deliver = element("button", "deliver-summary", "Deliver summary now");
    deliver.type = "button";
    deliver.dataset.deliverSummary = device.id;
    deliver.addEventListener("click", () => run(async () => {
      const summary = await send("POST", `${path}/summary/deliver`);
      statusLine.textContent = `${device.id}: ${summary.detail}`;
    }));
    form.append(deliver);
    box.append(focus, form, problem);
    return box;
  }

  /** One notification of a summary, waiting or delivered. */
  function row(delivery, item) {
    const content = delivery ? delivery.content || {} : item;
    const li = element("li", "summary-item");
    li.dataset.apnsId = item ? item.apnsId : delivery.apnsId;
    if (delivery) { li.dataset.id = delivery.id; li.tabIndex = 0; }
    const score = item ? item.relevanceScore : content.relevanceScore || 0;
    li.append(element("span", "app", item ? item.bundleID : delivery.bundleID),
      element("span", "title", [content.title, content.body].filter(Boolean).join(": ")),
      element("span", "score", `relevance ${score}`));
    return li;
  }

  /** What waits for `device`'s next summary, highest relevance-score first, and its latest summary delivered. */
  function lists(device, deliveries) {
    const nodes = [];
    const waiting = deliveries.filter(waits).sort((left, right) =>
      (right.content?.relevanceScore || 0) - (left.content?.relevanceScore || 0) || left.acceptedAt.localeCompare(right.acceptedAt));
    if (waiting.length) {
      const list = element("ol", "summary-list upcoming");
      list.setAttribute("aria-label", `Upcoming summary on ${device.name}`);
      list.append(...waiting.map((delivery) => row(delivery)));
      nodes.push(element("h4", "summary-head", `Upcoming summary at ${rfc3339(waiting[0].presentation.summary)} (${waiting.length})`), list);
    }
    const latest = summaries.filter((summary) => summary.device === device.id).pop();
    if (latest && latest.notifications.length) {
      const byID = new Map(deliveries.map((delivery) => [delivery.id, delivery]));
      const list = element("ol", "summary-list delivered");
      list.setAttribute("aria-label", `Summary delivered on ${device.name}`);
      list.append(...latest.notifications.map((item) => row(byID.get(item.deliveryId), item)));
      nodes.push(element("h4", "summary-head", `Summary delivered ${rfc3339(latest.at)} (${latest.notifications.length})`), list);
    }
    return nodes;
  }

  return { load, waits, controls, lists };
})();
