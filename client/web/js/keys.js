// The table from the keyboard: shortcuts for the common choices, the help dialog
// that lists them (opened with "?" or the Keys button), and where focus goes when
// the control that held it is gone (after a move: where the next choice starts).
//
// A shortcut presses the control a click would (so the controls decide, from the
// view's `legal`, as for a click); a disabled one says why instead, in the
// action bar's message line.

import { h } from "./dom.js";
import { GEMS } from "./gems.js";
import { howtoLink } from "./howto.js";
import { t, tp } from "./i18n.js";

// The shortcuts are the same letters in every language; what they do is translated.
const CLASSIC_KEYS = [
  ["1 – 5", t("pick white, blue, green, red, black from the bank")],
  ["t", t("take the picked tokens")],
  ["b", t("buy the chosen card")],
  ["r", t("reserve the chosen card or deck")],
  ["p", t("pass (when it is the only move)")],
  ["g", t("go to the bank")],
  ["c", t("go to the cards")],
  ["y", t("go to your reserved cards")],
];

const DUEL_KEYS = [
  [tp("key", "Arrows"), t("move between the board's tokens")],
  ["t", t("take the picked tokens (or use the privileges, or the ability's token)")],
  ["b", t("buy the chosen card")],
  ["r", t("reserve the chosen card or deck")],
  ["p", t("use a privilege")],
  ["n", t("replenish the board")],
  ["g", t("go to the board")],
  ["c", t("go to the cards")],
  ["y", t("go to your reserved cards")],
];

const COMMON_KEYS = [
  [tp("key", "Tab / Shift+Tab"), t("next / previous control")],
  [tp("key", "Enter / Space"), t("press the control in focus")],
  [tp("key", "Escape"), t("drop the current choice; in a dialog, hide it to look at the table")],
  ["?", t("this list")],
];

// Which buttons a letter presses, the first present one winning.
const PRESSES = {
  classic: { t: ["take"], b: ["buy"], r: ["reserve", "reserve-blind"], p: ["pass"] },
  duel: { t: ["take", "use-privileges", "take-bonus"], b: ["buy"], r: ["reserve", "reserve-blind"], p: ["privileges"], n: ["replenish"] },
};

const STARTS = {
  classic: "button[data-bank]:not([disabled])",
  duel: "button.cell:not([disabled])",
};

function firstEnabled(root, selector) {
  return [...root.querySelectorAll(selector)].find((el) => !el.disabled && el.offsetParent !== null) || null;
}

function typing(target) {
  return target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement || (target && target.isContentEditable);
}

/**
 * The dialog listing a page's keys (rows of [key, what it does]) and, given the game's
 * `variant`, a link to its how-to-play; the "Keys ?" button that opens it; `toggle`
 * for the "?" key.
 */
export class HelpDialog {
  constructor(rows, { variant = null } = {}) {
    this.dialog = h(
      "dialog",
      { class: "dialog help-dialog", id: "help-dialog", "aria-labelledby": "help-title" },
      h("h2", { class: "dialog-title", id: "help-title" }, t("Keyboard shortcuts")),
      h(
        "table",
        { class: "help-keys" },
        h("tbody", {}, rows.map(([key, words]) => h("tr", {}, h("th", { scope: "row" }, h("kbd", {}, key)), h("td", {}, words)))),
      ),
      variant ? h("p", { class: "help-howto" }, howtoLink(variant, { newTab: true })) : null,
      h("div", { class: "dialog-actions" }, h("button", { type: "button", class: "btn btn-primary", dataset: { key: "help-close" }, onclick: () => this.dialog.close() }, t("Close"))),
    );
    document.body.append(this.dialog);
    this.button = h("button", { type: "button", class: "btn btn-small btn-quiet", id: "help-open", "aria-keyshortcuts": "?", title: t("Keyboard shortcuts (?)"), onclick: () => this.open() }, t("Keys ?"));
  }

  destroy() {
    this.dialog.remove();
  }

