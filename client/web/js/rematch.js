// Rematch (RULES.md part 3, docs/web.md "Rematch"): after the end a player starts
// one, the others join it with one click (each its own POST …/rematch with its seat
// token of the finished game), spectators are pointed to it. The page learns of a
// rematch from the view's `rematch` or the websocket's `rematch` message.

import { ApiError, rematchGame } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { rememberSeat, seatFor } from "./seats.js";

export class Rematch {
  /** `seat`: this browser's seat record of the finished game, or null (a spectator);
   * `onChange()` when the rematch is known or the page's words change. */
  constructor({ gameId, seat, onChange = () => {} }) {
    this.gameId = gameId;
    this.seat = seat;
    this.onChange = onChange;
    this.id = null;
    this.busy = false;
    this.error = "";
  }

  /** The rematch's id, from a view (`rematch`) or a `rematch` message (`id`). */
  take(id) {
    if (!id || id === this.id) return;
    this.id = id;
    this.onChange();
  }

  /** A key for redraws: what `actions` shows. */
  key() {
    return JSON.stringify([this.id, this.busy, this.error]);
  }

  /** The line and buttons under a finished game's result (`where`: "banner" or "end"). */
  actions(view, where) {
    if (!view || view.status !== "finished") return null;
    const ids = { banner: "rematch-game", end: "end-rematch" };
    if (!this.seat) {
      if (!this.id) return null;
      return h("p", { class: "rematch-offer" }, t("The players started a rematch."), " ", h("a", { class: "btn btn-small btn-primary", id: where === "banner" ? "watch-rematch" : "end-watch-rematch", href: `#/watch/${encodeURIComponent(this.id)}` }, t("Watch it")));
    }
    const joined = this.id ? seatFor(this.id) : null;
    if (joined) return h("a", { class: "btn btn-primary", id: ids[where], href: `#/play/${encodeURIComponent(this.id)}` }, t("Go to the rematch"));
    return [
      this.id ? h("p", { class: "rematch-offer" }, t("A rematch is offered: same players and time control, seats moved round.")) : null,
      h("button", { type: "button", class: "btn btn-primary", id: ids[where], disabled: this.busy, onclick: () => this.go() }, this.id ? t("Join the rematch") : t("Rematch")),
      this.error ? h("p", { class: "form-error", role: "alert" }, this.error) : null,
    ];
  }

  async go() {
    if (this.busy || !this.seat) return;
    this.busy = true;
    this.error = "";
    this.onChange();
    try {
      const mine = await rematchGame(this.gameId, this.seat.token);
      rememberSeat(mine.id, { seat: mine.seat, token: mine.token, name: this.seat.name });
      window.location.hash = `#/play/${encodeURIComponent(mine.id)}`;
    } catch (err) {
      this.error = err instanceof ApiError ? err.message : String(err);
    } finally {
      this.busy = false;
      this.onChange();
    }
  }
}
