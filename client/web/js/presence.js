// Who is at the table (the websocket's `presence` messages, docs/live.md) and, in an
// untimed or real-time game, claiming a game its mover left (RULES.md part 3,
// docs/web.md "Presence and abandoned games").
//
// `away_since` is the server's time; the page counts the claim's 60 s (untimed) or
// 30 s (real-time, `leaving.claimAfterMs`) with its own
// clock corrected by the server's (`serverNow`, from the HTTP answers' Date). The
// count is only a guide: the "Claim the game" button appears only once the server's
// GET /view lists `claim_abandon`.

import { h, mount } from "./dom.js";
import { serverNow } from "./api.js";
import { formatMinutes, t } from "./i18n.js";
import { claimAfterMs } from "./leaving.js";

const RECHECK_MS = 3000;

/** "0:42" */
function minutes(ms) {
  return formatMinutes(Math.max(0, Math.ceil(ms / 1000)));
}

/** The presence dots in the players' heads and the claim notice of one table. */
export class TablePresence {
  /** `names.of(seat)`; `checkClaim()` resolves with the caller's fresh view (GET /view);
   * `claim()` sends claim_abandon; `onChange()` after a presence message. */
  constructor({ names, catalog, checkClaim, claim, onChange = () => {} }) {
    this.names = names;
    // RULES.md part 3's 60 s and 30 s, from the rules (the catalog's numbers).
    this.rules = catalog.rules;
    this.claimAfterMs = null; // for the current view's time control
    this.checkClaim = checkClaim;
    this.claim = claim;
    this.onChange = onChange;
    this.seats = null; // [bool] per seat, once told
    this.awaySince = []; // server ms per seat, or null
    this.view = null;
    // Not a live region: the count changes every second and would be read out each time.
    this.slot = h("div", { class: "claim-slot", id: "claim-slot" });
    this.claimable = false; // GET /view listed claim_abandon for the current absence
    this.checking = false;
    this.checkedAt = -Infinity;
    this.absence = null; // [seat, away_since] the claim notice is about
    this.timer = window.setInterval(() => this.tick(), 500);
  }

  take(message) {
    this.seats = message.seats || [];
    this.awaySince = (message.away_since || []).map((t) => (t ? Date.parse(t) : null));
    this.onChange();
    this.tick();
  }

  update(view) {
    this.view = view;
    this.tick();
  }

  /** A dot in every person's head under `root` (bots are always there: no dot). */
  decorate(root) {
    if (!this.seats || !this.view) return;
    for (const head of root.querySelectorAll("[data-player] .player-head")) {
      const seat = Number(head.closest("[data-player]").dataset.player);
      const player = this.view.players.find((p) => p.seat === seat);
      let dot = head.querySelector(".presence");
      if (!player || player.bot) {
        if (dot) dot.remove();
        continue;
      }
      const here = !!this.seats[seat];
      if (!dot) {
        dot = h("span", { class: "presence", role: "img" });
        head.querySelector(".player-name").after(dot);
      }
      dot.dataset.present = String(here);
      const words = here ? t("{who} is at the table", { who: this.names.of(seat) }) : t("{who} is away", { who: this.names.of(seat) });
      dot.setAttribute("aria-label", words);
      dot.title = words;
    }
  }

  /** The seat to move, away, whom this page's seat could claim against (untimed and
   * real-time games past the mover's first turn). */
  absent() {
    const v = this.view;
    if (!v || v.status !== "live" || !this.seats || !v.turn) return null;
    this.claimAfterMs = claimAfterMs(v, this.rules);
    if (this.claimAfterMs === null) return null;
    const mover = v.turn.seat;
    const player = v.players.find((p) => p.seat === mover);
    if (!player || player.bot || this.seats[mover]) return null;
    const since = this.awaySince[mover];
    return since ? [mover, since] : null;
  }

  /** May this page's seat claim at all (a person in play, not the mover)? */
  mayClaim() {
    const v = this.view;
    if (v.you === null || v.you === undefined || v.you === v.turn.seat) return false;
    const me = v.players.find((p) => p.seat === v.you);
    return !!me && !me.out && !me.bot;
  }

  tick() {
    const away = this.absent();
    const key = away ? away.join(":") : null;
    if (key !== (this.absence ? this.absence.join(":") : null)) {
      this.absence = away;
      this.claimable = false;
      this.checkedAt = -Infinity;
    }
    if (!away) {
      if (this.slot.firstChild) mount(this.slot);
      return;
    }
    const [seat, since] = away;
    const name = this.names.of(seat);
    const left = since + this.claimAfterMs - serverNow();
    const mine = this.mayClaim();
    if (mine && left <= 0 && !this.claimable && performance.now() - this.checkedAt > RECHECK_MS) this.recheck();
    let words;
    if (!mine) words = t("{who} left the table.", { who: name });
    else if (left > 0) words = t("{who} left — you can claim the game in {time}.", { who: name, time: minutes(left) });
    else words = t("{who} left {time} ago: you can claim the game.", { who: name, time: minutes(-left + this.claimAfterMs) });
    const text = this.slot.querySelector(".claim-words");
    const wantButton = mine && this.claimable;
    if (text && !!this.slot.querySelector("#claim-game") === wantButton) {
      text.textContent = words;
      return;
    }
    mount(
      this.slot,
      h(
        "section",
        { class: "banner banner-claim", "aria-label": t("A player left") },
        h("p", { class: "claim-words" }, words),
        wantButton ? h("button", { type: "button", class: "btn btn-primary", id: "claim-game", onclick: () => this.claim() }, t("Claim the game")) : null,
      ),
    );
  }

  async recheck() {
    if (this.checking) return;
    this.checking = true;
    this.checkedAt = performance.now();
    try {
      const view = await this.checkClaim();
      this.claimable = (view.legal || []).some((a) => a.kind === "claim_abandon");
    } catch {
      // asked again a few seconds later
    } finally {
      this.checking = false;
      this.checkedAt = performance.now();
    }
    this.tick();
  }

  destroy() {
    window.clearInterval(this.timer);
  }
}
