// The sends log: the latest provider requests (GET /v1/sends), newest first, with status, reason and the gateway's
// explanation, filtered by token, topic and status, or found by the push's ID: its apns-unique-id, as Apple's Push
// Notifications Console finds it, or its apns-id. A row opens the request's details.
"use strict";

const sendsLog = (() => {
  const form = document.getElementById("sends-filter");
  const rows = document.getElementById("sends-rows");
  const problem = document.getElementById("sends-error");
  let shown = [];

  function query(id) {
    const parameters = new URLSearchParams({ limit: "50" });
    for (const name of ["token", "topic", "status"]) {
      const value = form.elements[name].value.trim();
      if (value) parameters.set(name, name === "token" ? value.toLowerCase() : value);
    }
    if (id) parameters.set(id.name, id.value);
    return `/v1/sends?${parameters}`;
  }

  /** The sends the filter asks for: by the ID given, its apns-unique-id first, then its apns-id. */
  async function matching() {
    const id = form.elements.id.value.trim();
    if (!id) return getJSON(query());
    const byUniqueID = await getJSON(query({ name: "uniqueId", value: id }));
    return byUniqueID.length ? byUniqueID : getJSON(query({ name: "apnsId", value: id }));
  }

  function row(send, index) {
    const line = element("tr", send.status === 200 ? "ok" : "rejected");
    line.tabIndex = 0;
    line.dataset.index = String(index);
    line.dataset.apnsId = send.apnsId;
    line.setAttribute("aria-label", `${send.status} ${send.reason || ""} ${send.topic || ""}. Press Enter for details.`);
    const when = element("td");
    when.append(timeElement(send.receivedAt));
    const verdict = element("td", "verdict");
    if (send.reason) verdict.append(element("strong", null, send.reason), document.createTextNode(` ${send.explanation || ""}`));
    else verdict.textContent = send.method === "POST" ? "accepted" : `${send.method} ${send.fault || ""}`;
    const target = element("td", null, send.topic || "");
    if (send.token) target.append(element("span", "token", `${send.token.slice(0, 12)}…`));
    target.title = `token ${send.token || "none"}, apns-id ${send.apnsId}` + (send.uniqueId ? `, apns-unique-id ${send.uniqueId}` : "");
    line.append(when, element("td", "status", String(send.status)), verdict, target);
    return line;
  }

  async function load() {
    try {
      shown = await matching();
      problem.textContent = "";
      rows.replaceChildren(...shown.map(row));
    } catch (error) {
      // A bad filter (status=abc) is the control API's sentence, and the rows shown stay.
      problem.textContent = error.message;
    }
  }

  const refresh = serialized(load);

  function open(event) {
    const line = event.target.closest("tr[data-index]");
    if (line) details.showSend(shown[Number(line.dataset.index)]);
  }

  function start() {
    form.addEventListener("submit", (event) => { event.preventDefault(); refresh(); });
    rows.addEventListener("click", open);
    rows.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(event); }
    });
  }

  return { start, refresh };
})();
