// Time controls in words (RULES.md part 3): the lobby's presets, "5+3" in a row,
// "seeded" where a game was created with a seed. A clock is the summary's or the
// view's `clock` ({initial, increment} in seconds, or {per_move}; null untimed).

import { h } from "./dom.js";

/** The lobby's choices: [value, label, clock sent to POST /api/games (null: untimed)]. */
export const PRESETS = [
  ["3+2", "3+2 · blitz", { initial: 180, increment: 2 }],
  ["5+3", "5+3 · blitz", { initial: 300, increment: 3 }],
  ["10+5", "10+5 · rapid", { initial: 600, increment: 5 }],
  ["1d", "1 day a move", { per_move: 86400 }],
  ["none", "Untimed", null],
];

/** Against bots only the game is untimed unless chosen; with another person it is
 * 5+3 (docs/web.md "Time controls"). */
export const HUMAN_DEFAULT = "5+3";
export const BOTS_DEFAULT = "none";

export function presetClock(value) {
  const preset = PRESETS.find(([v]) => v === value);
  return preset ? preset[2] : null;
}

/** `seats`: the lobby form's choices ("you", "open", "bot:…"); a game where every
 * other seat is a bot defaults to untimed, any other to HUMAN_DEFAULT. */
export function defaultPreset(seats) {
  const others = seats.filter((c) => c !== "you");
  return others.length && others.every((c) => c.startsWith("bot:")) ? BOTS_DEFAULT : HUMAN_DEFAULT;
}

function duration(seconds) {
  if (seconds % 86400 === 0) return seconds === 86400 ? "1 day" : `${seconds / 86400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? "1 hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "1 minute" : `${seconds / 60} minutes`;
  return `${seconds} s`;
}

/** "5+3", "1 day a move", "untimed"; a bank not in whole minutes in seconds ("30 s+0"). */
export function clockWords(clock) {
  if (!clock) return "untimed";
  if (clock.per_move) return `${duration(clock.per_move)} a move`;
  const initial = clock.initial || 0;
  const bank = initial % 60 === 0 ? String(initial / 60) : `${initial} s`;
  return `${bank}+${clock.increment || 0}`;
}

/** A lobby row's or the table head's marks: the time control, "rated", "seeded". */
export function gameTags(game) {
  return [
    h("span", { class: ["tag", "tag-clock", !game.clock && "tag-untimed"], dataset: { clock: clockWords(game.clock) }, title: "Time control" }, clockWords(game.clock)),
    game.rated ? h("span", { class: "tag tag-rated", title: "Rated: counts for the players' ratings; only accounts sit." }, "rated") : null,
    game.seeded
      ? h("span", { class: "tag tag-seeded", title: "Created with a chosen seed: its draws could be known in advance. It never counts for a rating." }, "seeded")
      : null,
  ];
}
