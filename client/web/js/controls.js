// Acting by clicking: the token picker, the card and deck choices, the pass
// button, and the dialogs for returning tokens and choosing a noble. Only what
// the view's `legal` list holds can be confirmed: the page never re-implements
// a rule, it matches the user's choice against the server's list.

import { actionMessage, focusAfterStep, givingBackCount, isMyTurn, pendingDialog, problemWords, sameTokens, showDialog, steppedPick, tokenSteppers } from "./acting.js";
import { cardFace, cardName, costWords, nobleTile } from "./cards.js";
import { h } from "./dom.js";
import { GEMS, TOKENS, tokenChip } from "./gems.js";
import { t, tn } from "./i18n.js";
import { deepEqual } from "./patch.js";
import { bankGemWhy, cantAffordWhy, reserveLimitWhy, takeTwoWhy, whyLine } from "./reasons.js";
import { tokensWords } from "./words.js";

function emptySelection() {
  return { tokens: {}, card: null, deck: null, reserved: null };
}

export class Controls {
  /** send(action) -> Promise; render() redraws the page; names: Names. */
  /** `away(seat)`: whether a seat's person has no page open (presence), to say so
   * rather than "is playing" while it is their move. */
  constructor({ send, render, catalog, names, away = () => false }) {
    this.send = send;
    this.render = render;
    this.catalog = catalog;
    this.names = names;
    this.away = away;
    this.view = null;
    this.selection = emptySelection();
    this.busy = false;
    this.message = null; // {kind: "error"|"info", text}
    this.returnPick = {};
    this.dialogDismissed = null; // the version whose dialog the user closed
    this.returnDialog = this.makeDialog("return-dialog", t("Return tokens"));
    this.nobleDialog = this.makeDialog("noble-dialog", t("Choose a noble"));
  }

