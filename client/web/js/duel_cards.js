// Splendor Duel's pieces drawn with HTML/CSS and inline SVG: jewel cards (bonus,
// double bonus, wild, points, crowns, ability, a cost that may ask for pearls),
// royal cards, crowns and privilege scrolls.

import { cardBack, cardShell, cardSlotEmpty, pieceAttrs } from "./cards.js";
import { h, listWords, svg } from "./dom.js";
import { GEMS, colourWord, costPip, gemIcon, gemLabel, tokenWords } from "./gems.js";
import { formatList, formatNumber, t, tn } from "./i18n.js";

const ROMAN = { 1: "I", 2: "II", 3: "III" };
const COST_ORDER = [...GEMS, "pearl"];

const ICONS = {
  crown: '<path d="M3 18 4.5 7l4.5 5 3-7 3 7 4.5-5L21 18Z"/><rect x="3" y="19" width="18" height="2.5" rx="1"/>',
  privilege:
    '<path d="M6 4h11a3 3 0 0 1 3 3v1h-4v10a3 3 0 0 1-3 3H6a3 3 0 0 1-3-3v-1h3Z"/><path class="facet" d="M8 9h5M8 12h5M8 15h3"/>',
  extra_turn: '<path d="M12 4a8 8 0 1 1-7.5 5.2" fill="none" stroke-width="2.6" stroke-linecap="round"/><path d="M2.5 4.5 5 10l5.2-2.6Z"/>',
  take_token: '<circle cx="10" cy="13" r="7"/><path class="facet" d="M17 3v6M14 6h6" stroke-width="2.4" stroke-linecap="round"/>',
  take_privilege:
    '<path d="M6 4h11a3 3 0 0 1 3 3v1h-4v10a3 3 0 0 1-3 3H6a3 3 0 0 1-3-3v-1h3Z"/>',
  steal_token: '<path d="M4 13h10l-3.5-3.5M14 13l-3.5 3.5" fill="none" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/><circle cx="18.5" cy="13" r="3.5"/>',
  wild: '<path d="M12 2.5 20.2 7.2v9.6L12 21.5l-8.2-4.7V7.2Z"/>',
};

export const ABILITY_WORDS = {
  extra_turn: t("another turn"),
  wild: t("wild: takes the colour of a card it is put on"),
  take_token: t("take a token of its colour from the board"),
  take_privilege: t("take a privilege"),
  steal_token: t("steal a token from the opponent"),
  none: "",
};

/** An ability explained, for tooltips and the selection line (the words, not the rule: the server applies it). */
export const ABILITY_HELP = {
  extra_turn: t("Ability: you play another turn right after this one."),
  wild: t("Wild: it goes on one of your cards with a bonus and takes that colour."),
  take_token: t("Ability: take a token of this card's colour from the board, if there is one."),
  take_privilege: t("Ability: take a privilege (from the opponent when none is left)."),
  steal_token: t("Ability: take one gem or pearl token from the opponent."),
};

/** Crowns explained with the rules' numbers (catalog.rules): "At 3 and 6 crowns a royal card joins you; 10 crowns win." */
export function crownsHelp(catalog) {
  const rules = (catalog && catalog.rules) || {};
  const thresholds = rules.royal_thresholds || [];
  const win = rules.crowns_to_win;
  if (!thresholds.length) return win ? tn("Crowns bring royal cards; {n} crown wins.", "Crowns bring royal cards; {n} crowns win.", win) : t("Crowns bring royal cards.");
  const args = { thresholds: listWords(thresholds.map(formatNumber)) };
  return win
    ? tn("At {thresholds} crowns a royal card joins you; {n} crown wins.", "At {thresholds} crowns a royal card joins you; {n} crowns win.", win, args)
    : t("At {thresholds} crowns a royal card joins you.", args);
}

/** A player's best colour for the colour victory and its points: [colour, points] (on a tie the first in table order). */
export function bestColour(player) {
  const points = player.colour_points || {};
  const colour = GEMS.reduce((b, g) => ((points[g] || 0) > (points[b] || 0) ? g : b), GEMS[0]);
  return [colour, points[colour] || 0];
}

export function icon(name, className = "duel-icon") {
  return svg("0 0 24 24", ICONS[name], { class: `${className} icon-${name}` });
}

/** "2 white, 1 blue and 1 pearl". */
export function duelCostWords(cost) {
  const parts = COST_ORDER.filter((g) => cost[g]).map((g) => tokenWords(g, cost[g]));
  return parts.length ? listWords(parts) : t("nothing");
}

/** "level-2 blue card" / "level-1 wild card" / "level-3 card without bonus". */
export function duelCardName(card) {
  if (card.color === "none") return t("level-{level} card without bonus", { level: card.level });
  return t("level-{level} {colour} card", { level: card.level, colour: colourWord(card.color) });
}

/** "2 points": a card's or royal card's points. */
function points(n) {
  return tn("{n} point", "{n} points", n);
}

