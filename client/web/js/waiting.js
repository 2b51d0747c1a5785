// The waiting room: the banner of an open game. Everyone sees how many players are
// missing and how long the game has waited; a seated player (in the lobby's flow,
// the one who created it, on the first seat) may fill an open seat with a bot
// (`POST /seats {"bot"}`) or cancel the game (the `abort` action, offered while the
// view's `legal` lists it: the game is aborted and leaves the open list).

import { ApiError, takeSeat } from "./api.js";
import { h, mount } from "./dom.js";
import { t, tn } from "./i18n.js";
import { howtoLink } from "./howto.js";
import { sharePanel } from "./share.js";

const BOT_LEVELS = [
  ["greedy", t("Greedy bot")],
  ["random", t("Random bot")],
  ["mcts", t("MCTS bot (strongest)")],
];

/** "for 5 seconds", "for 3 min", "for 2 hours" since an ISO time; "" when unknown. */
export function waitedWords(iso, now = Date.now()) {
  const since = Date.parse(iso || "");
  if (!Number.isFinite(since)) return "";
  const seconds = Math.max(0, Math.round((now - since) / 1000));
  if (seconds < 60) return tn("for {n} second", "for {n} seconds", seconds);
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return tn("for {n} min", "for {n} min", minutes);
  return tn("for {n} hour", "for {n} hours", Math.floor(minutes / 60));
}

/** "Open for 3 min · it expires in 27 min unless its seats are taken": `openSeconds`
 * is how long an open game may wait (the catalog's `rules.open_game_seconds`). */
export function waitedLine(iso, openSeconds, now = Date.now()) {
  const waited = waitedWords(iso, now);
  if (!waited) return "";
  const since = Date.parse(iso);
  if (!openSeconds) return t("Open {waited}", { waited });
  const left = Math.ceil((since + openSeconds * 1000 - now) / 60000);
  if (left > 0) return tn("Open {waited} · it expires in {n} min unless its seats are taken", "Open {waited} · it expires in {n} min unless its seats are taken", left, { waited });
  return t("Open {waited} · it expires now", { waited });
}

/** Brings every "waited" line under `root` up to date (called every few seconds). */
export function tickWaited(root) {
  for (const el of root.querySelectorAll("[data-since]")) el.textContent = waitedLine(el.dataset.since, Number(el.dataset.openSeconds) || 0);
}

/**
 * The banner of an open game. `seated`: this page holds a seat (it may act);
 * `cancel()` sends the abort action and resolves or rejects like a command.
 */
export function waitingBanner({ gameId, summary, view, seated, cancel, openSeconds = 0 }) {
  const missing = summary.players - view.players.length;
  const rematch = !!summary.rematch_of;
  const message = h("p", { class: "form-error waiting-message", role: "alert", id: "waiting-message" });
  const fail = (err) => {
    message.textContent = err instanceof ApiError || err.message ? err.message : String(err);
  };

  const level = h("select", { id: "bot-level", "aria-label": t("Bot level") }, BOT_LEVELS.map(([value, label]) => h("option", { value }, label)));
  const fill = h(
    "button",
    {
      type: "button",
      class: "btn",
      id: "fill-with-bot",
      onclick: async () => {
        fill.disabled = true;
        message.textContent = "";
        try {
          await takeSeat(gameId, { bot: level.value }); // the socket brings the new seat
        } catch (err) {
          fail(err);
          fill.disabled = false;
        }
      },
    },
    t("Fill a seat with a bot"),
  );

  const canCancel = (view.legal || []).some((a) => a.kind === "abort");
  const confirmBox = h("div", { class: "cancel-confirm", id: "cancel-confirm", hidden: true });
  const cancelButton = h(
    "button",
    {
      type: "button",
      class: "btn btn-quiet",
      id: "cancel-game",
      onclick: () => {
        confirmBox.hidden = false;
        confirmBox.querySelector("button").focus();
      },
    },
    t("Cancel the game"),
  );
  mount(
    confirmBox,
    h("span", {}, t("Cancel this game for everyone? It leaves the list of open games.")),
    h(
      "button",
      {
        type: "button",
        class: "btn btn-primary",
        id: "cancel-yes",
        onclick: async (e) => {
          const button = e.currentTarget; // null once the event is over
          button.disabled = true;
          message.textContent = "";
          try {
            await cancel();
          } catch (err) {
            fail(err);
            button.disabled = false;
          }
        },
      },
      t("Yes, cancel it"),
    ),
    h(
      "button",
      {
        type: "button",
        class: "btn btn-quiet",
        onclick: () => {
          confirmBox.hidden = true;
          cancelButton.focus();
        },
      },
      t("Keep waiting"),
    ),
  );

  return h(
    "section",
    { class: "banner banner-open", id: "waiting-room", "aria-label": t("Waiting for players") },
    h("h2", {}, tn("Waiting for {n} more player", "Waiting for {n} more players", missing)),
    h("p", { class: "waited", id: "waited", dataset: { since: summary.created_at || "", openSeconds: String(openSeconds) } }, waitedLine(summary.created_at, openSeconds)),
    // A rematch keeps its seats for the finished game's players: nobody else joins.
    rematch
      ? h("p", { id: "rematch-waiting" }, t("A rematch: the other players accept it on the finished game's page; it starts by itself when the last one has."))
      : [h("p", {}, t("Send this address to a friend; the game starts by itself when the last seat is taken.")), sharePanel(gameId)],
    h("p", { class: "waiting-howto" }, howtoLink(summary.variant, { newTab: true })),
    seated
      ? h(
          "div",
          { class: "banner-actions waiting-actions" },
          rematch ? null : h("div", { class: "fill-seat" }, level, fill),
          canCancel ? cancelButton : null,
          confirmBox,
        )
      : null,
    seated ? message : null,
  );
}

/** Why a game was aborted, in words, from its GameAborted event (null before the
 * page has it). `names.of(seat)` names a seat. */
export function abortedWords(event, names) {
  if (!event) return null;
  const who = event.seat === null || event.seat === undefined ? t("A player") : names.of(event.seat);
  if (event.reason === "expired") return t("Nobody took the open seats in time, or everyone seated left: the game expired without being played.");
  if (event.reason === "first_move") return t("{who} did not make a first move in time: the game was aborted, without a result.", { who });
  if (event.reason === "idle") return t("No player came back to the table for a day: the game ended without a result.");
  return t("{who} cancelled the game before it was played: it has no result.", { who });
}

/** The banner of an aborted game (`event`: its GameAborted, when the page has it). */
export function abortedBanner(event, names) {
  return h(
    "section",
    { class: "banner banner-aborted", id: "aborted-banner", "aria-label": t("Game aborted") },
    h("h2", {}, event && (event.reason === "expired" || event.reason === "idle") ? t("Game expired") : t("Game cancelled")),
    h("p", {}, abortedWords(event, names) || t("The game was aborted: it has no result.")),
    h("div", { class: "banner-actions" }, h("a", { class: "btn btn-primary", href: "#/" }, t("Back to the lobby"))),
  );
}
