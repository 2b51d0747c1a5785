// The gems: colour order, names, and a drawn symbol for each, so colour is never
// the only cue (white diamond, blue drop, green leaf, red heart, black square,
// gold star; Duel's pearl a ringed circle).

import { h, svg } from "./dom.js";

export const GEMS = ["white", "blue", "green", "red", "black"];
export const TOKENS = [...GEMS, "gold"];
/** Splendor Duel's tokens, in the order the page shows them. */
export const DUEL_TOKENS = [...GEMS, "pearl", "gold"];

export const GEM_NAMES = {
  white: "diamond",
  blue: "sapphire",
  green: "emerald",
  red: "ruby",
  black: "onyx",
  gold: "gold",
  pearl: "pearl",
  wild: "any colour",
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
  if (color === "gold") return "gold (joker)";
  if (color === "wild") return "wild (any colour)";
  return `${color} (${GEM_NAMES[color]})`;
}

/** "3 blue" / "1 gold": a token count in words. */
export function tokenWords(color, n) {
  return `${n} ${color}`;
}

/** A round token with its symbol; `count` shown beside it when given. */
export function tokenChip(color, count, { size = "md", label } = {}) {
  const text = label || (count === undefined ? gemLabel(color) : `${count} ${gemLabel(color)}`);
  return h(
    "span",
    { class: `token token-${color} token-${size}`, role: "img", "aria-label": text, title: text },
    h("span", { class: "token-disc" }, gemIcon(color)),
    count === undefined ? null : h("span", { class: "token-count" }, String(count)),
  );
}

/** A small cost/requirement pip: the colour's symbol on its colour, with a number. */
export function costPip(color, n, shape = "round") {
  return h(
    "span",
    { class: `pip pip-${shape} pip-${color}`, role: "img", "aria-label": `${n} ${gemLabel(color)}` },
    h("span", { class: "pip-num" }, String(n)),
    gemIcon(color, "pip-icon"),
  );
}
