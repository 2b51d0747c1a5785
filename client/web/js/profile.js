// A player's profile (`#/player/{username}`): its rating in each variant with a graph
// over time (provisional until the account is on the leaderboard), its record and win
// rate, and its newest games with replay links, a rated game that did not count said so.

import { ApiError, playerProfile, playerTournaments } from "./api.js";
import { h, listWords, mount } from "./dom.js";
import { changeTag } from "./seatratings.js";
import { formatDate, formatNumber, formatPercent, t, tn, tp } from "./i18n.js";
import { botMark, LISTED, playerWords, RATED_VARIANTS } from "./leaderboard.js";
import { ratingGraph } from "./ratinggraph.js";
import { seatLabel, variantName } from "./words.js";
import { kindLine, placeOfWords, tournamentHref, tournamentName, tournamentPoints } from "./tournament_words.js";

export async function showProfile(main, username) {
  mount(main, h("p", { class: "loading" }, t("Loading…")));
  let p;
  try {
    p = await playerProfile(username);
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? t("There is no player {name}.", { name: username }) : err.message || String(err);
    mount(main, h("div", { class: "notice" }, h("p", { role: "alert" }, text), h("a", { class: "btn", href: "#/" }, t("Back to the lobby"))));
    return;
  }
  const { games, wins } = p.record;
  const rate = games ? Math.round((100 * wins) / games) : null;
  mount(
    main,
    h(
      "div",
      { class: "profile", dataset: { player: p.username } },
      h(
        "section",
        { class: "panel", "aria-labelledby": "profile-title" },
        h("h1", { id: "profile-title", class: "profile-name" }, playerWords(p.username, p.bot), " ", botMark(p.bot)),
        h("p", { class: "muted", id: "record" }, games ? recordWords(games, wins, rate) : t("No finished game yet.")),
        h("div", { class: "profile-ratings" }, RATED_VARIANTS.map((v) => ratingPanel(v, p.ratings[v], p.history[v] || []))),
      ),
      p.bot ? null : tournamentsPanel(p.username),
      h("section", { class: "panel", "aria-labelledby": "games-title" }, h("h2", { id: "games-title", class: "panel-title" }, t("Games")), h("div", { class: "game-list", id: "player-games" }, p.games.length ? p.games.map((g) => gameRow(g)) : h("p", { class: "empty" }, t("No finished game yet.")))),
    ),
  );
}

/** The player's tournaments, newest first (GET /api/players/{username}/tournaments):
 * each one's name as a link, what it was, the place and points; filled when it comes. */
function tournamentsPanel(username) {
  const list = h("div", { class: "game-list", id: "player-tournaments" }, h("p", { class: "muted" }, t("Loading…")));
  const panel = h("section", { class: "panel", "aria-labelledby": "tournaments-title", id: "tournaments-panel" }, h("h2", { id: "tournaments-title", class: "panel-title" }, t("Tournaments")), list);
  playerTournaments(username).then(
    ({ tournaments }) => mount(list, tournaments.length ? tournaments.map(tournamentRow) : h("p", { class: "empty" }, t("No tournament yet."))),
    (err) => mount(list, h("p", { class: "empty" }, err instanceof ApiError && err.status === 404 ? t("No tournament yet.") : err.message)),
  );
  return panel;
}

function tournamentRow(entry) {
  const s = entry.tournament;
  const running = s.status !== "finished";
  return h(
    "div",
    { class: "game-row", dataset: { tournament: s.id, rank: String(entry.rank), points: String(entry.points) } },
    h(
      "div",
      { class: "game-row-body" },
      h("strong", { class: ["outcome", entry.rank === 1 && !running && "outcome-won"] }, running ? t("{place} so far", { place: placeOfWords(entry.rank, entry.players) }) : placeOfWords(entry.rank, entry.players)),
      h("span", {}, tournamentPoints(entry.points)),
      h("a", { href: tournamentHref(s.id), class: "tournament-name" }, tournamentName(s)),
      h("span", { class: "muted" }, t("{line} · {date}", { line: kindLine(s), date: formatDate(s.starts_ms) })),
    ),
  );
}

/** "12 games finished, 5 wins: 42% won". */
function recordWords(games, wins, rate) {
  const args = { games: tn("{n} game", "{n} games", games), wins: tn("{n} win", "{n} wins", wins), rate: formatPercent(rate / 100) };
  return t("{games} finished, {wins}: {rate} won", args);
}

