// The details of one notification: its delivery record beside its send record (the provider's request with the
// JWT's signature redacted, and the gateway's verdict), the extension's run, and each attachment.
"use strict";

const details = (() => {
  const dialog = document.getElementById("details");
  const deliveryPane = document.getElementById("details-delivery");
  const sendPane = document.getElementById("details-send");

  /** A list of name and value pairs; values that are absent are left out. */
  function facts(pairs) {
    const list = element("dl", "facts");
    for (const [name, value] of pairs) {
      if (value === undefined || value === null || value === "") continue;
      list.append(element("dt", null, name));
      const cell = element("dd");
      if (value instanceof Node) cell.append(value); else cell.textContent = String(value);
      list.append(cell);
    }
    return list;
  }

  function code(text) {
    return element("pre", "code", text);
  }

  function prettyJSON(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
  }

  /** `bearer HEADER.CLAIMS.SIGNATURE` → the header and claims, and the signature redacted. */
  function redact(name, value) {
    if (name !== "authorization") return value;
    const match = /^(bearer\s+)([^.]+)\.([^.]+)\.(.+)$/i.exec(value);
    return match ? `${match[1]}${match[2]}.${match[3]}.‹signature redacted›` : "‹redacted›";
  }

  function attachmentFacts(attachment) {
    const copy = element("a", null, "the device's copy");
    copy.href = `/v1/attachments/${attachment.sha256}`;
    return facts([
      ["Identifier", attachment.identifier], ["Type", attachment.type || "not a type iOS takes"],
      ["Size", `${attachment.size.toLocaleString()} bytes`], ["SHA-256", attachment.sha256],
      ["Source URL", attachment.url], ["Refused", attachment.refusal && `${attachment.refusal.code}: ${attachment.refusal.message}`],
      ["Served from", attachment.refusal ? null : copy],
    ]);
  }

  function deliveryView(delivery) {
    const content = delivery.content || {};
    const parts = [facts([
      ["Device", delivery.device], ["App", delivery.bundleID], ["Token", delivery.token], ["Push type", delivery.pushType],
      ["Outcome", delivery.outcome || (delivery.deliveredAt ? "delivered, waiting for its receipt" : "stored, not yet delivered")],
      ["Why", delivery.detail], ["Accepted", rfc3339(delivery.acceptedAt)], ["Delivered", rfc3339(delivery.deliveredAt)],
      ["Shown", rfc3339(delivery.displayedAt)], ["apns-id", delivery.apnsId], ["Delivery ID", delivery.id],
    ])];
    if (delivery.content) {
      parts.push(element("h4", null, "Content"), facts([
        ["Title", content.title], ["Subtitle", content.subtitle], ["Body", content.body], ["Badge", content.badge],
        ["Sound", content.sound], ["Thread", content.threadID], ["Category", content.category],
        ["Interruption level", content.interruptionLevel], ["Relevance", content.relevanceScore],
        ["Buttons", content.actions && content.actions.map((action) => `${action.title} (${action.identifier}` +
          `${(action.options || []).length ? ", " + action.options.join(", ") : ""}${action.textInput ? ", text input" : ""})`).join("; ")],
      ]));
    }
    const run = delivery.extension;
    if (run) {
      parts.push(element("h4", null, "Service extension"), facts([
        ["Ran", run.ran ? "yes" : "no"], ["Kind", run.kind], ["Picked by", run.pickedBy], ["Outcome", run.outcome],
        ["Duration", run.durationMs !== undefined ? `${run.durationMs} ms` : null], ["Diagnostic", run.diagnostic],
        ["Violations", (run.violations || []).join("; ")],
        ["Registered categories", run.registeredCategories && (run.registeredCategories.map((category) => category.identifier).join(", ") || "none")],
        ["Log", (run.log || []).join("\n")], ["Process launched", run.launched === undefined ? null : String(run.launched)],
      ]));
    }
    for (const attachment of content.attachments || []) {
      parts.push(element("h4", null, `Attachment ${attachment.identifier}`), attachmentFacts(attachment));
    }
    // Refused attachments are not shown on the device, so not in the content: the extension's record lists them.
    for (const attachment of (run && run.refusedAttachments) || []) {
      parts.push(element("h4", null, `Refused attachment ${attachment.identifier}`), attachmentFacts(attachment));
    }
    return parts;
  }

  function sendView(send) {
    if (!send) return [element("p", "note", "The gateway's record has no provider request with this apns-id (it may have been trimmed).")];
    const verdict = element("p", "verdict " + (send.status === 200 ? "ok" : "rejected"),
      send.status === 200 ? "200: accepted" : `${send.status} ${send.reason || ""}: ${send.explanation || ""}`);
    const headers = element("table", "headers");
    headers.append(element("caption", "visually-hidden", "Request headers"));
    for (const name of Object.keys(send.headers).sort()) {
      const row = element("tr");
      row.append(element("th", null, name), element("td", null, redact(name, send.headers[name])));
      headers.append(row);
    }
    return [verdict, facts([
      ["Received", rfc3339(send.receivedAt)], ["Environment", send.environment], ["Auth", send.authMode],
      ["Team", send.team], ["Key", send.keyID], ["Fault", send.fault], ["Took", `${send.durationMicros} µs`],
    ]), element("h4", null, "Headers"), headers, element("h4", null, "Payload"), code(prettyJSON(send.payload || ""))];
  }

  async function show(delivery) {
    deliveryPane.replaceChildren(...deliveryView(delivery));
    sendPane.replaceChildren(element("p", "note", "Loading…"));
    if (!dialog.open) dialog.showModal();
    try {
      const sends = await getJSON(`/v1/sends?apnsId=${encodeURIComponent(delivery.apnsId)}&limit=5`);
      sendPane.replaceChildren(...sendView(sends.find((send) => send.status === 200) || sends[0]));
    } catch (error) {
      sendPane.replaceChildren(element("p", "note", `Could not read the send record: ${error.message}`));
    }
  }

  /** A send alone (from the sends log): no delivery to show beside it. */
  function showSend(send) {
    deliveryPane.replaceChildren(element("p", "note", send.status === 200
      ? "Open the notification on its device for the delivery." : "Rejected: nothing was delivered."));
    sendPane.replaceChildren(...sendView(send));
    if (!dialog.open) dialog.showModal();
  }

  return { show, showSend };
})();