  open() {
    if (!this.dialog.open) this.dialog.showModal();
    this.dialog.querySelector("[data-key=help-close]").focus();
  }

  /** "?" pressed outside a field: open or close the list; true when it was that. */
  onKey(e) {
    if (e.key !== "?" || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return false;
    e.preventDefault();
    if (this.dialog.open) this.dialog.close();
    else this.open();
    return true;
  }
}

export class TableKeys {
  /** variant: "classic" | "duel"; controls: the seat's controls (null for a spectator); root: the page. */
  constructor({ variant, controls, root }) {
    this.variant = variant;
    this.controls = controls;
    this.root = root;
    this.help = new HelpDialog([...(controls ? (variant === "duel" ? DUEL_KEYS : CLASSIC_KEYS) : []), ...COMMON_KEYS], { variant });
    this.button = this.help.button;
  }

  destroy() {
    this.help.destroy();
  }

  /** Handle a keydown on the table page; true when it was a shortcut. */
  handle(e) {
    if (this.help.onKey(e)) return true;
    if (e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return false;
    if (!this.controls || document.querySelector("dialog[open]")) return false;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (this.variant === "classic" && /^[1-5]$/.test(key)) {
      this.press(this.root.querySelector(`button[data-bank="${GEMS[Number(key) - 1]}"]`));
    } else if (PRESSES[this.variant][key]) {
      const keys = PRESSES[this.variant][key];
      this.press(keys.map((k) => this.root.querySelector(`[data-key="${k}"]`)).find(Boolean) || null);
    } else if (key === "g") {
      this.focus(firstEnabled(this.root, this.variant === "duel" ? "button.cell" : "button[data-bank]"));
    } else if (key === "c") {
      this.focus(firstEnabled(this.root, ".slot button.card"));
    } else if (key === "y") {
      this.focus(firstEnabled(this.root, ".player.mine .reserved button.card"));
    } else if (this.variant === "duel" && key.startsWith("Arrow") && e.target instanceof HTMLElement && e.target.matches("button.cell")) {
      this.moveOnBoard(e.target, key);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  }

  /** Press a control as a click would; a disabled one says why in the message line. */
  press(el) {
    if (!el) return;
    if (!el.disabled) {
      el.click();
      return;
    }
    const why = el.getAttribute("title");
    if (why) {
      this.controls.message = { kind: "info", text: why, code: "refused" };
      this.controls.render();
    }
  }

  focus(el) {
    if (el) el.focus();
  }

  /** Arrows on the Duel board: the next enabled cell that way. */
  moveOnBoard(cell, key) {
    const [dr, dc] = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key] || [0, 0];
    let r = Number(cell.dataset.row) + dr;
    let c = Number(cell.dataset.col) + dc;
    while (r >= 0 && r < 5 && c >= 0 && c < 5) {
      const next = this.root.querySelector(`button.cell[data-row="${r}"][data-col="${c}"]`);
      if (next && !next.disabled) {
        next.focus();
        return;
      }
      r += dr;
      c += dc;
    }
  }

  /**
   * Focus where the next choice starts, after the control that held focus is gone:
   * on the seat's move the bank's first gem (a Duel: the board's first token) or the
   * action bar's button of a pending choice; otherwise the action bar's prompt (so
   * focus stays near the table, never on the page's body).
   */
  focusStart(myTurn) {
    if (!this.controls || document.querySelector("dialog[open]")) return;
    const legal = (this.controls.view && this.controls.view.legal) || [];
    const start = myTurn && !this.controls.busy && legal.length
      ? firstEnabled(this.root, STARTS[this.variant]) || firstEnabled(this.root, ".action-bar [data-key]:not([data-key=cancel])") || firstEnabled(this.root, ".slot button.card")
      : null;
    if (start) {
      start.focus({ preventScroll: true });
      return;
    }
    const prompt = this.root.querySelector("#prompt");
    if (prompt) {
      prompt.setAttribute("tabindex", "-1");
      prompt.focus({ preventScroll: true });
    }
  }
}