/** What the card gives, in words: "2 points, 1 crown, a double bonus, another turn". */
export function duelCardGains(card) {
  const parts = [];
  if (card.points) parts.push(points(card.points));
  if (card.crowns) parts.push(tn("{n} crown", "{n} crowns", card.crowns));
  if (card.bonus === 2) parts.push(t("a double bonus"));
  if (card.ability && card.ability !== "none") parts.push(ABILITY_WORDS[card.ability]);
  return parts;
}

export function duelCardLabel(card) {
  const args = { level: card.level, gem: card.color === "wild" ? colourWord("wild") : gemLabel(card.color), cost: duelCostWords(card.cost) };
  const gains = duelCardGains(card);
  // Translators: {gains} lists what the card gives: "2 points, 1 crown, another turn".
  if (gains.length) {
    args.gains = formatList(gains, { units: true });
    return card.color === "none" ? t("Level {level} card without bonus, {gains}, costs {cost}", args) : t("Level {level} {gem} card, {gains}, costs {cost}", args);
  }
  return card.color === "none" ? t("Level {level} card without bonus, costs {cost}", args) : t("Level {level} {gem} card, costs {cost}", args);
}

/**
 * A Duel card's face; with `onClick` a button. `wildColor`: the colour a placed
 * wild card took (its head shows that colour's gem on the wild gem).
 */
export function duelCardFace(id, card, { onClick, extra = [], size = "", label, attrs = {}, wildColor = null } = {}) {
  if (!card) return cardSlotEmpty();
  const bonusGems = card.color === "none" ? [] : Array.from({ length: card.bonus || 1 }, () => gemIcon(wildColor || card.color, "card-gem"));
  const classes = ["card", "duel-card", `card-${card.color}`, wildColor && `card-${wildColor}`, wildColor && "wild-placed", `level-${card.level}`, size && `card-${size}`, ...extra];
  return cardShell(id, card, { classes, text: label || duelCardLabel(card), onClick, attrs },
    h(
      "span",
      { class: "card-head" },
      h("span", { class: "card-points" }, card.points ? formatNumber(card.points) : ""),
      card.crowns ? h("span", { class: "card-crowns", title: tn("{n} crown", "{n} crowns", card.crowns) }, Array.from({ length: card.crowns }, () => icon("crown", "crown-icon"))) : null,
      h("span", { class: ["card-bonus", card.bonus === 2 && "double"] }, bonusGems),
    ),
    card.color === "none" ? null : gemIcon(card.color === "wild" ? "wild" : card.color, "card-art"),
    card.ability && card.ability !== "none" ? h("span", { class: ["ability", `ability-${card.ability}`], "aria-hidden": "true", title: ABILITY_HELP[card.ability] }, icon(card.ability, "ability-icon")) : null,
    h("span", { class: "card-level", "aria-hidden": "true" }, ROMAN[card.level]),
    h(
      "span",
      { class: "card-cost" },
      COST_ORDER.filter((g) => card.cost[g]).map((g) => costPip(g, card.cost[g])),
    ),
  );
}

export function duelCardBack(level, opts = {}) {
  return cardBack(level, { ...opts, extra: [...(opts.extra || []), "duel-back"] });
}

export function royalLabel(royal) {
  if (royal.ability && royal.ability !== "none") {
    return tn("Royal card, {n} point, {ability}", "Royal card, {n} points, {ability}", royal.points, { ability: ABILITY_WORDS[royal.ability] });
  }
  return tn("Royal card, {n} point", "Royal card, {n} points", royal.points);
}

/** A royal card's tooltip: what it gives and how one is won. */
export function royalHelp(royal) {
  const ability = royal.ability && royal.ability !== "none" ? ABILITY_HELP[royal.ability] || "" : "";
  const args = { label: royalLabel(royal), ability };
  return ability
    ? t("{label}. {ability} Royal cards join a player who reaches a crown threshold.", args)
    : t("{label}. Royal cards join a player who reaches a crown threshold.", args);
}

/** A royal card: its points, a crown, and its ability. */
export function royalTile(id, royal, { onClick, extra = [], size = "" } = {}) {
  const tag = onClick ? "button" : "div";
  const text = royalLabel(royal);
  return h(
    tag,
    {
      class: ["royal", size && `royal-${size}`, ...extra],
      dataset: { royal: id },
      ...pieceAttrs(text, onClick),
      title: royalHelp(royal),
    },
    h("span", { class: "royal-points" }, formatNumber(royal.points)),
    icon("crown", "royal-crown"),
    royal.ability && royal.ability !== "none" ? h("span", { class: ["ability", `ability-${royal.ability}`] }, icon(royal.ability, "ability-icon")) : null,
  );
}

/** `count` privilege scrolls out of 3 (the others drawn as empty places). */
export function privilegeScrolls(count, { total = 3, label } = {}) {
  return h(
    "span",
    { class: "scrolls", role: "img", "aria-label": label || tn("{n} privilege", "{n} privileges", count) },
    Array.from({ length: total }, (_, i) => icon("privilege", ["scroll", i < count ? "scroll-on" : "scroll-off"].join(" "))),
  );
}
