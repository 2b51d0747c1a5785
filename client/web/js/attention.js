// "Your move": telling a player whose tab may be in the background that the table
// waits for them. The tab's title starts with "Your move ·"; an optional sound (a
// toggle remembered in localStorage, two notes made with WebAudio, no file); a
// browser notification when the page is hidden and notifications are allowed.
//
// A timed game's low time goes in the title: `setClockNote("0:20 left")` puts it
// after "Your move ·" (game.js calls it from the clocks, under a minute left).

import { h } from "./dom.js";
import { isMyTurn } from "./acting.js";
import { t } from "./i18n.js";

const SOUND_KEY = "splendor.sound";

export function soundWanted() {
  try {
    return window.localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

function rememberSound(on) {
  try {
    window.localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  } catch {
    // private mode without storage: the toggle lasts for this page only
  }
}

/** The title of a page whose reader may have to move: "Your move · [clock ·] <title>". */
export function attentionTitle(base, myTurn, clockNote = "") {
  if (!myTurn) return base;
  return clockNote ? t("Your move · {clock} · {title}", { clock: clockNote, title: base }) : t("Your move · {title}", { title: base });
}

export class TurnAlert {
  /** `what`: words for the notification's body ("Splendor #abc"). */
  constructor({ what }) {
    this.what = what;
    this.base = document.title;
    this.myTurn = null; // unknown until the first view
    this.clockNote = "";
    this.sound = soundWanted();
    this.audio = null;
    this.el = h("span", { class: "alerts" });
    this.drawControls();
  }

  destroy() {
    document.title = this.base;
    if (this.audio) this.audio.close().catch(() => {});
  }

  /** A clock's low time for the title ("" takes it away). */
  setClockNote(text) {
    this.clockNote = text || "";
    this.showTitle();
  }

  showTitle() {
    document.title = attentionTitle(this.base, !!this.myTurn, this.clockNote);
  }

  update(view) {
    const mine = isMyTurn(view);
    const became = this.myTurn === false && mine;
    this.myTurn = mine;
    this.showTitle();
    if (!became) return;
    if (this.sound) this.beep();
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

  beep() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    this.audio ||= new Ctx();
    const ctx = this.audio;
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    const start = ctx.currentTime + 0.01;
    [660, 880].forEach((freq, i) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      const t = start + i * 0.16;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.18, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.14);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + 0.15);
    });
  }

  toggleSound() {
    this.sound = !this.sound;
    rememberSound(this.sound);
    if (this.sound) this.beep(); // a sample, and a user gesture lets the audio start
    this.drawControls();
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
      h(
        "button",
        {
          type: "button",
          class: "btn btn-small btn-quiet",
          id: "sound-toggle",
          "aria-pressed": String(this.sound),
          title: t("A short sound when it becomes your move"),
          onclick: () => this.toggleSound(),
        },
        this.sound ? t("Sound on") : t("Sound off"),
      ),
      notifications === "default"
        ? h("button", { type: "button", class: "btn btn-small btn-quiet", id: "notify-me", title: t("A notification when it becomes your move while this tab is hidden"), onclick: () => this.askNotifications() }, t("Notify me"))
        : null,
    );
  }
}
