// The sends log: the latest provider requests (GET /v1/sends), newest first, with status, reason and the gateway's
// explanation, filtered by token, topic and status, or found by the push's ID: its apns-unique-id, as Apple's Push
// Notifications Console finds it, or its apns-id. A row opens the request's details. Unfiltered, the log shows among
// them the provider connections the gateway refused or closed (GET /v1/connections): a handshake a client failed, a
// GOAWAY, which no request records.
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

  function filtered() {
    return ["token", "topic", "status", "id"].some((name) => form.elements[name].value.trim());
  }

  /** The sends the filter asks for: by the ID given, its apns-unique-id first, then its apns-id. Unfiltered, the
   *  latest connection records too, the 50 newest of both. */
  async function matching() {
    const id = form.elements.id.value.trim();
    if (!filtered()) {
      const [sends, connections] = await Promise.all([getJSON(query()), getJSON("/v1/connections?order=newest&limit=50")]);
      return [...sends, ...connections.map((record) => ({ connection: record, receivedAt: record.at }))]
        .sort((a, b) => Date.parse(b.receivedAt) - Date.parse(a.receivedAt)).slice(0, 50);
    }
    if (!id) return getJSON(query());
    const byUniqueID = await getJSON(query({ name: "uniqueId", value: id }));
    return byUniqueID.length ? byUniqueID : getJSON(query({ name: "apnsId", value: id }));
  }

  /** A connection record: what happened to the whole connection, with no request of its own to open. */
  function connectionRow(record) {
    const line = element("tr", "rejected connection");
    const when = element("td");
    when.append(timeElement(record.at));
    const verdict = element("td", "verdict");
    verdict.append(element("strong", null, record.reason || record.tlsAlert || record.event),
      document.createTextNode(` ${record.explanation}`));
    const target = element("td", null, `${record.environment} connection`);
    target.append(element("span", "token", record.peer));
    line.title = `connection record ${record.id}: ${record.event}` + (record.fault ? `, fault ${record.fault}` : "");
    line.append(when, element("td", "status", "conn"), verdict, target);
    return line;
  }

  function row(send, index) {
    if (send.connection) return connectionRow(send.connection);
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
