// "Your move": telling a player whose tab may be in the background that the table
// waits for them. The tab's title starts with "Your move ·"; a browser notification
// when the page is hidden and notifications are allowed; the head's sound controls
// (sound.js: the sounds themselves are game.js's to play).
//
// A timed game's low time goes in the title: `setClockNote("0:20 left", true)` puts it
// after "Your move ·" and, low, "⌛" before everything (game.js calls it from the
// clocks: clocks.js `lowTimeMs`).

import { h } from "./dom.js";
import { isMyTurn } from "./acting.js";
import { t } from "./i18n.js";
import { soundControls } from "./sound.js";

/** What starts the title while the time to move is low. */
export const LOW_MARK = "⌛";

/** The title of a page whose reader may have to move: "Your move · [clock ·] <title>". */
export function attentionTitle(base, myTurn, clockNote = "", low = false) {
  if (!myTurn) return base;
  // The hourglass first: a tab's title is cut at its end, so the warning stays seen.
  if (low) return `${LOW_MARK} ${attentionTitle(base, myTurn, clockNote)}`;
  return clockNote ? t("Your move · {clock} · {title}", { clock: clockNote, title: base }) : t("Your move · {title}", { title: base });
}

export class TurnAlert {
  /** `what`: words for the notification's body ("Splendor #abc"). */
  constructor({ what }) {
    this.what = what;
    this.base = document.title;
    this.myTurn = null; // unknown until the first view
    this.clockNote = "";
    this.low = false;
    this.sounds = soundControls();
    this.el = h("span", { class: "alerts" });
    this.drawControls();
  }

  destroy() {
    document.title = this.base;
  }

  /** A clock's time for the title ("" takes it away); `low`: under the warning. */
  setClockNote(text, low = false) {
    this.clockNote = text || "";
    this.low = !!text && low;
    this.showTitle();
  }

  showTitle() {
    document.title = attentionTitle(this.base, !!this.myTurn, this.clockNote, this.low);
  }

  update(view) {
    const mine = isMyTurn(view);
    const became = this.myTurn === false && mine;
    this.myTurn = mine;
    this.showTitle();
    if (!became) return;
    if (document.hidden && "Notification" in window && Notification.permission === "granted") {
      try {
        const note = new Notification(t("Your move"), { body: this.what, tag: `splendor-${this.what}` });
        note.onclick = () => {
          window.focus();
          note.close();
        };
      } catch {
        // some browsers allow notifications only from a service worker
      }
    }
  }

  async askNotifications() {
    try {
      await Notification.requestPermission();
    } catch {
      // refused or unsupported: nothing to do
    }
    this.drawControls();
  }

  drawControls() {
    const notifications = "Notification" in window ? Notification.permission : "unsupported";
    this.el.replaceChildren(
      this.sounds,
      notifications === "default"
        ? h("button", { type: "button", class: "btn btn-small btn-quiet", id: "notify-me", title: t("A notification when it becomes your move while this tab is hidden"), onclick: () => this.askNotifications() }, t("Notify me"))
        : null,
    );
  }
}
