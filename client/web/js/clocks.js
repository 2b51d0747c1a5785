// The clocks of a timed game, one per seat, ticking on the page (docs/web.md "Clocks").
//
// A view's `clock` says each seat's `remaining` ms at the server's `now`, which seat's
// clock `running` is, and, during a seat's first turn, what is left of its first-move
// window (`first_move`, `running` null). The page ticks the running clock down with
// its own monotonic time since the clock arrived (performance.now), never the wall
// clock, so a computer's wrong time changes nothing.
//
// Never backwards: a running clock shown never goes up while nothing happened in the
// game. A clock that comes with no new event (a resync or a reconnect at the same
// version) replaces the one shown only where it is lower; a clock that comes with
// new events is the server's truth (a turn's end adds the increment, a new mover's
// clock starts from its bank).

import { h, svg } from "./dom.js";
import { formatClock, formatMinutes, t } from "./i18n.js";

/** Under this a running clock (or a first-move window) is red and ticks each second. */
export const LOW_MS = 10_000;
/** The least time under which a clock warns (docs/web.md "Clocks"). */
export const WARN_FLOOR_MS = 30_000;

/** The time under which a clock warns that it runs low: a fifth of the time control's
 * bank (its initial time, or a correspondence game's time a move), or 30 s, whichever
 * is larger. */
export function lowTimeMs(clock) {
  const bank = clock ? (clock.initial || clock.per_move || 0) * 1000 : 0;
  return Math.max(WARN_FLOOR_MS, bank / 5);
}

const HOURGLASS = '<path d="M6 2h12v2c0 3-2 5-4 6v0c2 1 4 3 4 6v4H6v-4c0-3 2-5 4-6-2-1-4-3-4-6z" fill="none" stroke="currentColor" stroke-width="2"/><path d="M9 19h6v-2c0-1-1-2-3-3-2 1-3 2-3 3z"/>';

/** "4:59", "0:09.4" under 10 s, "1:02:03" over an hour, "2d 3h" over a day. */
export function clockText(ms) {
  return formatClock(ms);
}

/** "0:42" for the tab's title: whole seconds (the title changes once a second). */
export function titleText(ms) {
  return formatMinutes(Math.ceil(Math.max(0, ms) / 1000));
}

/**
 * The clocks as last told, and what they show at a local moment (ms of
 * performance.now). `take(view)` after each view; `shown(seat, at)`.
 */
export class ClockState {
  constructor() {
    this.clock = null; // the view's clock as taken (remaining possibly lowered)
    this.key = null; // JSON of the server's clock: a diff that leaves it alone keeps the base
    this.at = 0; // local time the clock arrived
    this.version = -1;
    this.live = false;
    this.mover = null; // the seat to move (its first-move window runs while running is null)
  }

  /** Take a view's clock; `at`: the local time it arrived. */
  take(view, at) {
    const clock = view.clock || null;
    const key = clock ? JSON.stringify(clock) : null;
    const sameGame = view.version === this.version;
    const wasLive = this.live;
    this.live = view.status === "live";
    this.mover = view.turn ? view.turn.seat : null;
    if (key === this.key && clock) {
      this.version = view.version;
      return; // the clock did not change: it keeps ticking from when it came
    }
    let next = clock ? { ...clock, remaining: [...(clock.remaining || [])] } : null;
    if (next && this.clock && sameGame && wasLive && this.live) {
      // Nothing happened in the game: what is shown never goes up.
      next.remaining = next.remaining.map((ms, seat) => {
        const before = this.shown(seat, at);
        return ms === null || before === null ? ms : Math.min(ms, before);
      });
      if (next.first_move !== null && next.first_move !== undefined && this.clock.first_move !== null && this.clock.first_move !== undefined) {
        next.first_move = Math.min(next.first_move, this.firstMoveLeft(at));
      }
    }
    this.clock = next;
    this.key = key;
    this.at = at;
    this.version = view.version;
  }

  /** Is a clock running now (the page ticks only then)? */
  ticking() {
    if (!this.clock || !this.live) return false;
    return this.clock.running !== null || (this.clock.first_move !== null && this.clock.first_move !== undefined);
  }

  /** The ms a seat's clock shows at local time `at`; null for a seat without a clock. */
  shown(seat, at) {
    if (!this.clock) return null;
    const ms = this.clock.remaining[seat];
    if (ms === null || ms === undefined) return null;
    if (!this.live || this.clock.running !== seat) return ms;
    return Math.max(0, ms - (at - this.at));
  }

  /** What is left of the first-move window of the seat to move, or null. */
  firstMoveLeft(at) {
    if (!this.clock || !this.live) return null;
    const ms = this.clock.first_move;
    if (ms === null || ms === undefined) return null;
    return Math.max(0, ms - (at - this.at));
  }
}

