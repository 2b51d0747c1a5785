// On a phone a seat's own area is far below the board: a compact bar, stuck to the
// bottom with the action bar, keeps the seat's tokens and reserved cards in view while
// choosing. A reserved card in it picks the card of the seat's area (the same choice
// as clicking it there). Hidden on wider screens, where the area is beside the board.

import { h } from "./dom.js";
import { DUEL_TOKENS, GEMS, colourWord, gemIcon, gemLabel, TOKENS, tokenChip } from "./gems.js";
import { formatNumber, t, tn } from "./i18n.js";

const LEVELS = ["", "I", "II", "III"];

function reserveChip(reserved, catalog, seat) {
  const card = reserved.card && catalog && catalog.cards ? catalog.cards[reserved.card] : null;
  const level = card ? card.level : reserved.level;
  if (!card) return h("span", { class: "my-reserve", role: "img", "aria-label": t("A reserved level-{level} card", { level }) }, h("span", { class: "my-reserve-level" }, LEVELS[level]));
  const colour = GEMS.includes(card.color) ? card.color : null;
  const args = { level, gem: colour ? gemLabel(colour) : colourWord(card.color) };
  const words = card.points
    ? tn("Your reserved level-{level} {gem} card, {n} point: choose it", "Your reserved level-{level} {gem} card, {n} points: choose it", card.points, args)
    : t("Your reserved level-{level} {gem} card: choose it", args);
  const choose = () => {
    const selector = `[data-player="${seat}"] .reserved button.card[data-card="${CSS.escape(reserved.card)}"]`;
    const button = document.querySelector(selector);
    if (button && !button.disabled) button.click();
  };
  return h(
    "button",
    { type: "button", class: ["my-reserve", colour && `bonus-${colour}`], dataset: { card: reserved.card }, "aria-label": words, title: words, onclick: choose },
    h("span", { class: "my-reserve-level", "aria-hidden": "true" }, LEVELS[level]),
    colour ? gemIcon(colour, "my-reserve-gem") : null,
    card.points ? h("span", { class: "my-reserve-points", "aria-hidden": "true" }, formatNumber(card.points)) : null,
  );
}

/** The seat's bar: its tokens (held of 10) and reserved cards; null for a spectator. */
export function myBar(view, catalog) {
  if (!view || view.status !== "live" || view.you === null || view.you === undefined) return null;
  const me = view.players.find((p) => p.seat === view.you);
  if (!me) return null;
  const kinds = view.variant === "duel" ? DUEL_TOKENS : TOKENS;
  const held = kinds.reduce((n, c) => n + (me.tokens[c] || 0), 0);
  return h(
    "section",
    { class: "my-bar", id: "my-bar", "aria-label": t("Your tokens and reserved cards") },
    h("span", { class: "my-tokens" }, kinds.filter((c) => me.tokens[c]).map((c) => tokenChip(c, me.tokens[c], { size: "sm" }))),
    h("span", { class: "my-held" }, `${formatNumber(held)}/${formatNumber(10)}`),
    me.reserved.length ? h("span", { class: "my-reserves" }, me.reserved.map((r) => reserveChip(r, catalog, me.seat))) : null,
  );
}
