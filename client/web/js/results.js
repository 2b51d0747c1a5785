// The end of a game in words and a table: winners, points, cards bought, nobles;
// for Splendor Duel the winner, how they won (prestige, crowns or colour) and the tallies.

import { h, listWords, svg } from "./dom.js";
import { bestColour } from "./duel_cards.js";
import { colourWord } from "./gems.js";
import { formatClock, formatNumber, t, tn, tp } from "./i18n.js";
import { changeTag, ratingAfter } from "./seatratings.js";
import { LEFT_WIN_WORDS, seatLabel } from "./words.js";

/** What a seat that went out did (a player's `out`, RULES.md part 3). */
export const OUT_WORDS = { time: t("ran out of time"), resign: t("resigned"), abandon: t("left the game") };

// "Ana ran out of time": who went out, and how.
const WENT_OUT = {
  time: (who) => t("{who} ran out of time", { who }),
  resign: (who) => t("{who} resigned", { who }),
  abandon: (who) => t("{who} left the game", { who }),
};

export function resultHeadline(view) {
  const r = view.result;
  if (!r) return "";
  if (LEFT_WIN_WORDS[r.reason]) return leftHeadline(view);
  if (view.variant === "duel") return duelHeadline(view);
  const names = r.winners.map((s) => nameOf(view, s));
  const best = Math.max(...r.points);
  if (names.length > 1) return tn("{winners} share the victory with {n} point.", "{winners} share the victory with {n} points.", best, { winners: listWords(names) });
  return tn("{winner} wins with {n} point!", "{winner} wins with {n} points!", best, { winner: names[0] });
}

/** "Ben wins on time: Ana ran out of time." */
function leftHeadline(view) {
  const r = view.result;
  const winners = r.winners.map((s) => nameOf(view, s));
  const outs = view.players.filter((p) => p.out).map((p) => (WENT_OUT[p.out] || ((who) => t("{who} left", { who })))(nameOf(view, p.seat)));
  const args = { winners: listWords(winners), how: LEFT_WIN_WORDS[r.reason], outs: listWords(outs) };
  if (outs.length) return tn("{winners} wins {how}: {outs}.", "{winners} share the victory {how}: {outs}.", winners.length, args);
  return tn("{winners} wins {how}.", "{winners} share the victory {how}.", winners.length, args);
}

/**
 * The seats best first: by `result.ranks` (ties share a rank; seats out last), else
 * (a result without ranks) the winners first; then by seat.
 */
export function rankedSeats(view) {
  return view.players.map((p) => p.seat).sort((a, b) => rankOf(view, a) - rankOf(view, b) || a - b);
}

function rankOf(view, seat) {
  const r = view.result;
  return r && r.ranks ? r.ranks[seat] : r && r.winners.includes(seat) ? 1 : 2;
}

/** The ranks (result.ranks): "1. Ana +12", "2. Ben (ran out of time) −12", best
 * first; `ratings` (seatratings.js) adds a counted game's changes. */
export function rankList(view, ratings = null) {
  const r = view.result;
  if (!r || !r.ranks) return null;
  return h(
    "ol",
    { class: "ranks", "aria-label": t("Ranks") },
    rankedSeats(view).map((seat) => {
      const p = view.players.find((q) => q.seat === seat);
      const name = nameOf(view, seat);
      const out = p && p.out ? OUT_WORDS[p.out] || t("out") : null;
      const line = out ? t("{name} ({out})", { name, out }) : name;
      const rating = ratings && ratings.get(seat);
      const change = rating && rating.delta !== null ? [" ", changeTag(rating.delta)] : null;
      return h("li", { dataset: { seat: String(seat), rank: String(r.ranks[seat]) } }, h("b", {}, t("{rank}.", { rank: r.ranks[seat] })), ` ${line}`, change);
    }),
  );
}

/** The end screen's extra columns: the rank first; each seat's rating (and its change
 * once counted) in a rated game; each seat's clock as the game left it in a timed one. */
function extraColumns(view, ratings) {
  const clock = view.clock && (view.clock.remaining || []).some((ms) => ms !== null && ms !== undefined) ? view.clock : null;
  return {
    head: (cells) => [h("th", { scope: "col", class: "col-rank" }, h("span", { class: "sr-only" }, t("Rank"))), ...cells, ratings ? h("th", { scope: "col", class: "col-rating" }, t("Rating")) : null, clock ? h("th", { scope: "col", class: "col-clock" }, t("Clock")) : null],
    row: (seat, cells) => {
      const rating = ratings && ratings.get(seat);
      const ms = clock ? clock.remaining[seat] : null;
      return [
        h("td", { class: "col-rank" }, t("{rank}.", { rank: rankOf(view, seat) })),
        ...cells,
        ratings ? h("td", { class: "col-rating" }, rating ? ratingAfter(rating) : null) : null,
        clock ? h("td", { class: "col-clock", dataset: { clock: ms === null || ms === undefined ? "" : String(ms) } }, ms === null || ms === undefined ? null : formatClock(ms)) : null,
      ];
    },
  };
}

