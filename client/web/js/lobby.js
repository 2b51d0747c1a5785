// The lobby (`#/`): start a game, join an open one, watch a live one, replay a
// finished one, and come back to the games this browser sits at.

import { accountName, onAccountChange, whenAccountKnown } from "./account.js";
import { audienceWords } from "./audience.js";
import { ApiError, createGame, fetchView, gameSummary, listGames, takeSeat } from "./api.js";
import { h, listWords, mount } from "./dom.js";
import { formatChange, formatNumber, formatRelative, t, tn, tp } from "./i18n.js";
import { reasonWords } from "./duel_words.js";
import { howtoPanel } from "./howto.js";
import { pairingPanel } from "./pairing.js";
import { lobbyTournaments } from "./tournaments.js";
import { mySeats, playerName, rememberName, rememberSeat } from "./seats.js";
import { roundOfView } from "./turns.js";
import { waitedWords } from "./waiting.js";
import { LEFT_WIN_WORDS, seatLabel, variantName } from "./words.js";
import { defaultPreset, gameTags, presetClock, PRESETS } from "./timecontrol.js";

const REFRESH_MS = 8000;
const SEAT_CHOICES = [
  ["you", t("You")],
  ["open", t("Open seat: a friend joins")],
  ["bot:random", t("Bot: random")],
  ["bot:greedy", t("Bot: greedy")],
  ["bot:mcts", t("Bot: MCTS (strongest)")],
];

/** `?seed=42` in the page address fixes the game's random draws (tests, tournaments). */
function seedFromAddress() {
  const raw = new URLSearchParams(window.location.search).get("seed");
  if (raw === null || !/^-?\d+$/.test(raw)) return undefined;
  return Number(raw);
}

export function showLobby(main) {
  const seed = seedFromAddress();
  const { form, showAccount } = newGameForm(seed);
  const forgetAccount = onAccountChange(showAccount);
  whenAccountKnown().then(showAccount);
  const pairing = pairingPanel();
  const lists = {
    mine: h("div", { class: "game-list", id: "my-games" }),
    open: h("div", { class: "game-list", id: "open-games" }),
    live: h("div", { class: "game-list", id: "live-games" }),
    finished: h("div", { class: "game-list", id: "finished-games" }),
  };
  mount(
    main,
    h(
      "div",
      { class: "lobby" },
      h(
        "div",
        { class: "lobby-col" },
        pairing.panel,
        form,
        lobbyTournaments(),
        howtoPanel(),
        h("section", { class: "panel", "aria-labelledby": "mine-title", id: "mine-panel", hidden: true }, h("h2", { id: "mine-title", class: "panel-title" }, t("Your games")), lists.mine),
      ),
      h(
        "div",
        { class: "lobby-col" },
        h("section", { class: "panel", "aria-labelledby": "open-title" }, h("h2", { id: "open-title", class: "panel-title" }, t("Open games: join one")), lists.open),
        h("section", { class: "panel", "aria-labelledby": "live-title" }, h("h2", { id: "live-title", class: "panel-title" }, t("Live games: watch")), lists.live),
        h("section", { class: "panel", "aria-labelledby": "finished-title" }, h("h2", { id: "finished-title", class: "panel-title" }, t("Finished games: replay")), lists.finished),
      ),
    ),
  );
  let stopped = false;
  const refresh = () => {
    if (stopped || document.hidden) return;
    refreshLists(lists).catch(() => {});
  };
  refresh();
  const timer = window.setInterval(refresh, REFRESH_MS);
  return () => {
    stopped = true;
    forgetAccount();
    window.clearInterval(timer);
    pairing.stop();
  };
}

// ---------------------------------------------------------------- new game

/** Draw `box` again with `draw()`, focus kept: a control of the box that had focus
 * (a radio moved with an arrow key, a seat's select changed with one) is replaced by
 * the drawing, so focus goes to its replacement, found by id, not to the page. */
function keepFocus(box, draw) {
  const active = document.activeElement;
  const id = active && active !== document.body && box.contains(active) ? active.id : "";
  draw();
  if (!id) return;
  const again = document.getElementById(id);
  if (again && box.contains(again)) again.focus();
}