/** How far a provisional rating is from the leaderboard. */
function provisionalWords(rating) {
  const args = {
    listedGames: LISTED.games,
    listedOpponents: LISTED.opponents,
    games: tn("{n} game", "{n} games", rating.games),
    opponents: tn("{n} opponent", "{n} opponents", rating.opponents || 0),
  };
  return t("Provisional: on the leaderboard after {listedGames} rated games against {listedOpponents} different opponents (so far {games} against {opponents}).", args);
}

function ratingPanel(variant, rating, history) {
  const provisional = !!rating.provisional;
  return h(
    "div",
    { class: "rating-panel", dataset: { variant, provisional: String(provisional) } },
    h("h2", { class: "rating-head" }, variantName(variant), " ", h("b", { class: "rating", "aria-label": t("rating {rating}", { rating: rating.rating }) }, formatNumber(rating.rating))),
    h(
      "p",
      { class: "muted" },
      rating.games ? tn("{n} rated game", "{n} rated games", rating.games) : t("No rated game yet: a newcomer starts at {rating}.", { rating: 1500 }),
      provisional ? [" ", h("span", { class: "tag tag-provisional" }, t("provisional"))] : null,
    ),
    provisional
      ? h(
          "p",
          { class: "muted provisional-note" },
          provisionalWords(rating),
        )
      : null,
    history.length ? ratingGraph(history, t("Rating in {game}", { game: variantName(variant) })) : null,
  );
}

/** Why a rated game moved no rating (docs/ratings.md), in plain words. */
const NOT_COUNTED = {
  early_end: t("it ended before every player had made two moves"),
  daily_limit: t("these players had already played 3 rated games that day (UTC)"),
  pending: t("not counted yet"),
};

function countedNote(g) {
  if (!g.rated || g.counted !== false) return null;
  const why = NOT_COUNTED[g.not_counted] || "";
  return h("span", { class: "not-counted", dataset: { reason: g.not_counted || "" } }, why ? t("Did not count for ratings: {why}.", { why }) : t("Did not count for ratings."));
}

/** What the game was for this player: "Won", "Lost", "2nd of 4", "Tied for 1st". */
function outcome(g) {
  const r = g.result;
  if (!r || !r.ranks) return { won: false, words: STATUS_WORDS[g.status] || g.status };
  const rank = r.ranks[g.seat];
  const tied = r.ranks.filter((x) => x === rank).length > 1;
  if (rank === 1 && !tied) return { won: true, words: t("Won") };
  if (g.players === 2) return { won: false, words: tied ? t("Draw") : t("Lost") };
  const args = { n: rank, players: g.players };
  const words = tied
    ? [t("Tied for 1st of {players}", args), t("Tied for 2nd of {players}", args), t("Tied for 3rd of {players}", args)][rank - 1] || t("Tied for {n}th of {players}", args)
    : [t("1st of {players}", args), t("2nd of {players}", args), t("3rd of {players}", args), t("4th of {players}", args)][rank - 1] || t("{n}th of {players}", args);
  return { won: false, words };
}

// A game without a result, by its status.
const STATUS_WORDS = { open: tp("outcome", "open"), live: tp("outcome", "live"), finished: tp("outcome", "finished"), aborted: tp("outcome", "aborted") };

/** The player's rating change in a counted game (docs/ratings.md): "+12", "−8". */
function ownChange(g) {
  const mine = (g.seats || []).find((s) => s.seat === g.seat);
  return mine && Number.isInteger(mine.delta) ? changeTag(mine.delta) : null;
}

function gameRow(g) {
  const seats = g.seats || [];
  const others = seats.filter((s) => s.seat !== g.seat).map((s) => seatLabel(seats, s));
  const result = outcome(g);
  const ended = g.ended_at ? formatDate(g.ended_at) : "";
  const game = variantName(g.variant);
  const line = g.rated ? t("{game} · rated", { game }) : game;
  return h(
    "div",
    { class: "game-row", dataset: { game: g.id, status: g.status } },
    h(
      "div",
      { class: "game-row-body" },
      h("strong", { class: ["outcome", result.won && "outcome-won"] }, result.words),
      ownChange(g),
      h("span", {}, others.length ? t("against {players}", { players: listWords(others) }) : ""),
      h("span", { class: "muted" }, ended ? t("{line} · {date}", { line, date: ended }) : line),
      countedNote(g),
    ),
    h("div", { class: "game-row-actions" }, h("a", { class: "btn btn-small", href: `#/replay/${encodeURIComponent(g.id)}`, dataset: { key: "replay" } }, t("Replay"))),
  );
}