  destroy() {
    this.returnDialog.remove();
    this.nobleDialog.remove();
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

  get legal() {
    return (this.view && this.view.legal) || [];
  }

  get phase() {
    return this.view && this.view.turn ? this.view.turn.phase : null;
  }

  get myTurn() {
    return isMyTurn(this.view);
  }

  isLegal(action) {
    return this.legal.some((a) => deepEqual(a, action));
  }

  update(view) {
    const changed = !this.view || this.view.version !== view.version;
    this.view = view;
    if (changed) {
      this.selection = emptySelection();
      this.returnPick = {};
    }
    this.syncDialogs();
  }

  // ------------------------------------------------------------ tokens

  /** The take action the picked tokens make, if `legal` holds it. */
  takeAction(tokens = this.selection.tokens) {
    const colors = GEMS.filter((c) => tokens[c]);
    if (colors.length === 1 && tokens[colors[0]] === 2) {
      const action = { kind: "take_two", color: colors[0] };
      return this.isLegal(action) ? action : null;
    }
    if (!colors.length || colors.some((c) => tokens[c] !== 1)) return null;
    return this.legal.find((a) => a.kind === "take_three" && a.colors.length === colors.length && colors.every((c) => a.colors.includes(c))) || null;
  }

  /** Could these picks still grow into (or be) a legal take? */
  takeReachable(tokens) {
    const colors = GEMS.filter((c) => tokens[c]);
    if (!colors.length) return true;
    if (colors.length === 1 && tokens[colors[0]] === 2) return this.isLegal({ kind: "take_two", color: colors[0] });
    if (colors.some((c) => tokens[c] !== 1)) return false;
    return this.legal.some(
      (a) =>
        (a.kind === "take_three" && colors.every((c) => a.colors.includes(c))) ||
        (a.kind === "take_two" && colors.length === 1 && a.color === colors[0]),
    );
  }

  /** The picks after a click on `color`, or {refused: sentence} when the click can't count. */
  nextPick(color) {
    const tokens = { ...this.selection.tokens };
    const picked = tokens[color] || 0;
    const others = GEMS.some((c) => c !== color && tokens[c]);
    if (picked === 0) tokens[color] = 1;
    else if (picked === 1 && !others) tokens[color] = 2;
    else delete tokens[color];
    if (this.takeReachable(tokens)) return tokens;
    // A second click where take_two is not listed: the pick stays, and says why.
    if (picked === 1 && !others) return { refused: takeTwoWhy(color, this.view.bank[color] || 0, this.catalog) };
    return { [color]: 1 };
  }

  /** Why a bank gem can't be picked now (null when it can). */
  tokenWhy(color) {
    if (this.tokenEnabled(color)) return null;
    if (!this.myTurn) return this.prompt();
    if (this.phase !== "main" || this.busy) return this.prompt();
    return bankGemWhy(color, this.view.bank[color] || 0);
  }

  tokenEnabled(color) {
    if (!this.myTurn || this.phase !== "main" || this.busy) return false;
    if (this.selection.tokens[color]) return true;
    return this.takeReachable({ [color]: 1 });
  }

  // ------------------------------------------------------------ clicks

  clearMessage() {
    this.message = null;
  }

  onToken(color) {
    this.clearMessage();
    const tokens = this.nextPick(color);
    if (tokens.refused) this.message = { kind: "info", text: tokens.refused, code: "refused" };
    else this.selection = { ...emptySelection(), tokens };
    this.render();
  }

  onCard(id) {
    this.clearMessage();
    this.selection = this.selection.card === id ? emptySelection() : { ...emptySelection(), card: id };
    this.render();
  }

  onDeck(level) {
    this.clearMessage();
    this.selection = this.selection.deck === level ? emptySelection() : { ...emptySelection(), deck: level };
    this.render();
  }

  onReserved(id) {
    this.clearMessage();
    this.selection = this.selection.reserved === id ? emptySelection() : { ...emptySelection(), reserved: id };
    this.render();
  }

  cancel() {
    this.clearMessage();
    this.selection = emptySelection();
    this.render();
  }

  async act(action) {
    if (this.busy) return;
    this.busy = true;
    this.message = null;
    this.render();
    try {
      await this.send(action);
      this.selection = emptySelection();
      this.returnPick = {};
    } catch (err) {
      this.message = { kind: "error", text: problemWords(err), code: err.code || "" };
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** What renderTable/renderPlayers need to make the table clickable. */
  tableUi() {
    const affordable = new Set(this.legal.filter((a) => a.kind === "buy").map((a) => a.card));
    return {
      selection: this.selection,
      affordable,
      onToken: (c) => this.onToken(c),
      onCard: (id) => this.onCard(id),
      onDeck: (level) => this.onDeck(level),
      onReserved: (id) => this.onReserved(id),
      tokenEnabled: (c) => this.tokenEnabled(c),
      tokenWhy: (c) => this.tokenWhy(c),
      whyLine: this.myTurn && this.phase === "main" && !this.busy ? "why-bank" : "prompt",
    };
  }

  // ------------------------------------------------------------ action bar

  prompt() {
    const v = this.view;
    if (!v) return "";
    if (v.status === "open") return t("Waiting for players to join…");
    if (v.status === "finished") return t("The game is over.");
    const who = this.names.of(v.turn.seat);
    // The mover's page is closed: it is not playing (the claim's banner says it left).
    if (!this.myTurn && this.away(v.turn.seat)) return t("Waiting for {who}, who is away…", { who });
    if (!this.myTurn) {
      if (v.turn.phase === "return_tokens") return t("{who} is returning tokens…", { who });
      if (v.turn.phase === "choose_noble") return t("{who} is choosing a noble…", { who });
      return t("{who} is playing…", { who });
    }
    if (this.busy) return t("Sending your move…");
    if (this.phase === "return_tokens") return t("You hold more than 10 tokens: return some to keep 10.");
    if (this.phase === "choose_noble") return t("Several nobles want to visit you: choose one.");
    if (this.legal.length === 1 && this.legal[0].kind === "pass") return t("No action is possible: you must pass.");
    return t("Your turn: pick tokens from the bank, or choose a card or a deck.");
  }

  /** A button for `action` (disabled without one; `hint` then says why, in its tooltip and the line #why-action). */
  button(label, action, { primary = false, key, hint } = {}) {
    const enabled = !!action && !this.busy;
    return h(
      "button",
      {
        type: "button",
        class: ["btn", primary && "btn-primary"],
        disabled: !enabled,
        dataset: { key, action: action ? action.kind : "" },
        title: !action && hint ? hint : null,
        "aria-describedby": !action && hint ? "why-action" : null,
        onclick: () => action && this.act(action),
      },
      label,
    );
  }

  cancelButton() {
    return h("button", { type: "button", class: "btn btn-quiet", dataset: { key: "cancel" }, onclick: () => this.cancel() }, t("Cancel"));
  }

  selectionRow() {
    const sel = this.selection;
    const picked = GEMS.filter((c) => sel.tokens[c]);
    if (picked.length) {
      const action = this.takeAction();
      const more = this.legal.some((a) => a.kind === "take_three" && a.colors.length > picked.length);
      let hint = action ? null : more ? t("Pick more colours.") : t("This combination can't be taken.");
      let line = hint;
      // One colour picked once: say at once whether a second click could make it two.
      const alone = picked.length === 1 && sel.tokens[picked[0]] === 1 ? picked[0] : null;
      if (!action && alone && !this.isLegal({ kind: "take_two", color: alone })) {
        const why = takeTwoWhy(alone, this.view.bank[alone] || 0, this.catalog);
        hint = more ? t("Pick more colours. {why}", { why }) : why;
        // A second click refused says it in the message line: the line under the
        // take says it once, not a second time.
        const said = this.message && this.message.text === why;
        line = said ? (more ? t("Pick more colours.") : null) : hint;
      }
      return [
        h(
          "div",
          { class: "action-row" },
          h("span", { class: "picked-tokens" }, picked.map((c) => tokenChip(c, sel.tokens[c], { size: "sm" }))),
          this.button(t("Take {tokens}", { tokens: tokensWords(sel.tokens) }), action, { primary: true, key: "take", hint }),
          this.cancelButton(),
        ),
        whyLine("why-action", [line]),
      ];
    }
    const cardId = sel.card || sel.reserved;
    if (cardId) {
      const card = this.catalog.cards[cardId];
      const buy = { kind: "buy", card: cardId };
      const reserve = { kind: "reserve", card: cardId };
      const canBuy = this.isLegal(buy);
      const canReserve = !!sel.card && this.isLegal(reserve);
      const me = this.view.players.find((p) => p.seat === this.view.you);
      const buyWhy = canBuy ? null : cantAffordWhy(card.cost, me) || t("You can't buy it now.");
      const reserveWhy = !sel.card || canReserve ? null : reserveLimitWhy(me, this.catalog) || t("You can't reserve now.");
      return [
        h(
          "div",
          { class: "action-row" },
          cardFace(cardId, card, { size: "xs" }),
          h("span", { class: "chosen" }, t("{card}; costs {cost}", { card: cardName(card), cost: costWords(card.cost) })),
          this.button(t("Buy"), canBuy ? buy : null, { primary: true, key: "buy", hint: buyWhy }),
          sel.card ? this.button(this.view.bank.gold ? t("Reserve (+1 gold)") : t("Reserve"), canReserve ? reserve : null, { key: "reserve", hint: reserveWhy }) : null,
          this.cancelButton(),
        ),
        whyLine("why-action", [buyWhy, reserveWhy]),
      ];
    }
    if (sel.deck) {
      const action = { kind: "reserve", level: sel.deck };
      const ok = this.isLegal(action);
      const me = this.view.players.find((p) => p.seat === this.view.you);
      const why = ok ? null : reserveLimitWhy(me, this.catalog) || t("You can't reserve now.");
      return [
        h(
          "div",
          { class: "action-row" },
          h("span", { class: "chosen" }, t("The top card of the level-{level} deck, unseen by the others.", { level: sel.deck })),
          this.button(this.view.bank.gold ? t("Reserve blind (+1 gold)") : t("Reserve blind"), ok ? action : null, { primary: true, key: "reserve-blind", hint: why }),
          this.cancelButton(),
        ),
        whyLine("why-action", [why]),
      ];
    }
    return null;
  }

  actionBar() {
    const v = this.view;
    const bar = h(
      "section",
      { class: ["action-bar", this.myTurn && "my-turn"], "aria-label": t("Your actions"), dataset: { busy: String(this.busy) } },
      h("p", { class: "prompt", id: "prompt" }, this.prompt()),
    );
    if (v && this.myTurn && !this.busy) {
      if (this.phase === "main") {
        bar.append(...[this.selectionRow() || h("div", { class: "action-row placeholder" }, h("span", { class: "hint" }, t("Nothing chosen yet.")))].flat());
        // Why some gems of the bank can't be picked (each disabled gem points here).
        bar.append(whyLine("why-bank", GEMS.map((c) => this.tokenWhy(c))));
        if (this.isLegal({ kind: "pass" })) bar.append(h("div", { class: "action-row" }, this.button(t("Pass"), { kind: "pass" }, { key: "pass" })));
      } else {
        const dialog = this.phase === "return_tokens" ? this.returnDialog : this.nobleDialog;
        bar.append(
          h(
            "div",
            { class: "action-row" },
            h("button", { type: "button", class: "btn btn-primary", dataset: { key: "reopen" }, onclick: () => showDialog(dialog) }, this.phase === "return_tokens" ? t("Return tokens…") : t("Choose a noble…")),
          ),
        );
      }
    }
    bar.append(actionMessage(this.message));
    return bar;
  }

  // ------------------------------------------------------------ dialogs

  syncDialogs() {
    const wantReturn = this.myTurn && this.phase === "return_tokens";
    const wantNoble = this.myTurn && this.phase === "choose_noble";
    this.fillReturnDialog(wantReturn);
    this.fillNobleDialog(wantNoble);
    for (const [dialog, want] of [
      [this.returnDialog, wantReturn],
      [this.nobleDialog, wantNoble],
    ]) {
      if (!want && dialog.open) dialog.close();
      if (want && !dialog.open && this.dialogDismissed !== this.view.version) showDialog(dialog);
    }
  }

  dialogFrame(dialog, body) {
    const id = dialog.id;
    dialog.replaceChildren(
      h("h2", { id: `${id}-title`, class: "dialog-title" }, dialog.dataset.title),
      body,
    );
  }

  fillReturnDialog(active) {
    if (!active) return;
    const me = this.view.players.find((p) => p.seat === this.view.you);
    const held = TOKENS.reduce((n, c) => n + (me.tokens[c] || 0), 0);
    const need = givingBackCount(this.legal.filter((a) => a.kind === "return_tokens"));
    const pick = this.returnPick;
    const chosen = TOKENS.reduce((n, c) => n + (pick[c] || 0), 0);
    const wanted = Object.fromEntries(TOKENS.filter((c) => pick[c]).map((c) => [c, pick[c]]));
    const action = this.legal.find((a) => a.kind === "return_tokens" && sameTokens(a.tokens, wanted)) || null;
    const step = (color, delta) => {
      this.returnPick = steppedPick(pick, me.tokens, color, delta);
      this.fillReturnDialog(true);
      focusAfterStep(this.returnDialog, color, delta, "confirm-return");
    };
    this.dialogFrame(
      this.returnDialog,
      h(
        "div",
        { class: "dialog-body" },
        h("p", {}, tn("You hold {n} token: return {need} to keep {keep}. Chosen: {chosen} of {need}.", "You hold {n} tokens: return {need} to keep {keep}. Chosen: {chosen} of {need}.", held, { need, keep: held - need, chosen })),
        tokenSteppers(TOKENS, me.tokens, pick, { chosen, need, verb: "return", onStep: step }),
        h(
          "div",
          { class: "dialog-actions" },
          h("button", { type: "button", class: "btn btn-quiet", dataset: { key: "look" }, onclick: () => this.dismiss(this.returnDialog) }, t("Look at the table")),
          h(
            "button",
            { type: "button", class: "btn btn-primary", dataset: { key: "confirm-return" }, disabled: !action || this.busy, onclick: () => { this.returnDialog.close(); this.act(action); } },
            chosen ? t("Return {tokens}", { tokens: tokensWords(wanted) }) : t("Return"),
          ),
        ),
      ),
    );
  }

  fillNobleDialog(active) {
    if (!active) return;
    const choices = this.legal.filter((a) => a.kind === "choose_noble");
    this.dialogFrame(
      this.nobleDialog,
      h(
        "div",
        { class: "dialog-body" },
        h("p", {}, tn("{n} noble can visit you this turn, but only one will: choose who.", "{n} nobles can visit you this turn, but only one will: choose who.", choices.length)),
        h(
          "div",
          { class: "noble-choices" },
          choices.map((a) =>
            nobleTile(a.noble, this.catalog.nobles[a.noble], {
              onClick: () => {
                this.nobleDialog.close();
                this.act(a);
              },
              extra: ["noble-choice"],
            }),
          ),
        ),
        h(
          "div",
          { class: "dialog-actions" },
          h("button", { type: "button", class: "btn btn-quiet", onclick: () => this.dismiss(this.nobleDialog) }, t("Look at the table")),
        ),
      ),
    );
  }
}
