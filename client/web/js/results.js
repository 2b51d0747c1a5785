// The end of a game in words and a table: winners, points, cards bought, nobles;
// for Splendor Duel the winner, how they won (prestige, crowns or colour) and the tallies.

import { h, listWords, plural, svg } from "./dom.js";
import { bestColour } from "./duel_cards.js";
import { LEFT_WIN_WORDS, seatLabel } from "./words.js";

/** What a seat that went out did (a player's `out`, RULES.md part 3). */
export const OUT_WORDS = { time: "ran out of time", resign: "resigned", abandon: "left the game" };

export function resultHeadline(view) {
  const r = view.result;
  if (!r) return "";
  if (LEFT_WIN_WORDS[r.reason]) return leftHeadline(view);
  if (view.variant === "duel") return duelHeadline(view);
  const names = r.winners.map((s) => nameOf(view, s));
  const best = Math.max(...r.points);
  if (names.length > 1) return `${listWords(names)} share the victory with ${plural(best, "point")}.`;
  return `${names[0]} wins with ${plural(best, "point")}!`;
}

/** "Ben wins on time: Ana ran out of time." */
function leftHeadline(view) {
  const r = view.result;
  const winners = r.winners.map((s) => nameOf(view, s));
  const outs = view.players.filter((p) => p.out).map((p) => `${nameOf(view, p.seat)} ${OUT_WORDS[p.out] || "left"}`);
  const verb = winners.length > 1 ? "share the victory" : "wins";
  return `${listWords(winners)} ${verb} ${LEFT_WIN_WORDS[r.reason]}${outs.length ? `: ${listWords(outs)}` : ""}.`;
}

/** The ranks (result.ranks): "1. Ana", "2. Ben (ran out of time)", best first. */
export function rankList(view) {
  const r = view.result;
  if (!r || !r.ranks) return null;
  const order = view.players.map((p) => p.seat).sort((a, b) => r.ranks[a] - r.ranks[b] || a - b);
  return h(
    "ol",
    { class: "ranks", "aria-label": "Ranks" },
    order.map((seat) => {
      const p = view.players.find((q) => q.seat === seat);
      const out = p && p.out ? ` (${OUT_WORDS[p.out] || "out"})` : "";
      return h("li", { dataset: { seat: String(seat), rank: String(r.ranks[seat]) } }, h("b", {}, `${r.ranks[seat]}.`), ` ${nameOf(view, seat)}${out}`);
    }),
  );
}

function nameOf(view, seat) {
  const p = view.players.find((q) => q.seat === seat);
  return p ? seatLabel(view.players, p) : `Seat ${seat + 1}`;
}

const DUEL_REASON = {
  prestige: (p) => `by prestige, with ${plural(p.points, "point")}`,
  crowns: (p) => `by crowns, with ${plural(p.crowns, "crown")}`,
  colour: (p) => {
    const [colour, points] = bestColour(p);
    return `by colour, with ${plural(points, "point")} on ${colour} cards`;
  },
};

/** "Ana wins by crowns, with 10 crowns!" */
function duelHeadline(view) {
  const r = view.result;
  const seat = r.winners[0];
  const p = view.players.find((q) => q.seat === seat);
  const how = p && DUEL_REASON[r.reason] ? ` ${DUEL_REASON[r.reason](p)}` : "";
  return `${nameOf(view, seat)} wins${how}!`;
}

function duelResultTable(view) {
  const r = view.result;
  return h(
    "table",
    { class: "result-table", dataset: { reason: r.reason } },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Points"), h("th", { scope: "col" }, "Crowns"), h("th", { scope: "col" }, "Best colour"), h("th", { scope: "col", class: "col-cards" }, "Cards"))),
    h(
      "tbody",
      {},
      [...view.players]
        .sort((a, b) => Number(r.winners.includes(b.seat)) - Number(r.winners.includes(a.seat)))
        .map((p) => {
          const won = r.winners.includes(p.seat);
          const [colour, points] = bestColour(p);
          return h(
            "tr",
            { class: won ? "won" : null, dataset: { seat: String(p.seat) } },
            h(
              "th",
              { scope: "row" },
              won ? svg("0 0 24 24", '<path d="M3 18 4.5 7l4.5 5 3-7 3 7 4.5-5L21 18Z"/>', { class: "win-crown" }) : null,
              nameOf(view, p.seat),
              won ? h("span", { class: "sr-only" }, " (winner)") : null,
            ),
            h("td", { class: r.reason === "prestige" && won ? "decisive" : null }, String(p.points)),
            h("td", { class: r.reason === "crowns" && won ? "decisive" : null }, String(p.crowns)),
            h("td", { class: r.reason === "colour" && won ? "decisive" : null }, points ? `${points} ${colour}` : "0"),
            h("td", { class: "col-cards" }, String(p.cards.length)),
          );
        }),
    ),
  );
}

/** Ranked rows: most points first, then fewest cards (the tie-break of RULES.md). */
export function resultTable(view) {
  if (view.variant === "duel") return duelResultTable(view);
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
