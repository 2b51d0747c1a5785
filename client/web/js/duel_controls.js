// Acting in a Splendor Duel by clicking: cells of the token board (a line of up
// to three to take, cells for privileges, a gold to reserve with, a token for a
// card's ability), pyramid cards and decks, reserved cards, and the dialogs for
// stealing, choosing a royal and discarding. As in controls.js nothing is
// re-implemented: a choice is matched against the view's `legal` list.
//
// `legal` can be long (a use of 3 privileges on a full board lists ~1,800 sets
// of cells), so it is indexed once per view: by kind, and for the cell actions
// by a key of the sorted cells, with the keys of every part of a listed set so a
// half-made selection can be checked at once.

import { actionMessage, focusAfterStep, givingBackCount, isMyTurn, pendingDialog, problemWords, sameTokens, showDialog, steppedPick, tokenSteppers } from "./acting.js";
import { h } from "./dom.js";
import { ABILITY_HELP, ABILITY_WORDS, crownsHelp, duelCardFace, duelCardName, duelCostWords, royalTile } from "./duel_cards.js";
import { DUEL_TOKENS, colourWord, gemLabel, tokenChip } from "./gems.js";
import { formatList, t, tn } from "./i18n.js";
import { abilityHelpLink } from "./howto.js";
import { cantAffordWhy, reserveLimitWhy, whyLine } from "./reasons.js";
import { tokensWords } from "./words.js";

const SIZE = 5;

export function cellKey(cells) {
  return cells
    .map(([r, c]) => r * SIZE + c)
    .sort((a, b) => a - b)
    .join(",");
}

function sameCell(a, b) {
  return !!a && !!b && a[0] === b[0] && a[1] === b[1];
}

/** Every non-empty subset of `cells` (at most 3 cells in a take, 3 privileges). */
function subsets(cells) {
  const out = [];
  for (let mask = 1; mask < 1 << cells.length; mask += 1) out.push(cells.filter((_, i) => mask & (1 << i)));
  return out;
}

/** `legal` indexed for the page: built once per view, the cell indexes on first use. */
class LegalIndex {
  constructor(legal) {
    this.byKind = new Map();
    for (const a of legal) {
      if (!this.byKind.has(a.kind)) this.byKind.set(a.kind, []);
      this.byKind.get(a.kind).push(a);
    }
    this.cellIndexes = new Map();
    this.goldKeys = null;
  }

  of(kind) {
    return this.byKind.get(kind) || [];
  }

  has(kind) {
    return this.byKind.has(kind);
  }

  /** The keys of the gold cells a listed reserve may take. */
  golds() {
    if (!this.goldKeys) this.goldKeys = new Set(this.of("reserve").map((a) => cellKey([a.gold_cell])));
    return this.goldKeys;
  }

  /** {exact: key -> action, parts: Set of keys of every subset} for take_tokens / use_privileges. */
  cells(kind) {
    if (!this.cellIndexes.has(kind)) {
      const exact = new Map();
      const parts = new Set();
      for (const a of this.of(kind)) {
        exact.set(cellKey(a.cells), a);
        for (const s of subsets(a.cells)) parts.add(cellKey(s));
      }
      this.cellIndexes.set(kind, { exact, parts });
    }
    return this.cellIndexes.get(kind);
  }
}

function emptySelection() {
  return { mode: "take", cells: [], gold: null, card: null, deck: null, reserved: null };
}

const PHASE_DOING = {
  main: (who) => t("{who} is playing…", { who }),
  replenish: (who) => t("{who} is replenishing the board…", { who }),
  take_bonus_token: (who) => t("{who} is taking a token with a card's ability…", { who }),
  steal_token: (who) => t("{who} is stealing a token…", { who }),
  choose_royal: (who) => t("{who} is choosing a royal card…", { who }),
  discard_tokens: (who) => t("{who} is putting tokens back into the bag…", { who }),
};

