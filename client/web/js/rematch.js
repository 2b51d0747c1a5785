// Rematch (RULES.md part 3, docs/web.md "Rematch"): after the end a player offers
// one (POST …/rematch with its seat token of the finished game: that seat accepts)
// and stays at the board; the other seats see "Ana offers a rematch" with Accept
// (their own POST …/rematch) and Decline (POST …/rematch/decline), and a sound; the
// offerer sees who accepted and who declined. Once every seat has accepted the game
// starts, and the pages that accepted go to it. Spectators are pointed to it.
//
// The page learns of a rematch from the view's `rematch` (its id) and from the
// websocket's `rematch` message: `{id, accepted, declined}`, seats of the finished
// game, sent again whenever an answer changes (docs/live.md).

import { ApiError, declineRematch, rematchGame } from "./api.js";
import { h, listWords } from "./dom.js";
import { t, tn } from "./i18n.js";
import { rememberSeat, seatFor } from "./seats.js";
import { sounds } from "./sound.js";

export class Rematch {
  /** `seat`: this browser's seat record of the finished game, or null (a spectator);
   * `names.of(seat)` names a seat; `onChange()` when what it shows changes;
   * `go(id)` takes the page to the rematch (the default: its table). */
  constructor({ gameId, seat, names, onChange = () => {}, go = (id) => (window.location.hash = `#/play/${encodeURIComponent(id)}`) }) {
    this.gameId = gameId;
    this.seat = seat;
    this.names = names;
    this.onChange = onChange;
    this.go = go;
    this.id = null;
    this.accepted = new Set(); // seats of the finished game
    this.declined = new Set();
    this.told = false; // an answers' message came (else only the view's id is known)
    this.offerSounded = null; // the rematch whose offer this page sounded
    this.players = 0;
    this.busy = false;
    this.error = "";
  }

  /** The rematch from a view (`view.rematch`, an id) or a `rematch` message ({id,
   * accepted, declined}). An answer is final: what is known only grows. */
  take(news) {
    if (!news) return;
    const message = typeof news === "string" ? { id: news } : news;
    const wasFull = this.full();
    const before = this.key();
    if (message.id !== this.id) {
      this.id = message.id;
      this.accepted = new Set();
      this.declined = new Set();
      this.told = false;
    }
    if (Array.isArray(message.accepted)) {
      for (const s of message.accepted) this.accepted.add(s);
      for (const s of message.declined || []) this.declined.add(s);
      this.told = true;
    }
    if (this.key() === before) return;
    if (this.offered() && this.offerSounded !== this.id) {
      this.offerSounded = this.id;
      sounds.play("rematch");
    }
    // Everyone accepted while this page looked: a page that accepted goes there.
    if (!wasFull && this.full() && this.mine()) this.go(this.id);
    this.onChange();
  }

  /** The finished game's seat count (the view's players). */
  seats(view) {
    if (view && view.players) this.players = view.players.length;
    return this.players;
  }

  /** Has every seat accepted (the rematch has started)? */
  full() {
    return this.told && this.players > 0 && this.accepted.size >= this.players;
  }

  /** Has this page's seat accepted (its call made here or in another of its pages)? */
  mine() {
    if (!this.seat || !this.id) return false;
    return this.accepted.has(this.seat.seat) || !!seatFor(this.id);
  }

  /** Is a rematch offered to this page's seat, which has not answered it yet? */
  offered() {
    if (!this.seat || !this.id || !this.told || this.declined.size) return false;
    return !this.accepted.has(this.seat.seat) && !this.declined.has(this.seat.seat) && !seatFor(this.id);
  }

  /** A key for redraws: what `actions` shows. */
  key() {
    return JSON.stringify([this.id, [...this.accepted].sort(), [...this.declined].sort(), this.told, this.busy, this.error, this.players]);
  }

  /** Names of the seats in `set` that are people (bots accept by themselves). */
  people(view, set) {
    return [...set].sort((a, b) => a - b).filter((s) => !isBot(view, s)).map((s) => this.names.of(s));
  }

