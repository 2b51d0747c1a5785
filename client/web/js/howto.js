// How to play (`#/howto/{variant}`, `#/howto/{variant}/{section}`): each game's rules
// in plain words, illustrated with the table's own drawings (howto_classic.js,
// howto_duel.js). An address with a section lands on it: its heading takes focus.
//
// The links to it live here too: the lobby's panel, the waiting room's and the `?`
// dialog's link, and a Duel ability's "What's this?". Those shown beside a game open
// in a new tab, so the table (its seat, its clock, its presence) stays where it is.

import { h, mount } from "./dom.js";
import { tp } from "./i18n.js";
import { classicContents, classicHowto } from "./howto_classic.js";
import { abilityName, duelContents, duelHowto } from "./howto_duel.js";
import { variantName } from "./words.js";

export const HOWTO_VARIANTS = ["classic", "duel"];

const PAGES = {
  classic: { contents: classicContents, body: classicHowto },
  duel: { contents: duelContents, body: duelHowto },
};

export function howtoTitle(variant) {
  return variant === "duel" ? tp("howto", "How to play Splendor Duel") : tp("howto", "How to play Splendor");
}

/** `#/howto/duel`, or `#/howto/duel/line` for a section. */
export function howtoHref(variant, section = null) {
  // No template inside a template: Babel's extractor would lose the messages after it.
  const path = section ? `${variant}/${section}` : variant;
  return `#/howto/${path}`;
}

function newTabWords() {
  return h("span", { class: "sr-only" }, " ", tp("howto", "(opens in a new tab)"));
}

/**
 * A link to a game's how-to-play: `newTab` beside a game in progress, `short` where
 * the game is named already ("How to play" rather than "How to play Splendor Duel").
 */
export function howtoLink(variant, { section = null, newTab = false, short = false, className = null } = {}) {
  return h(
    "a",
    {
      href: howtoHref(variant, section),
      class: className,
      target: newTab ? "_blank" : null,
      rel: newTab ? "noopener" : null,
      dataset: { howto: variant, section },
    },
    short ? tp("howto", "How to play") : howtoTitle(variant),
    newTab ? newTabWords() : null,
  );
}

/** "What's this?" beside a Duel ability: its section of the how-to-play, in a new tab (null for no ability). */
export function abilityHelpLink(ability) {
  const name = abilityName(ability);
  if (!name) return null;
  const section = `ability-${ability}`;
  return h(
    "a",
    { class: "whats-this", href: howtoHref("duel", section), target: "_blank", rel: "noopener", dataset: { howto: "duel", section } },
    tp("howto", "What's this?"),
    h("span", { class: "sr-only" }, " ", tp("howto", "{ability}, in how to play (opens in a new tab)", { ability: name })),
  );
}

/** The lobby's panel: a link to each game's how-to-play. */
export function howtoPanel() {
  return h(
    "nav",
    { class: "panel howto-links", id: "howto-links", "aria-labelledby": "howto-links-title" },
    h("h2", { id: "howto-links-title", class: "panel-title" }, tp("howto", "How to play")),
    h("ul", {}, HOWTO_VARIANTS.map((variant) => h("li", {}, howtoLink(variant)))),
  );
}

export function showHowto(main, variant, section) {
  const page = PAGES[variant] || PAGES.classic;
  mount(
    main,
    h(
      "article",
      { class: "howto", id: "howto", dataset: { variant }, "aria-labelledby": "howto-title" },
      h(
        "header",
        { class: "howto-head" },
        h("h1", { id: "howto-title" }, howtoTitle(variant)),
        h(
          "nav",
          { class: "segmented variant-tabs", "aria-label": tp("howto", "Game") },
          HOWTO_VARIANTS.map((v) =>
            h("a", { class: ["segment", v === variant && "checked"], href: howtoHref(v), "aria-current": v === variant ? "page" : null }, variantName(v)),
          ),
        ),
      ),
      h(
        "nav",
        { class: "howto-contents", "aria-labelledby": "howto-contents-title" },
        h("h2", { id: "howto-contents-title" }, tp("howto", "Contents")),
        h("ol", {}, page.contents().map(([id, title]) => h("li", {}, h("a", { href: howtoHref(variant, id) }, title)))),
      ),
      page.body(),
    ),
  );
  const target = section ? main.querySelector(`[data-section="${CSS.escape(section)}"]`) : null;
  if (target) {
    target.querySelector("h2, h3").focus({ preventScroll: true });
    target.scrollIntoView({ block: "start" });
  } else {
    window.scrollTo(0, 0);
  }
}
