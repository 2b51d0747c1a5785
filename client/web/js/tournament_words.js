// Tournaments in words (docs/tournaments.md "Pages"), shared by the list, the
// tournament's page, the profile's history and the table's line: what a tournament
// is ("Arena · Splendor Duel · 3+2"), when it starts or ends, and its refusals.

import { ApiError, serverNow } from "./api.js";
import { h } from "./dom.js";
import { formatClock, formatNumber, t, tn, tp } from "./i18n.js";
import { clockWords } from "./timecontrol.js";
import { variantName } from "./words.js";

export const KIND_WORDS = { arena: tp("tournament", "Arena"), swiss: tp("tournament", "Swiss") };
export const STATUS_WORDS = { upcoming: tp("tournament", "Upcoming"), running: tp("tournament", "Running"), finished: tp("tournament", "Finished") };

export function tournamentHref(id) {
  return `#/tournament/${encodeURIComponent(id)}`;
}

/** A tournament's name. One created without a name (and every scheduled one) has
 * none (`name` is ""): it is named in the reader's words, "Splendor Duel 3+2 Arena". */
export function tournamentName(s) {
  if (s.name) return s.name;
  const args = { game: variantName(s.variant), clock: clockWords(s.clock) };
  return s.kind === "swiss" ? t("{game} {clock} Swiss", args) : t("{game} {clock} Arena", args);
}

/** "Arena · Splendor Duel · 3+2", "Swiss · Splendor · 5+3 · 7 rounds". */
export function kindLine(s) {
  const line = t("{kind} · {game} · {clock}", { kind: KIND_WORDS[s.kind] || s.kind, game: variantName(s.variant), clock: clockWords(s.clock) });
  if (s.kind === "swiss" && Number.isInteger(s.rounds)) return t("{line} · {rounds}", { line, rounds: tn("{n} round", "{n} rounds", s.rounds) });
  return line;
}

/** "Round 3 of 7" (Swiss), or "" (an arena, or a Swiss not started). */
export function roundWords(s) {
  if (s.kind !== "swiss" || !s.round) return "";
  return t("Round {round} of {rounds}", { round: s.round, rounds: s.rounds });
}

/** The moment the tournament's next change is due: its start, else an arena's end. */
function dueMs(s) {
  if (s.status === "upcoming") return s.starts_ms;
  if (s.status === "running" && Number.isInteger(s.ends_ms)) return s.ends_ms;
  return null;
}

/** "Starts in 4:59", "Ends in 27:03", "Starting…" (the moment passed, the server not
 * heard yet), "" (a Swiss running, or finished). */
export function countdownWords(s, now = serverNow()) {
  const due = dueMs(s);
  if (due === null) return "";
  const left = due - now;
  if (left <= 0) return s.status === "upcoming" ? t("Starting…") : t("Ending…");
  const time = formatClock(Math.ceil(left / 1000) * 1000);
  return s.status === "upcoming" ? t("Starts in {time}", { time }) : t("Ends in {time}", { time });
}

/** A countdown element kept up to date by `tickCountdowns` (one timer a page). */
export function countdown(s, id = null) {
  return h("span", { class: "countdown", id, dataset: { due: String(dueMs(s) ?? ""), status: s.status, kind: s.kind } }, countdownWords(s));
}

/** Write every countdown of `root` again; returns whether one is due (reached 0). */
export function tickCountdowns(root) {
  let due = false;
  for (const el of root.querySelectorAll(".countdown[data-due]")) {
    const at = Number(el.dataset.due);
    if (!el.dataset.due || !Number.isFinite(at)) continue;
    const words = countdownWords({ status: el.dataset.status, kind: el.dataset.kind, starts_ms: at, ends_ms: at });
    if (el.textContent !== words) el.textContent = words;
    if (at <= serverNow()) due = true;
  }
  return due;
}

/** "12 players". */
export function playersWords(n) {
  return tn("{n} player", "{n} players", n);
}

/** "1st place", "2nd place", "3rd place": a place on the podium. */
export function podiumWords(rank) {
  return [t("1st place"), t("2nd place"), t("3rd place")][rank - 1] || t("{n}th place", { n: rank });
}

/** "1st of 12". */
export function placeOfWords(rank, players) {
  const args = { players };
  const words = [t("1st of {players}", args), t("2nd of {players}", args), t("3rd of {players}", args)][rank - 1];
  return words || t("{n}th of {players}", { n: rank, players });
}

/** "12 points". */
export function tournamentPoints(n) {
  return tn("{n} point", "{n} points", n);
}

/** A tournament's refusal in the page's words (its reason key), else the server's own
 * sentence (already in the reader's language). */
export function tournamentRefusal(err) {
  if (!(err instanceof ApiError)) return String(err && err.message ? err.message : err);
  const key = err.reason ? err.reason.key : "";
  const given = (err.reason && err.reason.args) || {};
  switch (key) {
    case "tournament.already_joined":
      return t("You are already in this tournament.");
    case "tournament.left_tournament":
      return t("You left this tournament: you can't join it again.");
    case "tournament.not_in_tournament":
      return t("You are not in this tournament.");
    case "tournament.already_paused":
      return t("You are already paused.");
    case "tournament.log_in":
      return t("Log in to take part in tournaments.");
    case "tournament.too_many_open":
      return tn("You may have at most {n} tournament of yours planned or running.", "You may have at most {n} tournaments of yours planned or running.", Number(given.most) || 2);
    case "rate_limited.tournaments":
      return t("You have created as many tournaments as you may today: try again in {time}.", { time: formatClock((Number(given.wait) || 1) * 1000) });
    case "tournament.full":
      return tn("This tournament is full: it takes at most {n} player.", "This tournament is full: it takes at most {n} players.", Number(given.most) || 500);
    case "tournament.tournament_over":
      return t("This tournament is over.");
    case "tournament.not_started":
      return t("This tournament has not started yet.");
    default:
      break;
  }
  if (err.status === 401) return t("Log in to take part in tournaments.");
  return err.message;
}

/** A number in the language's digits, or "–" for none (a tie-break before any game). */
export function numberOrDash(n) {
  return typeof n === "number" && Number.isFinite(n) ? formatNumber(n) : "–";
}
