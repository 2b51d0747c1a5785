// The parts a how-to-play page is made of (howto_classic.js, howto_duel.js): sections
// that an address can point at, paragraphs, lists, and figures of the table's own
// drawings with a caption. The words come in already translated (tp("howto", …)).

import { h } from "./dom.js";
import { lang, tp } from "./i18n.js";

/**
 * A section: its h2 (focusable, so an address ending in its id can land on it) and
 * its parts. `id` is what follows `#/howto/{variant}/` in the address.
 */
export function section(id, title, ...parts) {
  return h(
    "section",
    { class: "howto-section", id: `howto-${id}`, "aria-labelledby": `howto-${id}-title`, dataset: { section: id } },
    h("h2", { id: `howto-${id}-title`, tabindex: "-1" }, title),
    ...parts,
  );
}

/** A part of a section with its own h3 (an ability, an action); addressable like a section. */
export function subsection(id, title, ...parts) {
  return h(
    "section",
    { class: "howto-sub", id: `howto-${id}`, "aria-labelledby": `howto-${id}-title`, dataset: { section: id } },
    h("h3", { id: `howto-${id}-title`, tabindex: "-1" }, title),
    ...parts,
  );
}

export function para(text) {
  return h("p", {}, text);
}

/** A list, one item a string (or nodes); `ordered` for steps that come in order. */
export function list(items, { ordered = false } = {}) {
  return h(ordered ? "ol" : "ul", { class: "howto-list" }, items.map((item) => h("li", {}, item)));
}

/**
 * A figure: drawings in a row, then the caption saying what they show. Each drawing
 * keeps its own text alternative (the renderers label every card, token and tile).
 */
export function figure(caption, ...drawings) {
  return h("figure", { class: "howto-figure" }, h("div", { class: "howto-drawings" }, drawings), h("figcaption", {}, caption));
}

/** A drawing with a short visible name under it (a token's gem, a deck's level). */
export function named(drawing, name) {
  return h("span", { class: "howto-named" }, drawing, h("span", { class: "howto-name", "aria-hidden": "true" }, name));
}

/** Drawings that go together (a card and its gold), kept on one line. */
export function group(...drawings) {
  return h("span", { class: "howto-group" }, drawings);
}

/** "or" between two drawings that are alternatives. */
export function or() {
  return h("span", { class: "howto-or" }, tp("howto", "or"));
}

/** Figures side by side where there is room (two boards to compare). */
export function figures(...items) {
  return h("div", { class: "howto-figures" }, items);
}

/** An arrow between drawings (decorative: the caption says what happens). */
export function arrow() {
  return h("span", { class: "howto-arrow", "aria-hidden": "true" }, "→");
}

/** "The words of the game": a term and what it means, each term in its rulebook's words. */
export function glossary(title, entries) {
  return section(
    "words",
    title,
    h(
      "dl",
      { class: "howto-words" },
      entries.map(([term, meaning]) => [h("dt", {}, capital(term)), h("dd", {}, meaning)]),
    ),
  );
}

/** A term with its first letter capitalised for a heading (no change in scripts without case). */
export function capital(text) {
  return text ? text.charAt(0).toLocaleUpperCase(lang) + text.slice(1) : text;
}