  /** The line and buttons under a finished game's result (`where`: "banner" or "end"). */
  actions(view, where) {
    if (!view || view.status !== "finished") return null;
    this.seats(view);
    const end = where === "end";
    // The end dialog's copies have ids of their own ("end-rematch" for the main button).
    const id = (name) => (end ? (name === "rematch-game" ? "end-rematch" : `end-${name}`) : name);
    const declined = this.people(view, this.declined);
    if (!this.seat) {
      // Pointed to the rematch once it has started (a rematch offered may be declined).
      if (!this.id || !this.full()) return null;
      return h("p", { class: "rematch-offer" }, t("The players started a rematch."), " ", h("a", { class: "btn btn-small btn-primary", id: end ? "end-watch-rematch" : "watch-rematch", href: `#/watch/${encodeURIComponent(this.id)}` }, t("Watch it")));
    }
    const error = this.error ? h("p", { class: "form-error", role: "alert" }, this.error) : null;
    if (!this.id) {
      return [h("button", { type: "button", class: "btn btn-primary", id: id("rematch-game"), disabled: this.busy, onclick: () => this.accept() }, t("Rematch")), error];
    }
    const me = this.seat.seat;
    const status = (words) => h("p", { class: "rematch-status", id: id("rematch-status"), role: "status" }, words);
    // A decline ends the offer for everyone: nobody waits for a game that can't start.
    if (declined.length) {
      const text = this.declined.has(me) ? t("You declined the rematch.") : t("{who} declined the rematch.", { who: listWords(declined) });
      return [status(text), error];
    }
    if (this.full()) {
      return [status(t("Everyone accepted: the rematch has started.")), this.mine() ? h("a", { class: "btn btn-primary", id: id("rematch-game"), href: `#/play/${encodeURIComponent(this.id)}` }, t("Go to the rematch")) : null];
    }
    if (this.mine()) {
      // The offerer, or a seat that accepted: who has accepted, whom it waits for.
      const others = view.players.map((p) => p.seat).filter((s) => s !== me && !isBot(view, s));
      const yes = others.filter((s) => this.accepted.has(s)).map((s) => this.names.of(s));
      const waiting = others.filter((s) => !this.accepted.has(s)).map((s) => this.names.of(s));
      return [
        status(
          [
            yes.length ? tn("{who} accepted.", "{who} accepted.", yes.length, { who: listWords(yes) }) : null,
            waiting.length ? t("Waiting for {who} to answer…", { who: listWords(waiting) }) : null,
          ]
            .filter(Boolean)
            .join(" ") || t("You offered a rematch."),
        ),
        error,
      ];
    }
    const offerers = this.people(view, this.accepted);
    const who = offerers.length ? listWords(offerers) : t("A player");
    return [
      h("p", { class: "rematch-offer", id: id("rematch-offer") }, tn("{who} offers a rematch: same players and time control, seats moved round.", "{who} offer a rematch: same players and time control, seats moved round.", Math.max(1, offerers.length), { who })),
      h(
        "div",
        { class: "rematch-answer" },
        h("button", { type: "button", class: "btn btn-primary", id: id("rematch-game"), disabled: this.busy, onclick: () => this.accept() }, t("Accept")),
        h("button", { type: "button", class: "btn", id: id("rematch-decline"), disabled: this.busy, onclick: () => this.decline() }, t("Decline")),
      ),
      error,
    ];
  }

  /** Offer the rematch, or accept it: this seat's POST …/rematch. The page stays at
   * the board until every seat has accepted. */
  async accept() {
    await this.call(async () => {
      const mine = await rematchGame(this.gameId, this.seat.token);
      rememberSeat(mine.id, { seat: mine.seat, token: mine.token, name: this.seat.name });
      // The answers' message follows (and, the last seat in, takes the page there).
      this.take({ id: mine.id, accepted: [this.seat.seat], declined: [] });
    });
  }

  async decline() {
    await this.call(async () => {
      this.take(await declineRematch(this.gameId, this.seat.token));
    });
  }

  async call(work) {
    if (this.busy || !this.seat) return;
    this.busy = true;
    this.error = "";
    this.onChange();
    try {
      await work();
    } catch (err) {
      this.error = err instanceof ApiError ? err.message : String(err);
    } finally {
      this.busy = false;
      this.onChange();
    }
  }
}

function isBot(view, seat) {
  const p = view.players.find((q) => q.seat === seat);
  return !!(p && p.bot);
}