export class DuelControls {
  /** `away(seat)`: whether a seat's person has no page open (presence), to say so
   * rather than "is playing" while it is their move. */
  constructor({ send, render, catalog, names, away = () => false }) {
    this.send = send;
    this.render = render;
    this.catalog = catalog;
    this.names = names;
    this.away = away;
    this.view = null;
    this.index = new LegalIndex([]);
    this.selection = emptySelection();
    this.busy = false;
    this.message = null;
    this.discardPick = {};
    this.dialogDismissed = null;
    this.dialogs = {
      steal_token: this.makeDialog("steal-dialog", t("Steal a token")),
      choose_royal: this.makeDialog("royal-dialog", t("Choose a royal card")),
      discard_tokens: this.makeDialog("discard-dialog", t("Put tokens back into the bag")),
    };
  }

  destroy() {
    for (const d of Object.values(this.dialogs)) d.remove();
  }

  makeDialog(id, title) {
    return pendingDialog(id, title, (dialog) => this.dismiss(dialog));
  }

  dismiss(dialog) {
    this.dialogDismissed = this.view && this.view.version;
    dialog.close();
    this.render();
  }

  // ------------------------------------------------------------ state

  get phase() {
    return this.view && this.view.turn ? this.view.turn.phase : null;
  }

  get myTurn() {
    return isMyTurn(this.view);
  }

  get me() {
    return this.view ? this.view.players.find((p) => p.seat === this.view.you) : null;
  }

  get opponent() {
    return this.view ? this.view.players.find((p) => p.seat !== this.view.you) : null;
  }

  get canAct() {
    return this.myTurn && !this.busy;
  }

  update(view) {
    const changed = !this.view || this.view.version !== view.version;
    this.view = view;
    if (changed) {
      this.index = new LegalIndex(view.legal || []);
      this.selection = emptySelection();
      this.discardPick = {};
    }
    this.syncDialogs();
  }

  tokenAt(r, c) {
    return (this.view.board[r] && this.view.board[r][c]) || null;
  }

  // ------------------------------------------------------------ what may be clicked

  cellKind() {
    return this.selection.mode === "privilege" ? "use_privileges" : "take_tokens";
  }

  cellState(r, c) {
    const sel = this.selection;
    const token = this.tokenAt(r, c);
    const selected = sel.cells.some((x) => sameCell(x, [r, c])) || sameCell(sel.gold, [r, c]);
    if (!this.canAct || !token) return { enabled: false, selected };
    const key = cellKey([[r, c]]);
    if (this.phase === "take_bonus_token") {
      const ok = this.index.of("take_bonus_token").some((a) => sameCell(a.cell, [r, c]));
      return { enabled: ok, selected, hint: ok && !sel.cells.length };
    }
    if (this.phase !== "main") return { enabled: false, selected };
    if (token === "gold") {
      if (sel.mode === "privilege") return { enabled: false, selected };
      const ok = this.index.golds().has(key);
      // With a card or deck chosen and no gold yet, the golds to choose from glow.
      return { enabled: ok, selected, hint: ok && !sel.gold && !!(sel.card || sel.deck) };
    }
    const { parts } = this.index.cells(this.cellKind());
    if (selected) return { enabled: true, selected };
    const extends_ = sel.cells.length > 0 && parts.has(cellKey([...sel.cells, [r, c]]));
    return { enabled: extends_ || parts.has(key), selected, hint: extends_ };
  }

  cardState(id) {
    const sel = this.selection;
    // With a gold chosen first, the cards it may reserve glow.
    const hint = this.canAct && !!sel.gold && !sel.card && !sel.deck && this.index.of("reserve").some((a) => a.card === id);
    return { selected: sel.card === id, hint };
  }

  /** Why the token at (r, c) can't be clicked now (asked for disabled cells holding a token). */
  cellWhy(r, c) {
    if (!this.canAct || (this.phase !== "main" && this.phase !== "take_bonus_token")) return this.prompt();
    const sel = this.selection;
    const token = this.tokenAt(r, c);
    if (this.phase === "take_bonus_token") return t("Your card's ability takes a token of its colour: click one of the glowing cells.");
    if (token === "gold") {
      if (sel.mode === "privilege") return t("Privileges never take gold.");
      const why = this.reserveWhy() || t("No card can be reserved now.");
      return t("A gold is taken only to reserve a card. {why}", { why });
    }
    // A gem or pearl that can't extend the pick stays enabled (a click starts a new one).
    return sel.mode === "privilege" ? t("This token can't be taken with your privileges.") : t("This token can't be taken now.");
  }

