// Leaving a live game from the table (RULES.md part 3, docs/web.md "Resign and
// abort"): Abort while the view's `legal` lists it (the first turns), else Resign,
// which asks first in a dialog. The server decides; the page only sends the action.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { OUT_WORDS } from "./results.js";

/** A tag in the head of each seat that is out (3-4 players: it resigned, ran out of
 * time or was claimed to have left; its turns are skipped): "out: resigned". */
export function markOut(root, view) {
  for (const p of view.players || []) {
    const head = root.querySelector(`[data-player="${p.seat}"] .player-head`);
    if (!head || !p.out || head.querySelector(".tag-out")) continue;
    head.querySelector(".player-name").after(h("span", { class: "tag tag-out", dataset: { out: p.out } }, t("out: {why}", { why: OUT_WORDS[p.out] || p.out })));
  }
}

/** May this page's seat resign now? Any seat in play of a live game (never listed in `legal`). */
export function canResign(view) {
  if (!view || view.status !== "live" || view.you === null || view.you === undefined) return false;
  const me = view.players.find((p) => p.seat === view.you);
  return !!me && !me.out;
}

/**
 * How long the seat to move must be away before another may claim it abandoned
 * (RULES.md part 3, the catalog's rules): 60 s untimed, 30 s real-time whatever its
 * clock holds; null in correspondence (the clock decides) and during a real-time
 * first turn (its window aborts the game instead).
 */
export function claimAfterMs(view, rules) {
  const clock = view && view.clock;
  if (!clock) return rules.abandon_seconds * 1000;
  if (clock.initial === null || clock.initial === undefined) return null;
  if (clock.first_move !== null && clock.first_move !== undefined) return null;
  return rules.abandon_realtime_seconds * 1000;
}

export function canAbort(view) {
  return !!view && view.status === "live" && (view.legal || []).some((a) => a.kind === "abort");
}

/**
 * The head's buttons and the resign dialog of one table. `send(action)` sends a
 * command (a promise); `onError(err)` shows a refusal.
 */
export class LeaveControls {
  constructor({ send, onError = () => {} }) {
    this.send = send;
    this.onError = onError;
    this.dialog = h("dialog", { class: "dialog resign-dialog", id: "resign-dialog", "aria-labelledby": "resign-title" });
    document.body.append(this.dialog);
  }

  /** What the head shows for `view`: Abort while allowed, else Resign, else nothing.
   * In a tournament (`tournament`) an abort is a forfeit (docs/tournaments.md,
   * "Decisions"): it asks first, as Resign does. */
  buttons(view, { tournament = false } = {}) {
    if (canAbort(view) && tournament) {
      return h("button", { type: "button", class: "btn btn-small btn-danger", id: "abort-game", dataset: { key: "abort" }, title: t("In a tournament, an aborted game is lost"), onclick: () => this.askAbort() }, t("Abort"));
    }
    if (canAbort(view)) {
      return h("button", { type: "button", class: "btn btn-small btn-danger", id: "abort-game", dataset: { key: "abort" }, title: t("Cancel the game before everyone has moved: no result"), onclick: () => this.act({ kind: "abort" }) }, t("Abort"));
    }
    if (canResign(view)) {
      return h("button", { type: "button", class: "btn btn-small btn-danger", id: "resign-game", dataset: { key: "resign" }, onclick: () => this.ask() }, t("Resign"));
    }
    return null;
  }

  /** A key for the head's redraws: what `buttons` would show. */
  key(view) {
    return canAbort(view) ? "abort" : canResign(view) ? "resign" : "";
  }

  ask() {
    this.confirm(
      t("Resign this game?"),
      t("You lose the game now (with more than two players, you are out and rank last). This can't be undone."),
      { id: "resign-confirm", label: t("Resign"), action: { kind: "resign" } },
    );
  }

  askAbort() {
    this.confirm(
      t("Abort this tournament game?"),
      t("In a tournament, a game aborted before it was played counts as a loss for you, and you are paused until you join again."),
      { id: "abort-confirm", label: t("Abort"), action: { kind: "abort" } },
    );
  }

  /** The dialog that asks before a leave action; "Keep playing" has the focus. */
  confirm(title, text, { id, label, action }) {
    mount(
      this.dialog,
      h("h2", { id: "resign-title", class: "dialog-title" }, title),
      h("p", {}, text),
      h(
        "div",
        { class: "dialog-actions" },
        h("button", { type: "button", class: "btn", id: "resign-cancel", onclick: () => this.dialog.close() }, t("Keep playing")),
        h(
          "button",
          {
            type: "button",
            class: "btn btn-danger",
            id,
            onclick: () => {
              this.dialog.close();
              this.act(action);
            },
          },
          label,
        ),
      ),
    );
    this.dialog.showModal();
    this.dialog.querySelector("#resign-cancel").focus();
  }

  act(action) {
    this.send(action).catch((err) => this.onError(err));
  }

  destroy() {
    this.dialog.remove();
  }
}
