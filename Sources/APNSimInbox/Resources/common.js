// Helpers every script of the inbox uses: building elements, RFC 3339 times, reading the control API, and running
// one refresh at a time.
"use strict";

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/** RFC 3339 in the browser's zone, with its offset: 2026-11-23T21:05:48.120+01:00. */
function rfc3339(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  const pad = (value, width = 2) => String(Math.abs(value)).padStart(width, "0");
  const offset = -date.getTimezoneOffset();
  const zone = offset === 0 ? "Z" : `${offset > 0 ? "+" : "-"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:` +
    `${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}${zone}`;
}

/** A <time>: the clock time, with the whole RFC 3339 time as its machine value and tooltip. */
function timeElement(iso) {
  const node = element("time", null, iso ? rfc3339(iso).slice(11, 19) : "");
  if (iso) {
    node.dateTime = iso;
    node.title = rfc3339(iso);
  }
  return node;
}

async function getJSON(path) {
  const answer = await fetch(path);
  const body = await answer.json();
  if (!answer.ok) throw new Error(body.error || `${path} answered ${answer.status}`);
  return body;
}

/** One run of `work` at a time; a call that arrives meanwhile runs it once more after it. */
function serialized(work) {
  let running = null;
  let again = false;
  return function run() {
    if (running) { again = true; return running; }
    running = work().finally(() => {
      running = null;
      if (again) { again = false; run(); }
    });
    return running;
  };
}