  /** Why no card can be reserved (null when one can). */
  reserveWhy() {
    if (this.index.has("reserve")) return null;
    return reserveLimitWhy(this.me, this.catalog) || t("No gold on the board to reserve with.");
  }

  deckWhy() {
    if (!this.canAct || this.phase !== "main") return this.prompt();
    if (this.selection.mode === "privilege") return t("Finish or cancel using your privileges first.");
    return this.reserveWhy();
  }

  reservedState(id) {
    return { selected: this.selection.reserved === id };
  }

  deckState(level) {
    const ok = this.canAct && this.phase === "main" && this.selection.mode === "take" && this.index.of("reserve").some((a) => a.level === level);
    return { enabled: ok, selected: this.selection.deck === level, hint: ok && !!this.selection.gold && !this.selection.card && !this.selection.deck };
  }

  // ------------------------------------------------------------ clicks

  onCell(r, c) {
    this.message = null;
    const sel = this.selection;
    const token = this.tokenAt(r, c);
    if (this.phase === "take_bonus_token") {
      this.selection = { ...emptySelection(), cells: sameCell(sel.cells[0], [r, c]) ? [] : [[r, c]] };
    } else if (token === "gold") {
      // A gold keeps the chosen card or deck: gold then card, or card then gold.
      this.selection = { ...emptySelection(), gold: sameCell(sel.gold, [r, c]) ? null : [r, c], card: sel.card, deck: sel.deck };
    } else {
      const { parts } = this.index.cells(this.cellKind());
      let cells = sel.cells.some((x) => sameCell(x, [r, c])) ? sel.cells.filter((x) => !sameCell(x, [r, c])) : [...sel.cells, [r, c]];
      // A cell that can't join the line starts a new one.
      if (cells.length && !parts.has(cellKey(cells))) cells = [[r, c]];
      this.selection = { ...emptySelection(), mode: sel.mode, cells };
    }
    this.render();
  }

  onCard(id) {
    this.message = null;
    const sel = this.selection;
    this.selection = { ...emptySelection(), gold: sel.gold, card: sel.card === id ? null : id };
    this.render();
  }

  onDeck(level) {
    this.message = null;
    const sel = this.selection;
    this.selection = { ...emptySelection(), gold: sel.gold, deck: sel.deck === level ? null : level };
    this.render();
  }

  onReserved(id) {
    this.message = null;
    this.selection = { ...emptySelection(), reserved: this.selection.reserved === id ? null : id };
    this.render();
  }

  setMode(mode) {
    this.message = null;
    this.selection = { ...emptySelection(), mode };
    this.render();
  }

  cancel() {
    this.message = null;
    this.selection = emptySelection();
    this.render();
  }

  async act(action) {
    if (this.busy || !action) return;
    this.busy = true;
    this.message = null;
    this.render();
    try {
      await this.send(action);
      this.selection = emptySelection();
      this.discardPick = {};
    } catch (err) {
      this.message = { kind: "error", text: problemWords(err), code: err.code || "" };
    } finally {
      this.busy = false;
      // The next choice's dialog may have been filled while this move was in flight.
      if (this.view) this.syncDialogs();
      this.render();
    }
  }

  tableUi() {
    return {
      // The board's cells can be picked now (unpickable ones are dimmed).
      acting: this.canAct && (this.phase === "main" || this.phase === "take_bonus_token"),
      affordable: new Set(this.index.of("buy").map((a) => a.card)),
      cellState: (r, c) => this.cellState(r, c),
      cellWhy: (r, c) => this.cellWhy(r, c),
      deckWhy: () => this.deckWhy(),
      whyLine: this.canAct && this.phase === "main" ? "why-board" : "prompt",
      cardState: (id) => this.cardState(id),
      reservedState: (id) => this.reservedState(id),
      deckState: (level) => this.deckState(level),
      onCell: (r, c) => this.onCell(r, c),
      onCard: (id) => this.onCard(id),
      onDeck: (level) => this.onDeck(level),
      onReserved: (id) => this.onReserved(id),
    };
  }

  // ------------------------------------------------------------ action bar

