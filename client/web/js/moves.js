// The replay's move list: one line per turn, with its round ("7", "7+" for an extra
// turn), who played and what the turn did (its events in sentences, bookkeeping left
// out) and how long it took (from its events' times). A line jumps to the end of its
// turn; the current turn is highlighted.

import { h } from "./dom.js";
import { describerFor } from "./duel_words.js";
import { formatClock, formatMinutes, formatNumber, formatPercent, t } from "./i18n.js";

/** How long a turn took: "0:42", "12:05"; past an hour as a clock does ("1:02:03", "2d 3h"). */
export function durationText(ms) {
  return ms < 3_600_000 ? formatMinutes(ms / 1000) : formatClock(ms);
}

export class MoveList {
  /** turns from turns.js; onPick(turn) is called with the clicked turn. */
  constructor({ turns, events, names, catalog, variant, onPick }) {
    this.turns = turns;
    this.byVersion = new Map(events.map((e) => [e.version, e]));
    this.names = names;
    this.catalog = catalog;
    this.describe = describerFor(variant);
    this.onPick = onPick;
    this.current = null;
    this.mistakes = new Map(); // turn n -> {seat, lost}, from the analysis
    this.list = h("ol", { class: "move-list", id: "move-list" });
    this.el = h("section", { class: "moves", "aria-label": t("Moves") }, this.list);
  }

  /** What turn `turn` did, in sentences: its moves and what followed them. */
  words(turn) {
    const texts = [];
    for (const v of turn.versions) {
      const event = this.byVersion.get(v);
      if (!event) continue;
      const { text, kind } = this.describe(event, this.names, this.catalog);
      if (kind !== "minor") texts.push(text);
    }
    return texts.join(" ") || t("{who} played.", { who: this.names.of(turn.seat) });
  }

  /** The ms `turn` took: from the event it began at to the one it ended with (their
   * `at`); null for a turn not over or events without times. */
  spent(turn) {
    const from = this.byVersion.get(turn.start);
    const to = turn.end === null ? null : this.byVersion.get(turn.end);
    const ms = from && to ? Date.parse(to.at) - Date.parse(from.at) : NaN;
    return Number.isFinite(ms) ? Math.max(0, ms) : null;
  }

  /** Mark the analysis's mistakes ([{version, seat, lost}]): each on the turn that
   * starts at its version (the first turn not over by then). */
  markMistakes(mistakes) {
    this.mistakes = new Map();
    for (const m of mistakes) {
      const turn = this.turns.find((t) => (t.end ?? Infinity) > m.version);
      if (turn) this.mistakes.set(turn.n, m);
    }
    this.render();
  }

  /** Draw the lines (again after names are learnt). */
  render() {
    this.list.replaceChildren(
      ...this.turns.map((turn) => {
        const round = `${formatNumber(turn.round)}${turn.extra ? "+" : ""}`;
        const text = this.words(turn);
        const mistake = this.mistakes.get(turn.n);
        const lost = mistake ? t("Mistake: {who}'s chance to win fell by {n} points.", { who: this.names.of(mistake.seat), n: Math.round(mistake.lost * 100) }) : "";
        const args = { n: turn.n, round: turn.round, text };
        let label = turn.extra ? t("Turn {n}, round {round} (extra turn): {text}", args) : t("Turn {n}, round {round}: {text}", args);
        if (lost) label = t("{label} {mistake}", { label, mistake: lost });
        const spent = this.spent(turn);
        const took = spent === null ? null : durationText(spent);
        if (took) label = t("{label} Time taken: {time}.", { label, time: took });
        return h(
          "li",
          { class: ["move", mistake && "mistake"], dataset: { turn: String(turn.n), seat: String(turn.seat), start: String(turn.start), version: String(turn.end ?? turn.start) } },
          h(
            "button",
            { type: "button", class: "move-jump", "aria-label": label, onclick: () => this.onPick(turn) },
            h("span", { class: "move-round", "aria-hidden": "true" }, round),
            h("span", { class: "move-text" }, text, !mistake ? null : h("span", { class: "move-mistake", title: lost }, ` ?! −${formatPercent(mistake.lost)}`)),
            took ? h("span", { class: "move-time", "aria-hidden": "true", dataset: { ms: String(spent) } }, took) : null,
          ),
        );
      }),
    );
    if (this.current !== null) this.setCurrent(this.current);
  }

  /** Highlight turn number `n` (null: none) and bring it into view. */
  setCurrent(n) {
    this.current = n;
    for (const li of this.list.querySelectorAll(".current")) {
      li.classList.remove("current");
      li.removeAttribute("aria-current");
    }
    const li = n === null ? null : this.list.querySelector(`[data-turn="${n}"]`);
    if (!li) return;
    li.classList.add("current");
    li.setAttribute("aria-current", "step");
    const l = this.list;
    const top = li.offsetTop; // the list is position: relative
    if (top < l.scrollTop || top + li.offsetHeight > l.scrollTop + l.clientHeight) {
      l.scrollTop = Math.max(0, top - l.clientHeight / 2);
    }
  }
}
