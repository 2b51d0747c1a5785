// The leaderboard of a variant (`#/leaderboard/{variant}`): the best 100 by displayed
// rating (docs/ratings.md), bots marked, each name a link to its profile. An account is
// listed once it is no longer provisional (LISTED).

import { ApiError, leaderboard } from "./api.js";
import { h, mount } from "./dom.js";
import { formatNumber, t } from "./i18n.js";
import { botName, variantName } from "./words.js";

export const RATED_VARIANTS = ["classic", "duel"];

/** An account is listed after this many counted rated games against this many
 * different opponents (server/skill.py's LISTED_GAMES and LISTED_OPPONENTS). */
export const LISTED = { games: 10, opponents: 5 };
const LISTED_WORDS = t("A player is listed after {games} rated games against {opponents} different opponents.", LISTED);

export function playerHref(username) {
  return `#/player/${encodeURIComponent(username)}`;
}

/** A bot's id ("bot:greedy") as a person reads it. */
export function playerWords(username, bot) {
  return bot ? botName(username.replace(/^bot:/, "")) : username;
}

export function botMark(bot) {
  return bot ? h("span", { class: "tag tag-bot", title: t("A bot: its rating shows its strength on the players' scale") }, t("bot")) : null;
}

export async function showLeaderboard(main, variant) {
  const tabs = h(
    "nav",
    { class: "segmented variant-tabs", "aria-label": t("Game") },
    RATED_VARIANTS.map((v) => h("a", { class: ["segment", v === variant && "checked"], href: `#/leaderboard/${v}`, "aria-current": v === variant ? "page" : null }, variantName(v))),
  );
  const box = h("div", { class: "leaderboard-body" }, h("p", { class: "muted" }, t("Loading…")));
  mount(main, h("section", { class: "panel leaderboard", "aria-labelledby": "board-title" }, h("h1", { id: "board-title", class: "panel-title" }, t("Leaderboard: {game}", { game: variantName(variant) })), tabs, box));
  let players;
  try {
    players = (await leaderboard(variant, 100)).players;
  } catch (err) {
    mount(box, h("p", { class: "form-error", role: "alert" }, err instanceof ApiError ? err.message : String(err)));
    return;
  }
  if (!players.length) {
    mount(box, h("p", { class: "empty" }, t("Nobody is listed yet. {listed}", { listed: LISTED_WORDS })));
    return;
  }
  mount(
    box,
    h("p", { class: "muted board-note" }, LISTED_WORDS),
    h(
      "table",
      { class: "board-table", id: "leaderboard" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("Player")), h("th", { scope: "col", class: "num" }, t("Rating")), h("th", { scope: "col", class: "num" }, t("Games")))),
      h(
        "tbody",
        {},
        players.map((p, i) =>
          h(
            "tr",
            { dataset: { player: p.username } },
            h("td", {}, formatNumber(i + 1)),
            h("td", {}, h("a", { href: playerHref(p.username) }, playerWords(p.username, p.bot)), " ", botMark(p.bot)),
            h("td", { class: "num rating" }, formatNumber(p.rating)),
            h("td", { class: "num" }, formatNumber(p.games)),
          ),
        ),
      ),
    ),
  );
}