  prompt() {
    const v = this.view;
    if (!v) return "";
    if (v.status === "open") return t("Waiting for the other player to join…");
    if (v.status === "finished") return t("The game is over.");
    // The mover's page is closed: it is not playing (the claim's banner says it left).
    if (!this.myTurn && this.away(v.turn.seat)) return t("Waiting for {who}, who is away…", { who: this.names.of(v.turn.seat) });
    if (!this.myTurn) return (PHASE_DOING[v.turn.phase] || PHASE_DOING.main)(this.names.of(v.turn.seat));
    if (this.busy) return t("Sending your move…");
    switch (this.phase) {
      case "replenish":
        return t("No take, reserve or buy is possible: replenish the board first.");
      case "take_bonus_token": {
        const a = this.index.of("take_bonus_token")[0];
        const color = a ? this.tokenAt(a.cell[0], a.cell[1]) : "";
        return t("Your card's ability: take a {colour} token from the board (the glowing cells).", { colour: colourWord(color) });
      }
      case "steal_token":
        return t("Your card's ability: steal a token from {who}.", { who: this.names.of(this.opponent.seat) });
      case "choose_royal":
        return t("You have reached a crown threshold: choose a royal card.");
      case "discard_tokens":
        return t("You hold more than 10 tokens: put some back into the bag.");
      default:
        if (this.selection.mode === "privilege") return tn("Use privileges: pick up to {n} gem or pearl token anywhere on the board (never gold).", "Use privileges: pick up to {n} gem or pearl tokens anywhere on the board (never gold).", this.me.privileges);
        if (v.turn.extra_turn) return t("Extra turn! Your turn: take up to 3 tokens in a line, reserve a card with a gold, or buy a card.");
        return t("Your turn: take up to 3 tokens in a line, reserve a card with a gold, or buy a card.");
    }
  }

  button(label, action, { primary = false, key, hint, onclick } = {}) {
    const enabled = (!!action || !!onclick) && !this.busy;
    return h(
      "button",
      {
        type: "button",
        class: ["btn", primary && "btn-primary"],
        disabled: !enabled,
        dataset: { key, action: action ? action.kind : "" },
        title: !action && hint ? hint : null,
        "aria-describedby": !action && !onclick && hint ? "why-action" : null,
        onclick: onclick || (() => action && this.act(action)),
      },
      label,
    );
  }

  cancelButton() {
    return h("button", { type: "button", class: "btn btn-quiet", dataset: { key: "cancel" }, onclick: () => this.cancel() }, t("Cancel"));
  }

  tokensAt(cells) {
    const counts = {};
    for (const [r, c] of cells) {
      const t = this.tokenAt(r, c);
      counts[t] = (counts[t] || 0) + 1;
    }
    return counts;
  }

  /** The optional actions: privileges, replenish. */
  optionalRow() {
    const parts = [];
    const sel = this.selection;
    if (this.index.has("use_privileges") && sel.mode !== "privilege") {
      parts.push(this.button(t("Use a privilege ({n})", { n: this.me.privileges }), null, { key: "privileges", onclick: () => this.setMode("privilege") }));
    }
    if (this.index.has("replenish")) {
      parts.push(this.button(t("Replenish the board"), { kind: "replenish" }, { key: "replenish", hint: t("The opponent takes a privilege") }));
      parts.push(h("span", { class: "hint" }, t("(+1 privilege to {who})", { who: this.names.of(this.opponent.seat) })));
    }
    return parts.length ? h("div", { class: "action-row optional-row" }, parts) : null;
  }

  takeRow() {
    const sel = this.selection;
    const privilege = sel.mode === "privilege";
    const kind = privilege ? "use_privileges" : "take_tokens";
    const { exact } = this.index.cells(kind);
    const action = sel.cells.length ? exact.get(cellKey(sel.cells)) || null : null;
    const tokens = this.tokensAt(sel.cells);
    const words = tokensWords(tokens);
    let hint = null;
    if (!sel.cells.length) hint = privilege ? t("Click the tokens to take with your privileges.") : null;
    else if (!action) hint = privilege ? t("These can't be taken with your privileges.") : t("Complete the line: tokens must touch, in one row, column or diagonal.");
    else if (!privilege && (Object.values(tokens).some((n) => n === 3) || tokens.pearl === 2)) hint = t("{who} will take a privilege.", { who: this.names.of(this.opponent.seat) });
    const why = action ? null : hint || t("Click the tokens to take.");
    return [
      h(
        "div",
        { class: "action-row" },
        sel.cells.length ? h("span", { class: "picked-tokens" }, DUEL_TOKENS.filter((c) => tokens[c]).map((c) => tokenChip(c, tokens[c], { size: "sm" }))) : null,
        privilege
          ? this.button(sel.cells.length ? tn("Use {n} privilege: take {tokens}", "Use {n} privileges: take {tokens}", sel.cells.length, { tokens: words }) : t("Use privileges"), action, { primary: true, key: "use-privileges", hint: why })
          : this.button(t("Take {tokens}", { tokens: words }), action, { primary: true, key: "take", hint: why }),
        this.cancelButton(),
      ),
      whyLine("why-action", [hint]),
    ];
  }

