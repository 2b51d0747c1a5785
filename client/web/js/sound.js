// The page's sounds (docs/web.md "Sounds"), made here with the Web Audio API: no
// file is fetched. Every sound goes through `sounds.play(name)`, the one function
// that makes them (tests count its calls); the toggle and the volume are remembered
// in localStorage, and sound is on until a player turns it off.
//
// Browsers let a page make sound only after a gesture (a click, a key): until the
// reader has touched the page, `play` makes nothing, quietly, and the first sound
// after a gesture is heard. The audio context is made then, never before (a context
// made earlier would start suspended and the browser would warn of it).

import { h, svg } from "./dom.js";
import { t } from "./i18n.js";

const ON_KEY = "splendor.sound"; // "on" or "off"; unset: on
const VOLUME_KEY = "splendor.volume"; // 0 to 100
const DEFAULT_VOLUME = 70;

// Each sound: notes [frequency Hz, start s, length s, wave, loudness 0-1].
const NOTES = {
  move: [[520, 0, 0.07, "triangle", 0.5]],
  your_move: [
    [660, 0, 0.14, "sine", 0.8],
    [880, 0.16, 0.14, "sine", 0.8],
  ],
  start: [
    [523, 0, 0.12, "sine", 0.7],
    [659, 0.13, 0.12, "sine", 0.7],
    [784, 0.26, 0.2, "sine", 0.7],
  ],
  end: [
    [784, 0, 0.16, "sine", 0.7],
    [659, 0.18, 0.16, "sine", 0.7],
    [523, 0.36, 0.32, "sine", 0.7],
  ],
  low_time: [
    [880, 0, 0.09, "square", 0.35],
    [880, 0.14, 0.09, "square", 0.35],
  ],
  tick: [[1250, 0, 0.03, "square", 0.2]],
  rematch: [
    [587, 0, 0.12, "sine", 0.7],
    [784, 0.14, 0.18, "sine", 0.7],
  ],
};

/** The sounds' names, for the tests and the docs. */
export const SOUND_NAMES = Object.keys(NOTES);

function stored(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // private mode without storage: the defaults
  }
}

function store(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // without storage the choice lasts for this page only
  }
}

/** Has the reader touched the page yet (a click, a key)? Browsers without the
 * User Activation API are taken to allow sound; their context may still start
 * suspended, and is then resumed at the next sound. */
function gestured() {
  const activation = navigator.userActivation;
  return !activation || activation.hasBeenActive;
}

class Sounds {
  constructor() {
    this.ctx = null;
    this.master = null;
    this.listeners = new Set();
  }

  /** Whether sounds are on (the default). */
  enabled() {
    return stored(ON_KEY) !== "off";
  }

  setEnabled(on) {
    store(ON_KEY, on ? "on" : "off");
    this.changed();
  }

  /** The volume, 0 to 100. */
  volume() {
    const raw = Number.parseInt(stored(VOLUME_KEY) ?? "", 10);
    return Number.isFinite(raw) ? Math.min(100, Math.max(0, raw)) : DEFAULT_VOLUME;
  }

  setVolume(value) {
    store(VOLUME_KEY, String(Math.round(Math.min(100, Math.max(0, value)))));
    if (this.master) this.master.gain.value = this.volume() / 100;
    this.changed();
  }

  /** Call `fn()` when the toggle or the volume changes; returns a function that stops. */
  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed() {
    for (const fn of this.listeners) fn();
  }

  /** Play the sound `name` (SOUND_NAMES); true when it was made. Nothing is made
   * while sound is off, at volume 0, before the reader's first gesture, or where
   * the browser has no Web Audio. */
  play(name) {
    const notes = NOTES[name];
    if (!notes || !this.enabled() || this.volume() === 0 || !gestured()) return false;
    const ctx = this.context();
    if (!ctx) return false;
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    const start = ctx.currentTime + 0.01;
    for (const [freq, at, length, wave, loud] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      const from = start + at;
      gain.gain.setValueAtTime(0.0001, from);
      gain.gain.exponentialRampToValueAtTime(0.25 * loud, from + Math.min(0.02, length / 3));
      gain.gain.exponentialRampToValueAtTime(0.0001, from + length);
      osc.connect(gain).connect(this.master);
      osc.start(from);
      osc.stop(from + length + 0.01);
    }
    return true;
  }

  context() {
    if (this.ctx) return this.ctx;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    try {
      this.ctx = new Ctx();
    } catch {
      return null;
    }
    this.master = this.ctx.createGain();
    this.master.gain.value = this.volume() / 100;
    this.master.connect(this.ctx.destination);
    return this.ctx;
  }
}

/** The page's sounds: one object, so that every sound goes through `sounds.play`. */
export const sounds = new Sounds();

const SPEAKER = '<path d="M3 9h4l5-4v14l-5-4H3z"/>';
const WAVES = '<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>';
const MUTED = '<path d="m16 9 5 6m0-6-5 6" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>';

/**
 * The sound's controls: a toggle (its state in `aria-pressed`, a speaker with or
 * without waves, and the words) and a volume slider, both remembered. Turning sound
 * on plays a sample: the click is the gesture that lets it be heard.
 */
export function soundControls() {
  const toggle = h("button", {
    type: "button",
    class: "btn btn-small btn-quiet sound-toggle",
    id: "sound-toggle",
    onclick: () => {
      sounds.setEnabled(!sounds.enabled());
      if (sounds.enabled()) sounds.play("your_move");
    },
  });
  const volume = h("input", {
    type: "range",
    class: "sound-volume",
    id: "sound-volume",
    min: "0",
    max: "100",
    step: "5",
    "aria-label": t("Volume"),
    title: t("Volume"),
    onchange: () => {
      sounds.setVolume(Number(volume.value));
      sounds.play("move");
    },
  });
  const draw = () => {
    const on = sounds.enabled();
    toggle.setAttribute("aria-pressed", String(on));
    toggle.title = on ? t("Sounds for moves, your move, the start, the end and low time: click to turn them off") : t("Sounds are off: click to turn them on");
    toggle.replaceChildren(svg("0 0 24 24", SPEAKER + (on ? WAVES : MUTED), { class: "sound-icon", "aria-hidden": "true" }), h("span", { class: "sound-words" }, on ? t("Sound on") : t("Sound off")));
    volume.value = String(sounds.volume());
    volume.disabled = !on;
  };
  draw();
  const el = h("span", { class: "sound-controls", role: "group", "aria-label": t("Sound") }, toggle, volume);
  // Drawn again when another control of the page (or its redraw) changes them.
  const stop = sounds.onChange(() => (el.isConnected ? draw() : stop()));
  return el;
}
