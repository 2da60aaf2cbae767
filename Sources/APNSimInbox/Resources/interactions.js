// The user's side of a displayed notification in the inbox: a click on a banner taps it, its buttons press its
// category's actions (a text-input action asks for the reply first), Dismiss dismisses it; each answer is the
// interaction record (POST /v1/devices/{id}/tap, …/dismiss; docs/interactions.md), and a notification answered
// leaves the list for the device's "Answered" list, which shows what the app opened and reported.
"use strict";

const interactions = (() => {
  /** Every interaction record loaded, by the delivery it answered. */
  const answered = new Map();

  async function load() {
    const records = await getJSON("/v1/interactions?limit=100000");
    answered.clear();
    for (const record of records) answered.set(record.deliveryId, record);
  }

  async function post(delivery, verb, body) {
    const answer = await fetch(`/v1/devices/${encodeURIComponent(delivery.device)}/${verb}`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
    const record = await answer.json();
    if (!answer.ok) throw new Error(record.error || `${verb} answered ${answer.status}`);
    answered.set(delivery.id, record);
    return record;
  }

  /** Does `verb` to `delivery`; the banner says why when nothing happened. */
  function act(delivery, verb, body, banner, done) {
    post(delivery, verb, { apnsId: delivery.apnsId, ...body })
      .then((record) => { statusLine.textContent = `${delivery.device}: ${record.detail}`; done(); })
      .catch((error) => {
        banner.querySelector(".interaction-error")?.remove();
        banner.append(element("p", "interaction-error", error.message));
      });
  }

  /** A text-input action: a reply field and its send button under the banner, focused. */
  function replyForm(delivery, action, banner, done) {
    banner.querySelector("form.reply")?.remove();
    const form = element("form", "reply");
    const field = element("input");
    field.placeholder = action.textInput.placeholder || "Reply";
    field.setAttribute("aria-label", `${action.title}: ${field.placeholder}`);
    const send = element("button", null, action.textInput.buttonTitle || "Send");
    send.type = "submit";
    form.append(field, send);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      act(delivery, "tap", { action: action.identifier, text: field.value }, banner, done);
    });
    banner.append(form);
    field.focus();
  }

  /** A click in a banner: on a button, that button's action; elsewhere (not on media), a tap on the notification. */
  function clicked(event, delivery, done) {
    const banner = event.target.closest("li.banner");
    if (!banner || event.target.closest("video, audio, a, input, form")) return false;
    const button = event.target.closest("button[data-interaction]");
    if (button && button.dataset.interaction === "details") return false;
    if (button && button.dataset.interaction === "dismiss") {
      act(delivery, "dismiss", {}, banner, done);
    } else if (button) {
      const action = (delivery.content.actions || []).find((candidate) => candidate.identifier === button.dataset.action);
      if (action && action.textInput) replyForm(delivery, action, banner, done);
      else act(delivery, "tap", { action: button.dataset.action }, banner, done);
    } else {
      act(delivery, "tap", {}, banner, done);
    }
    return true;
  }

  /** An answered notification: what the user did, and what the app opened and reported. */
  function answeredRow(delivery, record) {
    const content = delivery.content || {};
    const row = element("li", "answered");
    row.tabIndex = 0;
    row.dataset.apnsId = delivery.apnsId;
    row.dataset.id = delivery.id;
    row.append(element("div", "title", content.title || content.body || delivery.apnsId), element("div", "body", record.detail));
    if (record.opened) {
      const opened = element("div", "opened");
      opened.append(document.createTextNode("Opened "), element("code", null, record.opened));
      row.append(opened);
    }
    row.setAttribute("aria-label", `${content.title || ""} ${record.detail}. Press Enter for details.`);
    return row;
  }

  return { answered, load, clicked, answeredRow };
})();
