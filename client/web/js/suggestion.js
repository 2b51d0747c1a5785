// The replay's "Bot's move" (docs/analysis.md): the analysis's `best` action of the
// turn on screen, drawn on the table and written in words. An action is drawn as the
// last move is (lastmove.js): its pieces (the bank's tokens, a card, a deck, the Duel
// board's cells, a noble or royal card) get `data-suggested`, ringed in their own
// colour; and written with the log's words for cards and tokens (words.js,
// duel_words.js), never the game's internal ids.

import { cardName } from "./cards.js";
import { duelCardName } from "./duel_cards.js";
import { tokenWords } from "./gems.js";
import { t, tn } from "./i18n.js";
import { pointsWords, tokensWords } from "./words.js";

/** A selector's attribute value, quoted. */
function q(value) {
  return JSON.stringify(String(value));
}

const playerSel = (seat) => `[data-player=${q(seat)}]`;
const cellSel = ([r, c]) => `.cell[data-row=${q(r)}][data-col=${q(c)}]`;
const chipSel = (seat, colour) => `${playerSel(seat)} .gem-col-${colour} > .token`;
// A card on the board (its slot) or in a reserve.
const cardSel = (id) => `.slot[data-card=${q(id)}], .reserved-item [data-card=${q(id)}]`;

/** {"red": 2, "pearl": 1} from ["red", "red", "pearl"]. */
function countTokens(tokens) {
  const out = {};
  for (const kind of tokens) out[kind] = (out[kind] || 0) + 1;
  return out;
}

/** The tokens on the Duel board's `cells` in `view`. */
function tokensOn(view, cells) {
  return countTokens((cells || []).map(([r, c]) => (view.board && view.board[r] ? view.board[r][c] : null)).filter(Boolean));
}

function reservedBy(view, seat, card) {
  const p = (view.players || []).find((x) => x.seat === seat);
  return !!p && (p.reserved || []).some((r) => r.card === card);
}

/**
 * The selectors of the pieces `action` would use on the table of `view` (the
 * position the action was chosen at), `seat` the player it is suggested to.
 */
export function suggestionMarks(action, view, seat) {
  if (!action || !view) return [];
  const other = (view.players || []).map((p) => p.seat).find((s) => s !== seat);
  switch (action.kind) {
    case "take_three":
      return (action.colors || []).map((c) => `[data-bank=${q(c)}]`);
    case "take_two":
      return [`[data-bank=${q(action.color)}]`];
    case "reserve": {
      const marks = action.card ? [cardSel(action.card)] : [`[data-deck=${q(action.level)}]`];
      if (action.gold_cell) marks.push(cellSel(action.gold_cell));
      else marks.push(`[data-bank="gold"]`);
      return marks;
    }
    case "buy":
      return [cardSel(action.card)];
    case "return_tokens":
    case "discard_tokens":
      return Object.keys(action.tokens || {}).map((c) => chipSel(seat, c));
    case "choose_noble":
      return [`[data-noble=${q(action.noble)}]`];
    case "take_tokens":
    case "use_privileges":
      return (action.cells || []).map(cellSel);
    case "take_bonus_token":
      return [cellSel(action.cell)];
    case "replenish":
      return ["#bag"];
    case "steal_token":
      return other === undefined ? [] : [chipSel(other, action.color)];
    case "choose_royal":
      return [`[data-royal=${q(action.royal)}]`];
    default:
      return [];
  }
}

/** A card as the log names it: "a level-2 blue card, 1 point" (classic), "a level-1
 * blue card" (Duel), else "a level-2 card". */
function aCard(catalog, variant, id, level) {
  const card = catalog && catalog.cards && id ? catalog.cards[id] : null;
  if (!card) return t("a level-{level} card", { level: level || "?" });
  return t("a {card}", { card: variant === "duel" ? duelCardName(card) : cardName(card) });
}

/**
 * `action` in the page's words, as a phrase after "the bot would play:" ("take 1
 * white, 1 blue and 1 red", "reserve a level-2 blue card, 1 point and take 1 gold").
 */
export function suggestionWords(action, view, catalog, variant, seat) {
  if (!action) return t("nothing");
  const card = (id, level) => aCard(catalog, variant, id, level);
  const gold = !!view && !!view.bank && (view.bank.gold || 0) > 0;
  switch (action.kind) {
    case "take_three":
      return t("take {tokens}", { tokens: tokensWords(Object.fromEntries((action.colors || []).map((c) => [c, 1]))) });
    case "take_two":
      return t("take {tokens}", { tokens: tokensWords({ [action.color]: 2 }) });
    case "reserve": {
      const args = { card: card(action.card, action.level), level: action.level };
      if (variant === "duel") return action.card ? t("take a gold and reserve {card} from the pyramid", args) : t("take a gold and reserve {card} from the deck", { card: t("a level-{level} card", args) });
      if (action.card) return gold ? t("reserve {card} and take 1 gold", args) : t("reserve {card}", args);
      return gold ? t("reserve a level-{level} card from the deck and take 1 gold", args) : t("reserve a level-{level} card from the deck", args);
    }
    case "buy": {
      const args = { card: card(action.card) };
      return view && reservedBy(view, seat, action.card) ? t("buy {card} from their reserve", args) : t("buy {card}", args);
    }
    case "pass":
      return t("pass");
    case "return_tokens":
      return t("return {tokens}", { tokens: tokensWords(action.tokens) });
    case "discard_tokens":
      return t("put {tokens} back into the bag", { tokens: tokensWords(action.tokens) });
    case "choose_noble": {
      const noble = catalog && catalog.nobles ? catalog.nobles[action.noble] : null;
      return noble ? t("take the noble worth {points}", { points: pointsWords(noble.points) }) : t("take a noble");
    }
    case "take_tokens":
      return t("take {tokens} from the board", { tokens: tokensWords(view ? tokensOn(view, action.cells) : {}) });
    case "use_privileges": {
      const n = (action.cells || []).length;
      return tn("use {n} privilege to take {tokens}", "use {n} privileges to take {tokens}", n, { tokens: tokensWords(view ? tokensOn(view, action.cells) : {}) });
    }
    case "replenish":
      return t("replenish the board");
    case "take_bonus_token":
      return t("take {tokens} from the board with the card's ability", { tokens: tokensWords(view ? tokensOn(view, [action.cell]) : {}) });
    case "steal_token":
      return t("steal {token}", { token: tokenWords(action.color, 1) });
    case "choose_royal": {
      const royal = catalog && catalog.royals ? catalog.royals[action.royal] : null;
      return royal ? t("take the royal card worth {points}", { points: pointsWords(royal.points) }) : t("take a royal card");
    }
    default:
      return String(action.kind || "").replace(/_/g, " ");
  }
}

/** Put `data-suggested` on the pieces `marks` name under `root` (and take it off the others). */
export function markSuggestion(root, marks) {
  const keep = new Set();
  for (const sel of marks) for (const el of root.querySelectorAll(sel)) keep.add(el);
  for (const el of root.querySelectorAll("[data-suggested]")) if (!keep.has(el)) el.removeAttribute("data-suggested");
  for (const el of keep) el.setAttribute("data-suggested", "");
}