function newGameForm(seed) {
  const nameInput = h("input", { id: "player-name", name: "name", type: "text", maxlength: "24", autocomplete: "nickname", value: playerName(), placeholder: t("Your name") });
  const variant = h(
    "select",
    {
      id: "variant",
      name: "variant",
      onchange: () => {
        // Splendor Duel is for two: the player count follows the game.
        if (variant.value === "duel") players = 2;
        drawPlayers();
        drawSeats();
      },
    },
    h("option", { value: "classic" }, t("Splendor (2–4 players)")),
    h("option", { value: "duel" }, t("Splendor Duel (2 players)")),
  );
  const seatsBox = h("div", { class: "seat-choices", id: "seat-choices" });
  const playersBox = h("div", { class: "segmented", role: "radiogroup", "aria-label": t("Players") });
  const error = h("p", { class: "form-error", role: "alert", id: "new-game-error" });
  let players = 2;
  let choices = ["you", "open", "open", "open"];
  // The time control follows the seats (untimed against bots only, else timed)
  // until the player picks one.
  let timePicked = false;
  const timeControl = h(
    "select",
    { id: "time-control", name: "time-control", onchange: () => (timePicked = true) },
    PRESETS.map(([value, label]) => h("option", { value }, label)),
  );
  const followSeats = () => {
    if (!timePicked) timeControl.value = defaultPreset(choices.slice(0, players));
  };

  // Logged in (docs/accounts.md), "You" is the account, and the game may be rated.
  const nameField = h("div", { class: "field", id: "name-field" }, h("label", { for: "player-name" }, t("Your name")), nameInput);
  const playingAs = h("p", { class: "hint", id: "playing-as", hidden: true });
  const rated = h("input", { type: "checkbox", id: "rated", name: "rated" });
  const ratedField = h(
    "div",
    { class: "field rated-field", id: "rated-field", hidden: true },
    rated,
    h("label", { for: "rated" }, t("Rated")),
    h("span", { class: "hint" }, t("counts for the ratings; every player logs in")),
  );
  const showAccount = () => {
    const account = accountName();
    nameField.hidden = Boolean(account);
    playingAs.hidden = !account;
    playingAs.textContent = account ? t("You play as {name}.", { name: account }) : "";
    ratedField.hidden = !account;
    if (!account) rated.checked = false;
  };

  const drawPlayers = () => {
    keepFocus(playersBox, () => mount(
      playersBox,
      [2, 3, 4].map((n) =>
        h(
          "label",
          { class: ["segment", n === players && "checked", variant.value === "duel" && n !== 2 && "segment-off"], title: variant.value === "duel" && n !== 2 ? t("Splendor Duel is for two players") : null },
          h("input", {
            type: "radio",
            id: `players-${n}`,
            name: "players",
            value: String(n),
            checked: n === players,
            disabled: variant.value === "duel" && n !== 2,
            onchange: () => {
              players = n;
              drawPlayers();
              drawSeats();
            },
          }),
          tn("{n} player", "{n} players", n),
        ),
      ),
    ));
  };
  const drawSeats = () => {
    followSeats();
    keepFocus(seatsBox, () => mount(
      seatsBox,
      Array.from({ length: players }, (_, i) =>
        h(
          "div",
          { class: "seat-choice" },
          h("label", { for: `seat-${i}` }, t("Seat {n}", { n: i + 1 })),
          h(
            "select",
            {
              id: `seat-${i}`,
              dataset: { seat: String(i) },
              onchange: (e) => {
                choices[i] = e.target.value;
                // One "You" at most: another seat that said "You" becomes open.
                if (choices[i] === "you") choices = choices.map((c, j) => (j !== i && c === "you" ? "open" : c));
                drawSeats();
              },
            },
            SEAT_CHOICES.map(([value, label]) =>
              h("option", { value, selected: choices[i] === value }, label),
            ),
          ),
        ),
      ),
    ));
  };
  drawPlayers();
  drawSeats();

  const submit = h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "start-game" }, t("Start the game"));
  const form = h(
    "form",
    {
      class: "panel new-game",
      "aria-labelledby": "new-title",
      onsubmit: async (e) => {
        e.preventDefault();
        error.textContent = "";
        const seats = choices.slice(0, players);
        const iPlay = seats.includes("you");
        const account = accountName();
        const name = account || nameInput.value.trim();
        const isRated = Boolean(account) && rated.checked;
        const clock = presetClock(timeControl.value);
        if (isRated && !clock) {
          error.textContent = t("A rated game needs a time control: choose one above.");
          timeControl.focus();
          return;
        }
        if (isRated && seed !== undefined) {
          error.textContent = t("A rated game can't have a seed: open the lobby without ?seed= in its address.");
          return;
        }
        if (iPlay && !name) {
          error.textContent = t("Write your name first: the other players see it.");
          nameInput.focus();
          return;
        }
        if (name && !account) rememberName(name);
        submit.disabled = true;
        submit.textContent = t("Starting…");
        try {
          const game = await createGame({ variant: variant.value, players, seed, clock, rated: isRated });
          // Seats are numbered in joining order: you first, then the bots;
          // open seats are left for the friends who follow the join address.
          if (iPlay) {
            const mine = await takeSeat(game.id, account ? {} : { name });
            rememberSeat(game.id, { seat: mine.seat, token: mine.token, name });
          }
          for (const choice of seats) {
            if (choice.startsWith("bot:")) await takeSeat(game.id, { bot: choice.slice(4) });
          }
          window.location.hash = `#/${iPlay ? "play" : "watch"}/${encodeURIComponent(game.id)}`;
        } catch (err) {
          error.textContent = err instanceof ApiError ? err.message : String(err);
          submit.disabled = false;
          submit.textContent = t("Start the game");
        }
      },
    },
    h("h1", { id: "new-title", class: "panel-title" }, t("Start a game")),
    h("p", { class: "intro" }, t("Play Splendor with friends or bots, watch any game as it happens, and replay any game turn by turn.")),
    nameField,
    playingAs,
    h("div", { class: "field" }, h("label", { for: "variant" }, t("Game")), variant),
    h("div", { class: "field" }, h("span", { class: "field-label", id: "players-label" }, t("Players")), playersBox),
    h("fieldset", { class: "field seats-field" }, h("legend", { class: "field-label" }, t("Who sits where")), seatsBox),
    h("div", { class: "field" }, h("label", { for: "time-control" }, t("Time")), timeControl),
    ratedField,
    seed === undefined ? null : h("p", { class: "hint", id: "seed-note" }, t("Seed {seed}: the deals of this game are fixed.", { seed: String(seed) })),
    submit,
    error,
  );
  return { form, showAccount };
}

