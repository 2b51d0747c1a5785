// Who watches the table: the websocket's `audience` messages (docs/live.md), told
// at most once a second: "3 watching: Ana, Bo…". The names are the signed-in
// spectators' (at most 20); the ellipsis stands for the others.

import { h, mount } from "./dom.js";
import { formatList, formatNumber, tn, tp } from "./i18n.js";

/** The words for an audience: "" for nobody. */
export function audienceWords({ spectators = 0, accounts = [] }) {
  if (!spectators) return "";
  const count = formatNumber(spectators);
  if (!accounts.length) return tn("{count} watching", "{count} watching", spectators, { count });
  // Everyone named: "Ana and Bo"; some not: "Ana, Bo…" (the ellipsis for the others).
  const names =
    spectators > accounts.length
      ? accounts.reduce((items, item) => tp("list", "{items}, {item}", { items, item })) + "…"
      : formatList(accounts);
  // Translators: how many watch the game, then the names of the signed-in ones ("3 watching: Ana, Bo…").
  return tn("{count} watching: {names}", "{count} watching: {names}", spectators, { count, names });
}

/** The audience line of one table. */
export class TableAudience {
  constructor() {
    this.spectators = 0;
    this.accounts = [];
    // Not a live region: spectators come and go, and a screen reader need not say each.
    this.slot = h("p", { class: "table-audience hint", id: "table-audience", hidden: true });
  }

  take(message) {
    this.spectators = message.spectators || 0;
    this.accounts = Array.isArray(message.accounts) ? message.accounts : [];
    const words = audienceWords(this);
    this.slot.hidden = !words;
    mount(this.slot, words);
  }
}
