// Development cards, card backs and nobles, drawn with HTML/CSS and the gem symbols.

import { h, listWords, svg } from "./dom.js";
import { GEMS, colourWord, costPip, gemIcon, gemLabel, tokenWords } from "./gems.js";
import { formatNumber, t, tn } from "./i18n.js";

const ROMAN = { 1: "I", 2: "II", 3: "III" };

/** Words for a cost or requirement: "2 white and 3 red". */
export function costWords(cost) {
  const parts = GEMS.filter((g) => cost[g]).map((g) => tokenWords(g, cost[g]));
  return parts.length ? listWords(parts) : t("nothing");
}

/** "level-2 blue card, 3 points": how the log and labels name a card. */
export function cardName(card) {
  const args = { level: card.level, colour: colourWord(card.color) };
  if (!card.points) return t("level-{level} {colour} card", args);
  return tn("level-{level} {colour} card, {n} point", "level-{level} {colour} card, {n} points", card.points, args);
}

export function cardLabel(card) {
  return tn("Level {level} {gem} card, {n} point, costs {cost}", "Level {level} {gem} card, {n} points, costs {cost}", card.points, { level: card.level, gem: gemLabel(card.color), cost: costWords(card.cost) });
}

/**
 * A card's face. With `onClick` it is a button (the table's interactive cards);
 * `extra` adds classes (e.g. "selected", "affordable").
 */
export function cardFace(id, card, { onClick, extra = [], size = "", label, attrs = {} } = {}) {
  if (!card) return cardSlotEmpty();
  const classes = ["card", `card-${card.color}`, `level-${card.level}`, size && `card-${size}`, ...extra];
  return cardShell(id, card, { classes, text: label || cardLabel(card), onClick, attrs },
    h(
      "span",
      { class: "card-head" },
      h("span", { class: "card-points" }, card.points ? formatNumber(card.points) : ""),
      h("span", { class: "card-bonus" }, gemIcon(card.color, "card-gem")),
    ),
    gemIcon(card.color, "card-art"),
    h("span", { class: "card-level", "aria-hidden": "true" }, ROMAN[card.level]),
    h(
      "span",
      { class: "card-cost" },
      GEMS.filter((g) => card.cost[g]).map((g) => costPip(g, card.cost[g])),
    ),
  );
}

/**
 * The attributes of a drawn piece (a card, a noble, a royal card): with `onClick` a
 * button named `text`, else an image with `text` as its label and tooltip.
 */
export function pieceAttrs(text, onClick) {
  return {
    "aria-label": text,
    title: onClick ? null : text,
    role: onClick ? null : "img",
    type: onClick ? "button" : null,
    onclick: onClick || null,
  };
}

/**
 * The element every card face is drawn in (both games): a button with `onClick`,
 * else an image, labelled with `text`; `children` are the face's parts.
 */
export function cardShell(id, card, { classes, text, onClick, attrs = {} }, ...children) {
  return h(
    onClick ? "button" : "div",
    {
      class: classes,
      dataset: { card: id, level: String(card.level) },
      ...pieceAttrs(text, onClick),
      ...attrs,
    },
    ...children,
  );
}

export function cardSlotEmpty() {
  return h("div", { class: "card card-empty", role: "img", "aria-label": t("Empty slot") });
}

/** A face-down card: the level only (a deck, or someone's hidden reserve). */
export function cardBack(level, { count, onClick, extra = [], size = "", label, attrs = {} } = {}) {
  const tag = onClick ? "button" : "div";
  const text =
    label || (count === undefined ? t("A hidden level-{level} card", { level }) : tn("Level {level} deck, {n} card left", "Level {level} deck, {n} cards left", count, { level }));
  return h(
    tag,
    {
      class: ["card", "card-back", `level-${level}`, size && `card-${size}`, ...extra],
      ...pieceAttrs(text, onClick),
      ...attrs,
    },
    svg(
      "0 0 40 40",
      '<path d="M20 4 34 14 20 36 6 14Z"/><path class="facet" d="M6 14h28M13 14l7 22 7-22M12 6.5l1 7.5 7-10 7 10 1-7.5"/>',
      { class: "back-mark" },
    ),
    h("span", { class: "back-level" }, ROMAN[level]),
    count === undefined ? null : h("span", { class: "back-count" }, formatNumber(count)),
  );
}

export function nobleLabel(noble) {
  return tn("Noble, {n} point, visits a player with {cost} cards", "Noble, {n} points, visits a player with {cost} cards", noble.points, { cost: costWords(noble.requires) });
}

/** A noble tile: its points and the bonuses it requires. */
export function nobleTile(id, noble, { onClick, extra = [], size = "" } = {}) {
  const tag = onClick ? "button" : "div";
  return h(
    tag,
    {
      class: ["noble", size && `noble-${size}`, ...extra],
      dataset: { noble: id },
      ...pieceAttrs(nobleLabel(noble), onClick),
    },
    h(
      "span",
      { class: "noble-head" },
      h("span", { class: "noble-points" }, formatNumber(noble.points)),
      svg(
        "0 0 24 24",
        '<path d="M3 18 4.5 7l4.5 5 3-7 3 7 4.5-5L21 18Z"/><rect x="3" y="19" width="18" height="2.5" rx="1"/>',
        { class: "noble-crown" },
      ),
    ),
    h(
      "span",
      { class: "noble-req" },
      GEMS.filter((g) => noble.requires[g]).map((g) => costPip(g, noble.requires[g], "square")),
    ),
  );
}

export { gemIcon };
