// Refusals in words: why a control is disabled, said in a sentence. What is allowed
// always comes from the view's `legal` list; these functions only *explain* a
// refusal `legal` already made, from the view (what the bank or the player holds)
// and the rules' numbers the catalog carries (`catalog.rules`, read on the server
// from the rules' own constants), so no rule is written here a second time.

import { h, listWords } from "./dom.js";
import { colourTitle, colourWord } from "./gems.js";
import { t, tn } from "./i18n.js";

/** The rules' numbers of a catalog (GET /api/catalog/{variant}'s "rules"). */
export function ruleNumbers(catalog) {
  return (catalog && catalog.rules) || {};
}

/** "Take two red needs 4 red in the bank, there are 3." */
export function takeTwoWhy(colour, inBank, catalog) {
  const needed = ruleNumbers(catalog).take_two_minimum;
  const args = { colour: colourWord(colour), needed };
  if (!needed) return t("You can't take two {colour} now.", args);
  return tn("Take two {colour} needs {needed} {colour} in the bank, there is {n}.", "Take two {colour} needs {needed} {colour} in the bank, there are {n}.", inBank, args);
}

/** "You already hold 3 reserved cards, the most allowed." (or null when that isn't why). */
export function reserveLimitWhy(player, catalog) {
  const most = ruleNumbers(catalog).max_reserved;
  if (!player || !most || player.reserved.length < most) return null;
  return tn("You already hold {n} reserved card, the most allowed.", "You already hold {n} reserved cards, the most allowed.", player.reserved.length);
}

/**
 * What a player lacks to pay `cost`, per kind of token: the cost less the player's
 * bonus of that colour (pearls have none) and tokens. {missing: {kind: n}, total, gold}.
 */
export function shortfall(cost, player) {
  const missing = {};
  let total = 0;
  for (const [kind, n] of Object.entries(cost || {})) {
    const have = ((player.bonuses || {})[kind] || 0) + ((player.tokens || {})[kind] || 0);
    if (n > have) {
      missing[kind] = n - have;
      total += n - have;
    }
  }
  return { missing, total, gold: (player.tokens || {}).gold || 0 };
}

/** "You need 2 more red and 1 more black; your 1 gold makes up 1 of them." (null when nothing is missing beyond gold). */
export function cantAffordWhy(cost, player) {
  const { missing, total, gold } = shortfall(cost, player);
  if (total <= gold) return null;
  const parts = Object.entries(missing).map(([kind, n]) => t("{n} more {colour}", { n, colour: colourWord(kind) }));
  const args = { missing: listWords(parts) };
  if (!gold) return t("You need {missing}.", args);
  return tn("You need {missing}; your {n} gold makes up {n} of them.", "You need {missing}; your {n} gold make up {n} of them.", gold, args);
}

/** Why a bank gem (classic) can't be picked while the player may take tokens. (A gem
 * that can't join the picked ones stays enabled: clicking it starts a new pick.) */
export function bankGemWhy(colour, inBank) {
  if (!inBank) return t("No {colour} left in the bank.", { colour: colourWord(colour) });
  return t("{Colour} can't be taken now.", { Colour: colourTitle(colour) });
}

/**
 * The line under the controls that says why things are disabled: one sentence per
 * reason, `id` for the aria-describedby of the controls it explains.
 */
export function whyLine(id, sentences) {
  const unique = [...new Set(sentences.filter(Boolean))];
  return h("p", { class: ["why", !unique.length && "why-empty"], id, "aria-live": "polite" }, unique.join(" "));
}

/** Say why `el` is disabled: a tooltip, and the line `lineId` read out with it. */
export function explain(el, why, lineId) {
  if (why) {
    el.title = why;
    if (lineId) el.setAttribute("aria-describedby", lineId);
  } else {
    el.removeAttribute("title");
    el.removeAttribute("aria-describedby");
  }
  return el;
}
