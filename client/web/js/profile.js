// A player's profile (`#/player/{username}`): its rating in each variant with a graph
// over time (provisional until the account is on the leaderboard), its record and win
// rate, and its newest games with replay links, a rated game that did not count said so.

import { ApiError, playerProfile } from "./api.js";
import { h, listWords, mount, plural } from "./dom.js";
import { botMark, LISTED, playerWords, RATED_VARIANTS } from "./leaderboard.js";
import { ratingGraph } from "./ratinggraph.js";
import { seatLabel, variantName } from "./words.js";

export async function showProfile(main, username) {
  mount(main, h("p", { class: "loading" }, "Loading…"));
  let p;
  try {
    p = await playerProfile(username);
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? `There is no player ${username}.` : err.message || String(err);
    mount(main, h("div", { class: "notice" }, h("p", { role: "alert" }, text), h("a", { class: "btn", href: "#/" }, "Back to the lobby")));
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
        h("p", { class: "muted", id: "record" }, games ? `${plural(games, "game")} finished, ${plural(wins, "win")}: ${rate}% won` : "No finished game yet."),
        h("div", { class: "profile-ratings" }, RATED_VARIANTS.map((v) => ratingPanel(v, p.ratings[v], p.history[v] || []))),
      ),
      h("section", { class: "panel", "aria-labelledby": "games-title" }, h("h2", { id: "games-title", class: "panel-title" }, "Games"), h("div", { class: "game-list", id: "player-games" }, p.games.length ? p.games.map((g) => gameRow(g)) : h("p", { class: "empty" }, "No finished game yet."))),
    ),
  );
}

function ratingPanel(variant, rating, history) {
  const provisional = !!rating.provisional;
  return h(
    "div",
    { class: "rating-panel", dataset: { variant, provisional: String(provisional) } },
    h("h2", { class: "rating-head" }, variantName(variant), " ", h("b", { class: "rating", "aria-label": `rating ${rating.rating}` }, String(rating.rating))),
    h(
      "p",
      { class: "muted" },
      rating.games ? `${plural(rating.games, "rated game")}` : "No rated game yet: a newcomer starts at 1500.",
      provisional ? [" ", h("span", { class: "tag tag-provisional" }, "provisional")] : null,
    ),
    provisional
      ? h(
          "p",
          { class: "muted provisional-note" },
          `Provisional: on the leaderboard after ${LISTED.games} rated games against ${LISTED.opponents} different opponents (so far ${plural(rating.games, "game")} against ${plural(rating.opponents || 0, "opponent")}).`,
        )
      : null,
    history.length ? ratingGraph(history, `Rating in ${variantName(variant)}`) : null,
  );
}

/** Why a rated game moved no rating (docs/ratings.md), in plain words. */
const NOT_COUNTED = {
  early_end: "it ended before every player had made two moves",
  daily_limit: "these players had already played 3 rated games that day (UTC)",
  pending: "not counted yet",
};

function countedNote(g) {
  if (!g.rated || g.counted !== false) return null;
  const why = NOT_COUNTED[g.not_counted] || "";
  return h("span", { class: "not-counted", dataset: { reason: g.not_counted || "" } }, `Did not count for ratings${why ? `: ${why}` : ""}.`);
}

/** What the game was for this player: "Won", "Lost", "2nd of 4", "Tied for 1st". */
function outcome(g) {
  const r = g.result;
  if (!r || !r.ranks) return g.status;
  const rank = r.ranks[g.seat];
  const tied = r.ranks.filter((x) => x === rank).length > 1;
  if (g.players === 2) return tied ? "Draw" : rank === 1 ? "Won" : "Lost";
  const nth = ["1st", "2nd", "3rd", "4th"][rank - 1] || `${rank}th`;
  return rank === 1 && !tied ? "Won" : `${tied ? "Tied for " : ""}${nth} of ${g.players}`;
}

function gameRow(g) {
  const seats = g.seats || [];
  const others = seats.filter((s) => s.seat !== g.seat).map((s) => seatLabel(seats, s));
  const result = outcome(g);
  const ended = g.ended_at ? new Date(g.ended_at).toLocaleDateString() : "";
  return h(
    "div",
    { class: "game-row", dataset: { game: g.id, status: g.status } },
    h(
      "div",
      { class: "game-row-body" },
      h("strong", { class: ["outcome", result === "Won" && "outcome-won"] }, result),
      h("span", {}, others.length ? `against ${listWords(others)}` : ""),
      h("span", { class: "muted" }, `${variantName(g.variant)}${g.rated ? " · rated" : ""}${ended ? ` · ${ended}` : ""}`),
      countedNote(g),
    ),
    h("div", { class: "game-row-actions" }, h("a", { class: "btn btn-small", href: `#/replay/${encodeURIComponent(g.id)}`, dataset: { key: "replay" } }, "Replay")),
  );
}