// ---------------------------------------------------------------- lists

async function refreshLists(lists) {
  const [open, live, finished] = await Promise.all(["open", "live", "finished"].map((s) => listGames(s, 12).catch(() => null)));
  if (open) mount(lists.open, rowsOf(open, openRow, t("No open game right now: start one.")));
  if (live) {
    // Summaries may carry each seat's points; otherwise the public view has them.
    const views = await Promise.all(
      live.map((g, i) => (i < 8 && !(g.seats || []).every((s) => "points" in s) ? fetchView(g.id).then((r) => r.view, () => null) : null)),
    );
    mount(lists.live, rowsOf(live, (g, i) => liveRow(g, views[i]), t("Nobody is playing right now.")));
  }
  if (finished) mount(lists.finished, rowsOf(finished, finishedRow, t("No finished game yet.")));
  await refreshMine(lists.mine);
}

async function refreshMine(box) {
  const seats = mySeats().slice(0, 6);
  const panel = box.closest("section");
  if (!seats.length) {
    panel.hidden = true;
    return;
  }
  const summaries = await Promise.all(seats.map((s) => gameSummary(s.game).catch(() => null)));
  const rows = seats
    .map((s, i) => [s, summaries[i]])
    .filter(([, g]) => g)
    .map(([s, g]) =>
      row(
        g,
        [h("strong", {}, `${s.name}`), " ", t("at {game} #{id}", { game: variantName(g.variant), id: g.id }), h("span", { class: `status status-${g.status}` }, STATUS_WORDS[g.status] || g.status)],
        g.status === "finished" || g.status === "aborted"
          ? [link(`#/replay/${g.id}`, t("Replay"), "replay")]
          : [link(`#/play/${g.id}`, g.status === "open" ? t("Wait at the table") : t("Take your seat"), "resume", true)],
      ),
    );
  panel.hidden = rows.length === 0;
  mount(box, rows);
}

const STATUS_WORDS = { open: tp("status", "Open"), live: tp("status", "Live"), finished: tp("status", "Finished"), aborted: tp("status", "Aborted") };

function empty(text) {
  return h("p", { class: "empty" }, text);
}

const REBUILDING = t("The server is rebuilding its lists of games: some may be missing for a moment.");

/** A list's rows, `none` when it is empty; while the server rebuilds its lists
 * (docs/http-api.md), a line saying so. */
function rowsOf(list, render, none) {
  const rows = list.length ? list.map(render) : [empty(none)];
  return list.rebuilding ? [...rows, empty(REBUILDING)] : rows;
}

function link(href, label, key, primary = false) {
  return h("a", { class: ["btn", "btn-small", primary && "btn-primary"], href, dataset: { key } }, label);
}

/** A game's row: what it says, the time control and "seeded" (every row), its links. */
function row(game, body, actions) {
  return h("div", { class: "game-row", dataset: { game: game.id, status: game.status } }, h("div", { class: "game-row-body" }, body, gameTags(game)), h("div", { class: "game-row-actions" }, actions));
}

