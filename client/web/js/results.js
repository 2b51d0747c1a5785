// The end of a game in words and a table: winners, points, cards bought, nobles.

import { h, listWords, plural, svg } from "./dom.js";
import { botName } from "./words.js";

export function resultHeadline(view) {
  const r = view.result;
  if (!r) return "";
  const names = r.winners.map((s) => nameOf(view, s));
  const best = Math.max(...r.points);
  if (names.length > 1) return `${listWords(names)} share the victory with ${plural(best, "point")}.`;
  return `${names[0]} wins with ${plural(best, "point")}!`;
}

function nameOf(view, seat) {
  const p = view.players.find((q) => q.seat === seat);
  return p ? p.name || botName(p.bot) : `Seat ${seat + 1}`;
}

/** Ranked rows: most points first, then fewest cards (the tie-break of RULES.md). */
export function resultTable(view) {
  const r = view.result;
  const seats = view.players.map((p) => p.seat);
  seats.sort((a, b) => r.points[b] - r.points[a] || r.cards[a] - r.cards[b]);
  return h(
    "table",
    { class: "result-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Points"), h("th", { scope: "col" }, "Cards"), h("th", { scope: "col" }, "Nobles"))),
    h(
      "tbody",
      {},
      seats.map((seat) => {
        const p = view.players.find((q) => q.seat === seat);
        const won = r.winners.includes(seat);
        return h(
          "tr",
          { class: won ? "won" : null, dataset: { seat: String(seat) } },
          h(
            "th",
            { scope: "row" },
            won ? svg("0 0 24 24", '<path d="M3 18 4.5 7l4.5 5 3-7 3 7 4.5-5L21 18Z"/>', { class: "win-crown" }) : null,
            nameOf(view, seat),
            won ? h("span", { class: "sr-only" }, " (winner)") : null,
          ),
          h("td", {}, String(r.points[seat])),
          h("td", {}, String(r.cards[seat])),
          h("td", {}, String(p ? p.nobles.length : 0)),
        );
      }),
    ),
  );
}