function nameOf(view, seat) {
  const p = view.players.find((q) => q.seat === seat);
  return p ? seatLabel(view.players, p) : t("Seat {n}", { n: seat + 1 });
}

const DUEL_REASON = {
  prestige: (who, p) => tn("{who} wins by prestige, with {n} point!", "{who} wins by prestige, with {n} points!", p.points, { who }),
  crowns: (who, p) => tn("{who} wins by crowns, with {n} crown!", "{who} wins by crowns, with {n} crowns!", p.crowns, { who }),
  colour: (who, p) => {
    const [colour, points] = bestColour(p);
    return tn("{who} wins by colour, with {n} point on {colour} cards!", "{who} wins by colour, with {n} points on {colour} cards!", points, { who, colour: colourWord(colour) });
  },
};

/** "Ana wins by crowns, with 10 crowns!" */
function duelHeadline(view) {
  const r = view.result;
  const seat = r.winners[0];
  const p = view.players.find((q) => q.seat === seat);
  const who = nameOf(view, seat);
  return p && DUEL_REASON[r.reason] ? DUEL_REASON[r.reason](who, p) : t("{who} wins!", { who });
}

function duelResultTable(view, ratings) {
  const r = view.result;
  const extra = extraColumns(view, ratings);
  return h(
    "table",
    { class: "result-table", dataset: { reason: r.reason } },
    h("thead", {}, h("tr", {}, extra.head([h("th", { scope: "col" }, t("Player")), h("th", { scope: "col" }, tp("term", "Points")), h("th", { scope: "col" }, tp("term", "Crowns")), h("th", { scope: "col" }, tp("term", "Best colour")), h("th", { scope: "col", class: "col-cards" }, tp("term", "Cards"))]))),
    h(
      "tbody",
      {},
      rankedSeats(view)
        .map((seat) => view.players.find((q) => q.seat === seat))
        .map((p) => {
          const won = r.winners.includes(p.seat);
          const [colour, points] = bestColour(p);
          return h(
            "tr",
            { class: won ? "won" : null, dataset: { seat: String(p.seat), rank: String(rankOf(view, p.seat)) } },
            extra.row(p.seat, [h(
              "th",
              { scope: "row" },
              won ? svg("0 0 24 24", '<path d="M3 18 4.5 7l4.5 5 3-7 3 7 4.5-5L21 18Z"/>', { class: "win-crown" }) : null,
              nameOf(view, p.seat),
              won ? h("span", { class: "sr-only" }, " ", t("(winner)")) : null,
            ),
            h("td", { class: r.reason === "prestige" && won ? "decisive" : null }, formatNumber(p.points)),
            h("td", { class: r.reason === "crowns" && won ? "decisive" : null }, formatNumber(p.crowns)),
            h("td", { class: r.reason === "colour" && won ? "decisive" : null }, points ? t("{n} {colour}", { n: points, colour: colourWord(colour) }) : formatNumber(0)),
            h("td", { class: "col-cards" }, formatNumber(p.cards.length)),
          ]));
        }),
    ),
  );
}

/**
 * The end screen's table, in rank order (`result.ranks`: the winners first, ties
 * sharing a rank, the seats out last), each row with its rank, and in a rated game
 * each seat's rating and change (`ratings`, seatratings.js), in a timed one each
 * seat's clock as the game left it (the finished view's `remaining`).
 */
export function resultTable(view, ratings = null) {
  if (view.variant === "duel") return duelResultTable(view, ratings);
  const r = view.result;
  const extra = extraColumns(view, ratings);
  return h(
    "table",
    { class: "result-table" },
    h("thead", {}, h("tr", {}, extra.head([h("th", { scope: "col" }, t("Player")), h("th", { scope: "col" }, tp("term", "Points")), h("th", { scope: "col", class: "col-cards" }, tp("term", "Cards")), h("th", { scope: "col", class: "col-nobles" }, tp("term", "Nobles"))]))),
    h(
      "tbody",
      {},
      rankedSeats(view).map((seat) => {
        const p = view.players.find((q) => q.seat === seat);
        const won = r.winners.includes(seat);
        return h(
          "tr",
          { class: won ? "won" : null, dataset: { seat: String(seat), rank: String(rankOf(view, seat)) } },
          extra.row(seat, [h(
            "th",
            { scope: "row" },
            won ? svg("0 0 24 24", '<path d="M3 18 4.5 7l4.5 5 3-7 3 7 4.5-5L21 18Z"/>', { class: "win-crown" }) : null,
            nameOf(view, seat),
            won ? h("span", { class: "sr-only" }, " ", t("(winner)")) : null,
          ),
          h("td", {}, formatNumber(r.points[seat])),
          h("td", { class: "col-cards" }, formatNumber(r.cards[seat])),
          h("td", { class: "col-nobles" }, formatNumber(p ? p.nobles.length : 0)),
        ]));
      }),
    ),
  );
}