  /** The buy buttons of a card: one, or one per card a wild card may go on. */
  buyButtons(cardId) {
    const buys = this.index.of("buy").filter((a) => a.card === cardId);
    if (!buys.length) return [this.button(t("Buy"), null, { primary: true, key: "buy", hint: this.buyWhy(cardId) })];
    if (buys.length === 1 && !buys[0].wild_on) return [this.button(t("Buy"), buys[0], { primary: true, key: "buy" })];
    return [
      h("span", { class: "hint" }, t("Buy it and put it on:")),
      buys.map((a) => {
        const target = this.catalog.cards[a.wild_on];
        const colour = (this.me.wilds || {})[a.wild_on] || (target ? target.color : "");
        return h(
          "button",
          { type: "button", class: "btn btn-primary btn-wild", dataset: { key: `buy-on-${a.wild_on}`, action: "buy" }, disabled: this.busy, onclick: () => this.act(a), "aria-label": t("Buy it on your {card}, as {colour}", { card: target ? duelCardName(target) : a.wild_on, colour: colourWord(colour) }) },
          tokenChip(colour, undefined, { size: "sm" }),
          target ? t("on {colour} (level {level})", { colour: colourWord(colour), level: target.level }) : t("on {colour} ({card})", { colour: colourWord(colour), card: a.wild_on }),
        );
      }),
    ];
  }

  reserveAction({ card = null, level = null }) {
    const options = this.index.of("reserve").filter((a) => (card ? a.card === card : a.level === level));
    if (!options.length) return { action: null, hint: this.reserveWhy() };
    const gold = this.selection.gold;
    if (gold) {
      const a = options.find((o) => sameCell(o.gold_cell, gold));
      return { action: a || null, hint: a ? null : t("That gold can't be used.") };
    }
    const cells = new Set(options.map((o) => cellKey([o.gold_cell])));
    // One gold on the board: nothing to choose.
    if (cells.size === 1) return { action: options[0], hint: null };
    return { action: null, hint: t("Choose which gold to take: click a gold token on the board.") };
  }

  /** Why this card can't be bought (asked when no listed buy names it). */
  buyWhy(id) {
    const card = this.catalog.cards[id];
    const noBonus = card.color === "wild" && !Object.values(this.me.bonuses).some(Boolean);
    if (noBonus) return t("A wild card needs one of your cards with a bonus to go on.");
    return cantAffordWhy(card.cost, this.me) || t("You can't buy it now.");
  }

  /** The chosen card's ability and crowns in words, for the selection line. */
  cardHelp(card) {
    const parts = [];
    if (card.color === "wild") parts.push(ABILITY_HELP.wild);
    else if (card.ability && card.ability !== "none") parts.push(ABILITY_HELP[card.ability]);
    if (card.crowns) parts.push(tn("{n} crown: {help}", "{n} crowns: {help}", card.crowns, { help: crownsHelp(this.catalog) }));
    return parts.join(" ");
  }

