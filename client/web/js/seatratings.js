// Ratings where players look (docs/ratings.md, "Pages"): beside each name at the
// table of a rated game, and each seat's change once the game counted. A rated
// game's summary gives each account's and bot's seat its `rating` and `provisional`,
// and in a counted game its rating after that game and `delta`; a casual game's gives
// none, and the page shows none.

import { h } from "./dom.js";
import { formatChange, formatNumber, t } from "./i18n.js";

/**
 * The ratings of a rated game's seats, from its summary: seat -> {rating, provisional,
 * delta} (`rating` the one before the game, `delta` null until it counted); null for
 * a casual game.
 */
export function seatRatings(summary) {
  if (!summary || !summary.rated) return null;
  const bySeat = new Map();
  for (const s of summary.seats || []) {
    if (!Number.isInteger(s.rating)) continue;
    const delta = Number.isInteger(s.delta) ? s.delta : null;
    bySeat.set(s.seat, { rating: delta === null ? s.rating : s.rating - delta, after: s.rating, provisional: !!s.provisional, delta });
  }
  return bySeat;
}

/** "1500?" while provisional, else "1623", in the page's digits. */
export function ratingText(r, rating = r.rating) {
  return r.provisional ? t("{rating}?", { rating: formatNumber(rating) }) : formatNumber(rating);
}

function ratingLabel(r, rating = r.rating) {
  return r.provisional ? t("rating {rating}, provisional", { rating }) : t("rating {rating}", { rating });
}

/** A seat's rating as a small number beside its name: the rating before the game. */
export function ratingTag(r) {
  return h("span", { class: "seat-rating", dataset: { rating: String(r.rating), provisional: String(r.provisional) }, "aria-label": ratingLabel(r), title: ratingLabel(r) }, ratingText(r));
}

/** A seat's change once its game counted: "+12" (green), "−8" (red). */
export function changeTag(delta) {
  const words = t("rating change {change}", { change: formatChange(delta) });
  return h("span", { class: ["rating-change", delta > 0 && "rating-up", delta < 0 && "rating-down"], dir: "ltr", dataset: { delta: String(delta) }, "aria-label": words, title: words }, formatChange(delta));
}

/** The rating after the game and its change, for the end screen: "1523 +23". */
export function ratingAfter(r) {
  if (r.delta === null) return ratingTag(r);
  const label = ratingLabel(r, r.after);
  return h("span", { class: "rating-after" }, h("span", { class: "seat-rating", dataset: { rating: String(r.after) }, "aria-label": label, title: label }, ratingText(r, r.after)), " ", changeTag(r.delta));
}

/** Put each seat's rating beside its name in the players' heads under `root`. */
export function decorateRatings(root, ratings) {
  if (!ratings) return;
  for (const head of root.querySelectorAll("[data-player] .player-head")) {
    const r = ratings.get(Number(head.closest("[data-player]").dataset.player));
    const name = head.querySelector(".player-name");
    if (!r || !name || head.querySelector(".seat-rating")) continue;
    name.after(ratingTag(r));
  }
}
