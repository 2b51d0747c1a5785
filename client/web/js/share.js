// Shareable addresses of a game (join, watch, replay) with copy buttons.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export function gameUrl(kind, gameId) {
  const { origin, pathname } = window.location;
  return `${origin}${pathname}#/${kind}/${encodeURIComponent(gameId)}`;
}

async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission: select the text so Ctrl+C works, and try the old way.
    input.focus();
    input.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

/** A labelled read-only address with a Copy button that says when it copied. */
export function shareField(label, url, key) {
  const id = `share-${key}`;
  const input = h("input", { id, class: "share-url", type: "text", readonly: true, value: url, dataset: { share: key } });
  input.addEventListener("focus", () => input.select());
  const status = h("span", { class: "copy-status", role: "status" });
  const button = h(
    "button",
    {
      type: "button",
      class: "btn btn-small",
      dataset: { key: `copy-${key}` },
      "aria-label": t("Copy the address: {label}", { label }),
      onclick: async () => {
        const ok = await copyText(url, input);
        status.textContent = ok ? t("Copied") : t("Press Ctrl+C to copy");
        window.setTimeout(() => {
          status.textContent = "";
        }, 2500);
      },
    },
    t("Copy"),
  );
  return h("div", { class: "share-field" }, h("label", { for: id }, label), h("div", { class: "share-line" }, input, button, status));
}

export function sharePanel(gameId, { join = true } = {}) {
  return h(
    "div",
    { class: "share-panel" },
    join ? shareField(t("Invite a player"), gameUrl("join", gameId), "join") : null,
    shareField(t("Let anyone watch"), gameUrl("watch", gameId), "watch"),
  );
}