  cardRow() {
    const sel = this.selection;
    const id = sel.card || sel.reserved;
    const card = this.catalog.cards[id];
    const reserve = sel.card ? this.reserveAction({ card: id }) : null;
    const canBuy = this.index.of("buy").some((a) => a.card === id);
    const help = this.cardHelp(card);
    return [
      h(
        "div",
        { class: "action-row" },
        duelCardFace(id, card, { size: "xs" }),
        h("span", { class: "chosen" }, t("{card}; costs {cost}", { card: duelCardName(card), cost: duelCostWords(card.cost) })),
        this.buyButtons(id),
        reserve ? this.button(sel.gold ? t("Reserve with this gold") : t("Reserve (+1 gold)"), reserve.action, { key: "reserve", hint: reserve.hint }) : null,
        this.cancelButton(),
      ),
      help ? h("p", { class: "card-help", id: "card-help" }, help, " ", abilityHelpLink(card.color === "wild" ? "wild" : card.ability)) : null,
      whyLine("why-action", [canBuy ? null : this.buyWhy(id), reserve && !reserve.action ? reserve.hint : null]),
    ];
  }

  deckRow() {
    const sel = this.selection;
    const { action, hint } = this.reserveAction({ level: sel.deck });
    return [
      h(
        "div",
        { class: "action-row" },
        h("span", { class: "chosen" }, t("The top card of the level-{level} deck, unseen by the other player.", { level: sel.deck })),
        this.button(t("Reserve blind (+1 gold)"), action, { primary: true, key: "reserve-blind", hint }),
        this.cancelButton(),
      ),
      whyLine("why-action", [action ? null : hint]),
    ];
  }

  goldRow() {
    return h(
      "div",
      { class: "action-row" },
      tokenChip("gold", undefined, { size: "sm" }),
      h("span", { class: "chosen" }, t("This gold: now choose a card of the pyramid or a deck to reserve.")),
      this.cancelButton(),
    );
  }

  mainRows() {
    const sel = this.selection;
    let row;
    if (sel.mode === "privilege" || sel.cells.length) row = this.takeRow();
    else if (sel.card || sel.reserved) row = this.cardRow();
    else if (sel.deck) row = this.deckRow();
    else if (sel.gold) row = this.goldRow();
    else row = h("div", { class: "action-row placeholder" }, h("span", { class: "hint" }, t("Click tokens on the board, a gold to reserve with, or a card.")));
    // Why some tokens of the board or decks can't be clicked (each disabled one points here).
    const cells = [];
    for (let r = 0; r < SIZE; r += 1) for (let c = 0; c < SIZE; c += 1) if (this.tokenAt(r, c) && !this.cellState(r, c).enabled) cells.push(this.cellWhy(r, c));
    for (const level of [1, 2, 3]) if ((this.view.decks || {})[level] && !this.deckState(level).enabled) cells.push(this.deckWhy());
    return [sel.mode === "privilege" ? null : this.optionalRow(), row, whyLine("why-board", cells)].flat();
  }

  actionBar() {
    const bar = h(
      "section",
      { class: ["action-bar", this.myTurn && "my-turn"], "aria-label": t("Your actions"), dataset: { busy: String(this.busy), phase: this.phase || "" } },
      h("p", { class: "prompt", id: "prompt" }, this.prompt()),
    );
    if (this.view && this.myTurn && !this.busy) {
      if (this.phase === "main") {
        bar.append(...this.mainRows().filter(Boolean));
      } else if (this.phase === "replenish") {
        bar.append(h("div", { class: "action-row" }, this.button(t("Replenish the board"), this.index.of("replenish")[0], { primary: true, key: "replenish" })));
      } else if (this.phase === "take_bonus_token") {
        const cell = this.selection.cells[0];
        const action = cell ? this.index.of("take_bonus_token").find((a) => sameCell(a.cell, cell)) : null;
        const why = action ? null : t("Click a glowing token on the board: your card's ability takes one of its colour.");
        bar.append(h("div", { class: "action-row" }, this.button(t("Take this token"), action, { primary: true, key: "take-bonus", hint: why })), whyLine("why-action", [why]));
      } else if (this.dialogs[this.phase]) {
        const dialog = this.dialogs[this.phase];
        bar.append(h("div", { class: "action-row" }, h("button", { type: "button", class: "btn btn-primary", dataset: { key: "reopen" }, onclick: () => showDialog(dialog) }, t("{title}…", { title: dialog.dataset.title }))));
      }
    }
    bar.append(actionMessage(this.message));
    return bar;
  }

  // ------------------------------------------------------------ dialogs