function openRow(g) {
  const seated = g.seats || [];
  const who = seated.length ? listWords(seated.map((s) => ratedLabel(seated, s))) : t("nobody yet");
  const seats = t("{seated} of {seats} seated: {who}", { seated: seated.length, seats: g.players, who });
  return row(
    g,
    [h("strong", {}, tn("{game}, {n} player", "{game}, {n} players", g.players, { game: variantName(g.variant) })), h("span", { class: "muted" }, withWaiting(g, seats))],
    [link(`#/join/${g.id}`, t("Join"), "join", true), link(`#/watch/${g.id}`, t("Watch"), "watch")],
  );
}

/** "3 min ago" from an ISO time (the summaries' created_at), or "". */
function ago(iso) {
  const at = Date.parse(iso || "");
  return Number.isFinite(at) ? formatRelative(Date.now() - at) : "";
}

/** "Splendor · started 3 min ago": `line` and when the game started, when known. */
function started(g, line) {
  const when = ago(g.created_at);
  return when ? t("{line} · started {when}", { line, when }) : line;
}

/** "… · waiting for 3 min": how long an open game has waited for its players. */
function withWaiting(g, line) {
  const waited = waitedWords(g.created_at);
  return waited ? t("{line} · waiting {waited}", { line, waited }) : line;
}

/** "Splendor · ended 3 min ago": a finished game is dated by its end (summaries
 * before `ended_at` existed say when they started). */
function ended(g, line) {
  const when = ago(g.ended_at);
  return when ? t("{line} · ended {when}", { line, when }) : started(g, line);
}

/** A seat's name and, for an account or a bot, its rating in the game's variant now
 * (the lists' `seat.rating`, docs/ratings.md): "Ada (1623)". */
function ratedLabel(seats, s) {
  return Number.isInteger(s.rating) ? t("{name} ({rating})", { name: seatLabel(seats, s), rating: s.rating }) : seatLabel(seats, s);
}

/** In the results, a counted game's seat with its rating after the game and its
 * change (docs/ratings.md): "Ada (1623, +12)", "Bo (1480, −8)". */
function resultLabel(seats, s) {
  if (!Number.isInteger(s.delta) || !Number.isInteger(s.rating)) return ratedLabel(seats, s);
  return t("{name} ({rating}, {change})", { name: seatLabel(seats, s), rating: s.rating, change: formatChange(s.delta) });
}

/** The rating of a seat of a listed game, as a small number beside its name. */
function ratingOf(g, seat) {
  const s = (g.seats || []).find((x) => x.seat === seat);
  return s && Number.isInteger(s.rating) ? h("span", { class: "seat-rating", "aria-label": t("rating {rating}", { rating: s.rating }) }, `${formatNumber(s.rating)} `) : null;
}

function liveRow(g, view) {
  const seats = view ? view.players : g.seats || [];
  const scores = seats.map((p) =>
    h(
      "span",
      { class: "score", dataset: { seat: String(p.seat) } },
      `${seatLabel(seats, p)} `,
      ratingOf(g, p.seat),
      "points" in p ? h("b", { "aria-label": tn("{n} point", "{n} points", p.points) }, formatNumber(p.points)) : null,
    ),
  );
  const round = view && view.turn ? roundOfView(view, null, 0) : null;
  const game = variantName(g.variant);
  const line = round ? t("{game} · round {round}", { game, round }) : game;
  // How many watch it now (the summaries' `spectators`, docs/live.md "Audience").
  const watching = g.spectators ? h("span", { class: "muted game-watchers" }, audienceWords({ spectators: g.spectators })) : null;
  return row(
    g,
    [h("span", { class: "scores" }, scores), h("span", { class: "muted" }, started(g, line)), watching],
    [link(`#/watch/${g.id}`, t("Watch"), "watch", true)],
  );
}

function finishedRow(g) {
  const seats = g.seats || [];
  const r = g.result;
  let text = seats.map((s) => resultLabel(seats, s)).join(" · ");
  if (r && r.winners) {
    const name = (seat) => resultLabel(seats, seats.find((s) => s.seat === seat) || { seat, name: t("Seat {n}", { n: seat + 1 }) });
    const others = seats.map((s) => s.seat).filter((s) => !r.winners.includes(s));
    const winners = listWords(r.winners.map(name));
    const how = r.reason ? reasonWords(r.reason) : "";
    text = how ? t("{winners} won {how}", { winners, how }) : t("{winners} won", { winners });
    // A game won by a player's leaving has no score worth saying (often 0–0).
    if (r.points && !LEFT_WIN_WORDS[r.reason]) text = t("{result} {score}", { result: text, score: [...r.winners, ...others].map((s) => formatNumber(r.points[s])).join("–") });
    if (others.length) text = t("{result} against {players}", { result: text, players: listWords(others.map(name)) });
  }
  return row(g, [h("strong", {}, text), h("span", { class: "muted" }, ended(g, variantName(g.variant)))], [link(`#/replay/${g.id}`, t("Replay"), "replay", true)]);
}
