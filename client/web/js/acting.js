// What the controls of both games share: a refused move in words, whose move it
// is, the message line of the action bar, and the rows of the dialog that gives
// tokens back (classic's return, Duel's discard). Like the controls, nothing here
// decides what is legal: that is the view's `legal` list.

import { h } from "./dom.js";
import { colourWord, gemCount, tokenChip } from "./gems.js";
import { formatNumber, t } from "./i18n.js";

const ERROR_PREFIX = {
  not_your_turn: t("It is not your turn."),
  conflict: t("The table changed before your move arrived; it is up to date now, please choose again."),
  game_over: t("The game is over."),
  unauthorized: t("This page holds no valid seat for this game."),
  rate_limited: t("Too many moves too fast; wait a moment."),
  network: t("The server can't be reached right now."),
  timeout: t("No answer from the server yet."),
};

/** A refused action in words. */
export function problemWords(err) {
  const prefix = ERROR_PREFIX[err.code];
  const message = err.message || "";
  if (err.code === "illegal_action" || err.code === "bad_request") return message || t("That move is not allowed.");
  if (!prefix) return message || t("The server refused that move.");
  // Translators: what the page says of a refusal, then the server's own sentence.
  return message && err.code !== "conflict" && message !== prefix ? t("{problem} {message}", { problem: prefix, message }) : prefix;
}

/** Whether the view's reader holds the seat to move in a live game. */
export function isMyTurn(v) {
  return !!(v && v.status === "live" && v.you !== null && v.you !== undefined && v.turn && v.turn.seat === v.you);
}

/** Two token counts are equal (a colour left out counts 0). */
export function sameTokens(a, b) {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if ((a[k] || 0) !== (b[k] || 0)) return false;
  return true;
}

/** The action bar's last line: why a move was refused, read out when it changes. */
export function actionMessage(message) {
  return h(
    "p",
    { class: ["action-message", message && `msg-${message.kind}`], role: "alert", id: "action-message", dataset: { code: message ? message.code : "" } },
    message ? message.text : "",
  );
}

/**
 * The <dialog> of a pending choice, appended to the page. Escape does not close it
 * for good: it calls onDismiss(dialog), which hides it to look at the table (the
 * action bar reopens it).
 */
export function pendingDialog(id, title, onDismiss) {
  const dialog = h("dialog", { class: "dialog", id, "aria-labelledby": `${id}-title` });
  dialog.addEventListener("cancel", (e) => {
    e.preventDefault();
    onDismiss(dialog);
  });
  dialog.dataset.title = title;
  document.body.append(dialog);
  return dialog;
}

/** Show a dialog (modal), the focus on its first enabled button. */
export function showDialog(dialog) {
  if (!dialog.open) dialog.showModal();
  const first = dialog.querySelector("button:not([disabled])");
  if (first) first.focus();
}

/**
 * How many tokens the listed give-back actions (return_tokens, discard_tokens) give
 * back: all give the same count, so the page needs no token limit of its own.
 */
export function givingBackCount(actions) {
  return actions.length ? Object.values(actions[0].tokens).reduce((n, k) => n + k, 0) : 0;
}

// The steppers' labels of each way of giving back (`verb` of tokenSteppers).
const STEP_WORDS = {
  return: {
    less: (colour) => t("Return one {colour} less", { colour }),
    more: (colour) => t("Return one more {colour}", { colour }),
    count: (colour) => t("{colour} to return", { colour }),
  },
  discard: {
    less: (colour) => t("Put back one {colour} less", { colour }),
    more: (colour) => t("Put back one more {colour}", { colour }),
    count: (colour) => t("{colour} to put back", { colour }),
  },
};

/**
 * The rows of a dialog giving tokens back: for each colour of `colors` held, its
 * chip, then − the count picked +. `verb` names the act ("return" or "discard");
 * `chosen`/`need` stop the + buttons once enough is picked; onStep(color, ±1).
 */
export function tokenSteppers(colors, held, pick, { chosen, need, verb, onStep }) {
  const words = STEP_WORDS[verb];
  return h(
    "div",
    { class: "return-rows" },
    colors
      .filter((c) => held[c])
      .map((color) =>
        h(
          "div",
          { class: "return-row", dataset: { color } },
          tokenChip(color, held[color], { size: "sm", label: t("You hold {tokens}", { tokens: gemCount(color, held[color]) }) }),
          h("span", { class: "return-name" }, colourWord(color)),
          h("button", { type: "button", class: "btn btn-step", dataset: { key: `less-${color}` }, "aria-label": words.less(colourWord(color)), disabled: !pick[color], onclick: () => onStep(color, -1) }, "−"),
          h("output", { class: "return-count", "aria-label": words.count(colourWord(color)) }, formatNumber(pick[color] || 0)),
          h("button", { type: "button", class: "btn btn-step", dataset: { key: `more-${color}` }, "aria-label": words.more(colourWord(color)), disabled: (pick[color] || 0) >= held[color] || chosen >= need, onclick: () => onStep(color, 1) }, "+"),
        ),
      ),
  );
}

/** `pick` with one more (delta 1) or one less (-1) of `color`, within 0..held. */
export function steppedPick(pick, held, color, delta) {
  return { ...pick, [color]: Math.max(0, Math.min(held[color], (pick[color] || 0) + delta)) };
}

/** After a − or +, focus stays on it while it is enabled, else goes to the confirm button. */
export function focusAfterStep(dialog, color, delta, confirmKey) {
  const again = dialog.querySelector(`[data-key="${delta > 0 ? "more" : "less"}-${color}"]`);
  if (again && !again.disabled) again.focus();
  else dialog.querySelector(`[data-key=${confirmKey}]`)?.focus();
}