/**
 * The clock of each seat in the players' heads (`[data-player] .player-head`), ticking
 * every 100 ms while one runs. `names.of(seat)` names a seat; `you` is the page's
 * seat (its low time goes to the tab's title through `onMine(ms | null)`).
 */
export class SeatClocks {
  constructor({ names, onMine = () => {} }) {
    this.names = names;
    this.onMine = onMine;
    this.state = new ClockState();
    this.you = null;
    this.roots = new Set(); // where clocks are drawn: the players, the phone's bar
    this.timer = 0;
  }

  update(view) {
    this.state.take(view, performance.now());
    this.you = view.you ?? null;
    this.schedule();
  }

  clockOf(seat, who = null) {
    return h(
      "span",
      { class: ["clock", who && "clock-compact"], role: "timer", dataset: { clockSeat: String(seat) }, "aria-label": seat === this.you ? t("Your clock") : t("{who}'s clock", { who: this.names.of(seat) }) },
      who ? h("span", { class: "clock-who", "aria-hidden": "true" }, who) : null,
      // Low time is said by more than colour: an hourglass, an outline, and words.
      h("span", { class: "clock-flag" }, svg("0 0 24 24", HOURGLASS, { class: "clock-flag-icon" }), h("span", { class: "sr-only" }, t("low time"))),
      h("span", { class: "clock-time" }),
      h("span", { class: "clock-note" }),
    );
  }

  /** Put a clock in every player's head under `root` (after the players are drawn). */
  decorate(root) {
    this.roots.add(root);
    for (const head of root.querySelectorAll("[data-player] .player-head")) {
      const seat = Number(head.closest("[data-player]").dataset.player);
      let el = head.querySelector(".clock");
      if (this.state.shown(seat, 0) === null) {
        if (el) el.remove();
        continue;
      }
      if (!el) head.append(this.clockOf(seat));
    }
    this.draw();
  }

  /** On a phone the players' areas are far below the board: the seat's bar (`#my-bar`
   * under `root`, stuck to the bottom) carries the mover's clock and the seat's own. */
  decorateBar(root) {
    this.roots.add(root);
    const bar = root.querySelector("#my-bar");
    if (!bar || bar.querySelector(".bar-clocks") || this.you === null || this.state.shown(this.you, 0) === null) return;
    const mover = this.state.mover;
    const others = mover !== null && mover !== this.you && this.state.shown(mover, 0) !== null ? [this.clockOf(mover, this.names.of(mover))] : [];
    bar.append(h("span", { class: "bar-clocks" }, others, this.clockOf(this.you, t("You"))));
    this.draw();
  }

  draw() {
    const now = performance.now();
    const warn = lowTimeMs(this.state.clock);
    for (const el of [...this.roots].flatMap((root) => [...root.querySelectorAll(".clock[data-clock-seat]")])) {
      const seat = Number(el.dataset.clockSeat);
      const ms = this.state.shown(seat, now);
      if (ms === null) continue;
      const running = this.state.live && this.state.clock.running === seat;
      const first = this.state.mover === seat ? this.state.firstMoveLeft(now) : null;
      el.querySelector(".clock-time").textContent = clockText(ms);
      el.querySelector(".clock-note").textContent = first === null ? "" : t("first move {time}", { time: titleText(first) });
      const low = (running && ms < LOW_MS) || (first !== null && first < LOW_MS) || ms <= 0;
      el.classList.toggle("clock-running", running);
      el.classList.toggle("clock-low", low);
      el.classList.toggle("clock-warn", low || (running && ms < warn));
      el.dataset.ms = String(Math.round(ms));
    }
    const mine = this.you === null ? null : this.mineLeft(now);
    this.onMine(mine, mine === null ? 0 : this.mineWarn());
  }

  /** Under what this page's seat's running time warns: a first-move window warns
   * under LOW_MS (it is short by design), a clock under `lowTimeMs`. */
  mineWarn() {
    const clock = this.state.clock;
    return clock && clock.running === this.you ? lowTimeMs(clock) : LOW_MS;
  }

  /** The time this page's seat has left to move now (its clock or its first-move
   * window), or null when it is not running. */
  mineLeft(now) {
    if (!this.state.live) return null;
    if (this.state.clock && this.state.clock.running === this.you) return this.state.shown(this.you, now);
    if (this.state.mover === this.you) return this.state.firstMoveLeft(now);
    return null;
  }

  schedule() {
    const want = this.state.ticking();
    if (want && !this.timer) this.timer = window.setInterval(() => this.draw(), 100);
    if (!want && this.timer) {
      window.clearInterval(this.timer);
      this.timer = 0;
    }
    this.draw();
  }

  destroy() {
    window.clearInterval(this.timer);
    this.timer = 0;
  }
}
