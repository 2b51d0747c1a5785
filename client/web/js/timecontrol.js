// Time controls in words (RULES.md part 3): the lobby's presets, "5+3" in a row,
// "seeded" where a game was created with a seed. A clock is the summary's or the
// view's `clock` ({initial, increment} in seconds, or {per_move}; null untimed).

import { h } from "./dom.js";
import { formatNumber, t, tn } from "./i18n.js";

/** The lobby's choices: [value, label, clock sent to POST /api/games (null: untimed)]. */
export const PRESETS = [
  ["3+2", t("{clock} · blitz", { clock: clockWords({ initial: 180, increment: 2 }) }), { initial: 180, increment: 2 }],
  ["5+3", t("{clock} · blitz", { clock: clockWords({ initial: 300, increment: 3 }) }), { initial: 300, increment: 3 }],
  ["10+5", t("{clock} · rapid", { clock: clockWords({ initial: 600, increment: 5 }) }), { initial: 600, increment: 5 }],
  ["1d", clockWords({ per_move: 86400 }), { per_move: 86400 }],
  ["none", t("Untimed"), null],
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

/** "2 days a move", "3 hours a move", "30 s a move". */
function perMove(seconds) {
  if (seconds % 86400 === 0) return tn("{n} day a move", "{n} days a move", seconds / 86400);
  if (seconds % 3600 === 0) return tn("{n} hour a move", "{n} hours a move", seconds / 3600);
  if (seconds % 60 === 0) return tn("{n} minute a move", "{n} minutes a move", seconds / 60);
  return t("{n} s a move", { n: seconds });
}

/** "5+3", "1 day a move", "untimed"; a bank not in whole minutes in seconds ("30 s+0"). */
export function clockWords(clock) {
  if (!clock) return t("untimed");
  if (clock.per_move) return perMove(clock.per_move);
  const initial = clock.initial || 0;
  const bank = initial % 60 === 0 ? formatNumber(initial / 60) : t("{n} s", { n: initial });
  return `${bank}+${formatNumber(clock.increment || 0)}`;
}


/** A lobby row's or the table head's marks: the time control, "rated", "seeded". */
export function gameTags(game) {
  return [
    h("span", { class: ["tag", "tag-clock", !game.clock && "tag-untimed"], dataset: { clock: clockWords(game.clock) }, title: t("Time control") }, clockWords(game.clock)),
    game.rated ? h("span", { class: "tag tag-rated", title: t("Rated: counts for the players' ratings; only accounts sit.") }, t("rated")) : null,
    game.seeded
      ? h("span", { class: "tag tag-seeded", title: t("Created with a chosen seed: its draws could be known in advance. It never counts for a rating.") }, t("seeded"))
      : null,
  ];
}
