// The game log: one line per event, in version order, in sentences (words.js).
// Live, it follows the newest line; in a replay each line jumps to its move and
// the current one is highlighted.

import { h } from "./dom.js";
import { describerFor } from "./duel_words.js";
import { formatNumber, t } from "./i18n.js";

export class GameLog {
  /** onPick(version): makes lines clickable (the replay). */
  constructor({ names, catalog, onPick = null, title = t("Game log"), variant = "classic" }) {
    this.names = names;
    this.describe = describerFor(variant);
    this.catalog = catalog;
    this.onPick = onPick;
    this.events = new Map(); // version -> event
    this.current = null;
    // A scrolled list of plain lines must take focus to be scrolled with the keyboard;
    // the replay's lines are buttons already.
    this.list = h("ol", { class: "log-list", "aria-live": onPick ? "off" : "polite", "aria-relevant": "additions", tabindex: onPick ? null : "0", "aria-label": onPick ? null : title });
    this.el = h("section", { class: "log", "aria-label": title }, h("h2", { class: "panel-title" }, title), this.list);
  }

  get lastVersion() {
    let last = 0;
    for (const v of this.events.keys()) last = Math.max(last, v);
    return last;
  }

  /** Add events (any order, duplicates ignored); returns true if any was new. */
  add(events) {
    let fresh = false;
    let appendOnly = true;
    const last = this.lastVersion;
    for (const e of events) {
      if (!e || typeof e.version !== "number" || this.events.has(e.version)) continue;
      this.names.learnEvent(e);
      if (e.version < last) appendOnly = false;
      this.events.set(e.version, e);
      fresh = true;
    }
    if (!fresh) return false;
    const follow = this.nearBottom();
    if (appendOnly) {
      const versions = [...this.events.keys()].filter((v) => v > last).sort((a, b) => a - b);
      for (const v of versions) this.list.append(this.line(this.events.get(v)));
    } else {
      this.render();
    }
    if (follow && !this.onPick) this.list.scrollTop = this.list.scrollHeight;
    return true;
  }

  nearBottom() {
    const l = this.list;
    return l.scrollHeight - l.scrollTop - l.clientHeight < 60;
  }

  render() {
    const versions = [...this.events.keys()].sort((a, b) => a - b);
    this.list.replaceChildren(...versions.map((v) => this.line(this.events.get(v))));
    if (this.current !== null) this.setCurrent(this.current);
  }

  line(event) {
    const { text, kind } = this.describe(event, this.names, this.catalog);
    const cls = ["log-line", `log-${kind}`, `ev-${event.type}`];
    const content = this.onPick
      ? h("button", { type: "button", class: "log-jump", onclick: () => this.onPick(event.version), "aria-label": t("Move {n}: {text}", { n: event.version, text }) }, h("span", { class: "log-v" }, formatNumber(event.version)), h("span", { class: "log-text" }, text))
      : [h("span", { class: "log-v", "aria-hidden": "true" }, formatNumber(event.version)), h("span", { class: "log-text" }, text)];
    return h("li", { class: cls, dataset: { version: String(event.version), type: event.type } }, content);
  }

  /** Highlight the line of `version` and bring it into view. */
  setCurrent(version) {
    this.current = version;
    for (const li of this.list.querySelectorAll(".current")) {
      li.classList.remove("current");
      li.removeAttribute("aria-current");
    }
    const li = this.list.querySelector(`[data-version="${version}"]`);
    if (li) {
      li.classList.add("current");
      li.setAttribute("aria-current", "step");
      const top = li.offsetTop; // the list is position: relative
      const l = this.list;
      if (top < l.scrollTop || top + li.offsetHeight > l.scrollTop + l.clientHeight) {
        l.scrollTop = Math.max(0, top - l.clientHeight / 2);
      }
    }
  }
}
