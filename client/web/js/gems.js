// The gems: colour order, names, and a drawn symbol for each, so colour is never
// the only cue (white diamond, blue drop, green leaf, red heart, black square,
// gold star; Duel's pearl a ringed circle).

import { h, svg } from "./dom.js";
import { formatNumber, lang, t, tnp, tp } from "./i18n.js";

export const GEMS = ["white", "blue", "green", "red", "black"];
export const TOKENS = [...GEMS, "gold"];
/** Splendor Duel's tokens, in the order the page shows them. */
export const DUEL_TOKENS = [...GEMS, "pearl", "gold"];

export const GEM_NAMES = {
  white: tp("gem", "diamond"),
  blue: tp("gem", "sapphire"),
  green: tp("gem", "emerald"),
  red: tp("gem", "ruby"),
  black: tp("gem", "onyx"),
  gold: tp("gem", "gold"),
  pearl: tp("gem", "pearl"),
  wild: tp("gem", "any colour"),
};

/** The word a token or a card is named by: its colour ("red", "gold", "pearl"). */
const COLOUR_WORDS = {
  white: tp("token", "white"),
  blue: tp("token", "blue"),
  green: tp("token", "green"),
  red: tp("token", "red"),
  black: tp("token", "black"),
  gold: tp("token", "gold"),
  pearl: tp("token", "pearl"),
  wild: tp("token", "wild"),
};

/** "red": a colour (a kind of token, a card's colour) in words; an unknown one as given. */
export function colourWord(color) {
  return COLOUR_WORDS[color] || color;
}

/** "Red": a colour's word at the start of a sentence or a label. */
export function colourTitle(color) {
  const word = colourWord(color);
  return `${word.charAt(0).toLocaleUpperCase(lang)}${word.slice(1)}`;
}

const COUNTS = {
  white: (n) => tnp("token", "{n} white", "{n} white", n),
  blue: (n) => tnp("token", "{n} blue", "{n} blue", n),
  green: (n) => tnp("token", "{n} green", "{n} green", n),
  red: (n) => tnp("token", "{n} red", "{n} red", n),
  black: (n) => tnp("token", "{n} black", "{n} black", n),
  gold: (n) => tnp("token", "{n} gold", "{n} gold", n),
  pearl: (n) => tnp("token", "{n} pearl", "{n} pearl", n),
};

const SYMBOLS = {
  white: '<path d="M12 2.5 20.5 9 12 21.5 3.5 9Z"/><path class="facet" d="M3.5 9h17M8 9l4 12.5L16 9M7.5 3.5 8 9l4-6.5L16 9l.5-5.5"/>',
  blue: '<path d="M12 2.5C12 2.5 5 10.5 5 15a7 7 0 0 0 14 0c0-4.5-7-12.5-7-12.5Z"/><path class="facet" d="M9 15.5a3 3 0 0 0 3 3"/>',
  green: '<path d="M4.5 19.5C4.5 9.5 10.5 4 20 4c0 9.5-5.5 15.5-15.5 15.5Z"/><path class="facet" d="M4.5 19.5 14.5 9.5"/>',
  red: '<path d="M12 20.5 3.8 12.6A4.9 4.9 0 0 1 12 6.7a4.9 4.9 0 0 1 8.2 5.9Z"/>',
  black: '<rect x="4.5" y="4.5" width="15" height="15" rx="2.2"/><path class="facet" d="M4.5 4.5 9 9h6l4.5-4.5M9 9v6h6V9M9 15l-4.5 4.5M15 15l4.5 4.5"/>',
  gold: '<path d="M12 2.8l2.8 5.9 6.4.8-4.7 4.4 1.2 6.4L12 17.2l-5.7 3.1 1.2-6.4-4.7-4.4 6.4-.8Z"/>',
  pearl: '<circle cx="12" cy="12" r="8.2"/><circle class="facet" cx="12" cy="12" r="5.4"/><circle class="shine" cx="9.2" cy="9" r="2.1"/>',
};

// Not gem colours but card kinds of Splendor Duel: a wild card's many-coloured gem.
SYMBOLS.wild =
  '<path d="M12 2.5 20.2 7.2v9.6L12 21.5l-8.2-4.7V7.2Z"/><path class="facet" d="M12 2.5v19M3.8 7.2l16.4 9.6M20.2 7.2 3.8 16.8"/>';

/** The symbol of a gem colour, as an inline SVG (decorative: callers label it). */
export function gemIcon(color, className = "gem-icon") {
  return svg("0 0 24 24", SYMBOLS[color] || SYMBOLS.pearl, { class: `${className} sym-${color}` });
}

/** "blue (sapphire)": the words a screen reader hears for a colour. */
export function gemLabel(color) {
  if (color === "gold") return t("gold (joker)");
  if (color === "wild") return t("wild (any colour)");
  // Translators: a token's colour and its gem, e.g. "blue (sapphire)".
  return t("{colour} ({gem})", { colour: colourWord(color), gem: GEM_NAMES[color] || color });
}

/** "3 blue" / "1 gold": a token count in words. */
export function tokenWords(color, n) {
  return COUNTS[color] ? COUNTS[color](n) : `${n} ${colourWord(color)}`;
}

/** "3 blue (sapphire)": a count of a colour as a screen reader hears it. */
export function gemCount(color, n) {
  // Translators: a number of tokens and their colour, e.g. "3 blue (sapphire)".
  return t("{count} {gem}", { count: n, gem: gemLabel(color) });
}

/** A round token with its symbol; `count` shown beside it when given. */
export function tokenChip(color, count, { size = "md", label } = {}) {
  const text = label || (count === undefined ? gemLabel(color) : gemCount(color, count));
  return h(
    "span",
    { class: `token token-${color} token-${size}`, role: "img", "aria-label": text, title: text },
    h("span", { class: "token-disc" }, gemIcon(color)),
    count === undefined ? null : h("span", { class: "token-count" }, formatNumber(count)),
  );
}

/** A small cost/requirement pip: the colour's symbol on its colour, with a number. */
export function costPip(color, n, shape = "round") {
  return h(
    "span",
    { class: `pip pip-${shape} pip-${color}`, role: "img", "aria-label": gemCount(color, n) },
    h("span", { class: "pip-num" }, formatNumber(n)),
    gemIcon(color, "pip-icon"),
  );
}
