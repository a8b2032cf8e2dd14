// schemaseek workbench: copy buttons and the engines page's event list. No framework, no build.
"use strict";

function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text);
  }
  const area = document.createElement("textarea");
  area.value = text;
  document.body.appendChild(area);
  area.select();
  document.execCommand("copy");
  area.remove();
  return Promise.resolve();
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button.copy");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  copyText(source.textContent).then(() => {
    const label = button.textContent;
    button.classList.add("done");
    button.textContent = "Copied";
    setTimeout(() => { button.classList.remove("done"); button.textContent = label; }, 1500);
  });
});

function renderEvents(list, events) {
  list.replaceChildren(...events.map((e) => {
    const item = document.createElement("li");
    const seq = document.createElement("code");
    seq.textContent = "#" + e.seq;
    const type = document.createElement("span");
    type.className = "badge";
    type.textContent = e.type;
    item.append(seq, " ", type, " " + (e.source || "") + " " + e.message);
    return item;
  }));
}

window.addEventListener("DOMContentLoaded", () => {
  const list = document.getElementById("event-list");
  if (!list || !list.dataset.poll) return;
  setInterval(() => {
    fetch(list.dataset.poll, { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
      .then((events) => renderEvents(list, events))
      .catch(() => {});
  }, 5000);
});