  syncDialogs() {
    for (const [phase, dialog] of Object.entries(this.dialogs)) {
      const want = this.myTurn && this.phase === phase;
      if (want) this.fill(phase);
      if (!want && dialog.open) dialog.close();
      if (want && !dialog.open && this.dialogDismissed !== this.view.version) showDialog(dialog);
    }
  }

  frame(dialog, ...body) {
    dialog.replaceChildren(
      h("h2", { id: `${dialog.id}-title`, class: "dialog-title" }, dialog.dataset.title),
      h(
        "div",
        { class: "dialog-body" },
        body,
        h(
          "div",
          { class: "dialog-actions" },
          h("button", { type: "button", class: "btn btn-quiet", dataset: { key: "look" }, onclick: () => this.dismiss(dialog) }, t("Look at the table")),
          dialog.confirm || null,
        ),
      ),
    );
  }

  choose(dialog, action) {
    dialog.close();
    this.act(action);
  }

  fill(phase) {
    const dialog = this.dialogs[phase];
    dialog.confirm = null;
    if (phase === "steal_token") {
      const opp = this.opponent;
      this.frame(
        dialog,
        h("p", {}, t("Take one gem or pearl token from {who} (never gold).", { who: this.names.of(opp.seat) }), " ", abilityHelpLink("steal_token")),
        h(
          "div",
          { class: "choice-row" },
          this.index.of("steal_token").map((a) =>
            h(
              "button",
              { type: "button", class: "btn btn-choice", dataset: { key: `steal-${a.color}`, color: a.color }, onclick: () => this.choose(dialog, a), "aria-label": t("Steal 1 {gem} (they hold {n})", { gem: gemLabel(a.color), n: opp.tokens[a.color] }) },
              tokenChip(a.color, opp.tokens[a.color], { size: "md" }),
              h("span", {}, colourWord(a.color)),
            ),
          ),
        ),
      );
    } else if (phase === "choose_royal") {
      this.frame(
        dialog,
        h("p", {}, t("A royal card joins you: its points count, and its ability acts at once.")),
        h(
          "div",
          { class: "noble-choices" },
          this.index.of("choose_royal").map((a) => {
            const royal = this.catalog.royals[a.royal];
            return h(
              "div",
              { class: "royal-option" },
              royalTile(a.royal, royal, { onClick: () => this.choose(dialog, a), extra: ["royal-choice"] }),
              h("span", { class: "royal-caption" }, formatList([tn("{n} point", "{n} points", royal.points), royal.ability !== "none" && ABILITY_WORDS[royal.ability]].filter(Boolean), { units: true })),
              abilityHelpLink(royal.ability),
            );
          }),
        ),
      );
    } else if (phase === "discard_tokens") {
      this.fillDiscard(dialog);
    }
  }

  fillDiscard(dialog) {
    const me = this.me;
    const held = DUEL_TOKENS.reduce((n, c) => n + (me.tokens[c] || 0), 0);
    const need = givingBackCount(this.index.of("discard_tokens"));
    const pick = this.discardPick;
    const chosen = DUEL_TOKENS.reduce((n, c) => n + (pick[c] || 0), 0);
    const wanted = Object.fromEntries(DUEL_TOKENS.filter((c) => pick[c]).map((c) => [c, pick[c]]));
    const action = this.index.of("discard_tokens").find((a) => sameTokens(a.tokens, wanted)) || null;
    const step = (color, delta) => {
      this.discardPick = steppedPick(pick, me.tokens, color, delta);
      this.fillDiscard(dialog);
      focusAfterStep(dialog, color, delta, "confirm-discard");
    };
    dialog.confirm = h(
      "button",
      { type: "button", class: "btn btn-primary", dataset: { key: "confirm-discard" }, disabled: !action, onclick: () => this.choose(dialog, action) },
      chosen ? t("Put back {tokens}", { tokens: tokensWords(wanted) }) : t("Put back"),
    );
    this.frame(
      dialog,
      h("p", {}, tn("You hold {n} token: put {need} back into the bag to keep {keep}. Chosen: {chosen} of {need}.", "You hold {n} tokens: put {need} back into the bag to keep {keep}. Chosen: {chosen} of {need}.", held, { need, keep: held - need, chosen })),
      tokenSteppers(DUEL_TOKENS, me.tokens, pick, { chosen, need, verb: "discard", onStep: step }),
    );
  }
}
