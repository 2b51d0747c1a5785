// A tournament's page (`#/tournament/{id}`, docs/tournaments.md "Pages"): what it is
// and when it starts or ends, the standings kept live over `WS /ws/tournaments/{id}`
// (drawn first from GET /api/tournaments/{id}), Join / Pause / Leave, the player's
// game (its seat taken with the session, as seatback.js does), a Swiss round's
// pairings, the games in progress to watch, and the podium once it is over.
//
// The socket reconnects as the table's does (live.js: backing off from 1 s to 15 s
// with jitter, at once after a restart's 1012); while it is down the page asks
// GET again every few seconds, so it never stays stale.

import { accountName, askToLogIn, onAccountChange, whenAccountKnown } from "./account.js";
import { ApiError, fetchTournament, seatToken, serverNow, tournamentAction } from "./api.js";
import { h, listWords, mount, svg } from "./dom.js";
import { formatNumber, lang, t, tp } from "./i18n.js";
import { restartDelay, retryDelay } from "./live.js";
import { playerHref } from "./leaderboard.js";
import { rememberSeat } from "./seats.js";
import { countdown, kindLine, numberOrDash, playersWords, podiumWords, roundWords, STATUS_WORDS, tickCountdowns, tournamentName, tournamentPoints, tournamentRefusal } from "./tournament_words.js";
import { gameTags } from "./timecontrol.js";

const PING_EVERY_MS = 20000;
const SILENT_LIMIT_MS = 50000;
const POLL_MS = 5000; // GET while the socket is down
const CLOSE_RESTART = 1012;
const CLOSE_NOT_FOUND = 4404;

// "Live" here is the page's updates (the standings as they change), not a game in
// play: several languages word the two apart, and a finished tournament is not "in play".
const CONNECTION_WORDS = { connecting: t("Connecting…"), live: tp("updates", "Live"), reconnecting: t("Reconnecting…"), closed: t("Disconnected") };
// A flame (a streak) and a medal, drawn: an emoji may have no font on the reader's device.
const FLAME = '<path d="M8 1c.6 2.4 3.9 4.2 3.9 8.2A3.9 3.9 0 0 1 8 13.2a3.9 3.9 0 0 1-3.9-4c0-1.9 1-3.1 1.9-4 .1 1.3.6 2.2 1.4 2.6C7.3 5.6 7.1 3.2 8 1Z"/><path class="flame-core" d="M8 7.6c.3 1.2 1.9 2 1.9 3.6a1.9 1.9 0 0 1-3.8 0c0-.8.4-1.4.9-1.8.1.6.4 1 .7 1.1-.1-1.2.1-2.1.3-2.9Z"/>';
const MEDAL = '<path class="medal-ribbon" d="M4.5 1h3L9 5.5 7.4 6.6ZM11.5 1h-3L7 5.5l1.6 1.1Z"/><circle cx="8" cy="10" r="4.6"/>';

/** The tournament's socket: `onData(message)` with each `tournament` message,
 * `onState(state)` ("connecting", "live", "reconnecting", "closed"), `onMissing()`
 * when the server knows no such tournament. */
export class TournamentSocket {
  constructor(id, { onData, onState = () => {}, onMissing = () => {} }) {
    this.id = id;
    this.onData = onData;
    this.onState = onState;
    this.onMissing = onMissing;
    this.state = "connecting";
    this.socket = null;
    this.stopped = false;
    this.attempt = 0;
    this.served = false;
    this.lastFrameAt = 0;
    this.retry = null;
    this.onOnline = () => this.reconnect(0);
  }

  start() {
    window.addEventListener("online", this.onOnline);
    this.connect();
    this.heartbeat = window.setInterval(() => this.keepAlive(), PING_EVERY_MS / 2);
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    window.clearInterval(this.heartbeat);
    window.clearTimeout(this.retry);
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close(1000, "page left");
      this.socket = null;
    }
  }

  setState(state) {
    if (state !== this.state) {
      this.state = state;
      this.onState(state);
    }
  }

  connect() {
    if (this.stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${window.location.host}/ws/tournaments/${encodeURIComponent(this.id)}?${new URLSearchParams({ lang })}`;
    this.served = false;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      this.reconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.lastFrameAt = Date.now();
      // Open is not yet served: the server may still refuse the socket. Its pong (or
      // the tournament) says it took it.
      socket.send(JSON.stringify({ type: "ping" }));
    };
    socket.onmessage = (e) => this.receive(e.data);
    socket.onerror = () => {};
    socket.onclose = (e) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (e.code === CLOSE_NOT_FOUND) {
        this.stop();
        this.setState("closed");
        this.onMissing();
        return;
      }
      this.setState("reconnecting");
      this.reconnect(e.code === CLOSE_RESTART && this.served ? restartDelay() : undefined);
    };
  }

  reconnect(delay) {
    if (this.stopped || this.retry) return;
    const wait = delay ?? retryDelay(this.attempt);
    this.attempt += 1;
    this.retry = window.setTimeout(() => {
      this.retry = null;
      if (!this.socket) this.connect();
    }, wait);
  }

  keepAlive() {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastFrameAt > SILENT_LIMIT_MS) {
      socket.close(4000, "silent");
      return;
    }
    socket.send(JSON.stringify({ type: "ping" }));
  }

  receive(data) {
    this.lastFrameAt = Date.now();
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "error") {
      if (message.code === "not_found") {
        this.stop();
        this.setState("closed");
        this.onMissing();
      }
      return;
    }
    if (!this.served) {
      this.served = true;
      this.attempt = 0;
      this.setState("live");
    }
    if (message.type === "tournament") this.onData(message);
  }
}

const same = (a, b) => !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** Take the seat of the logged-in `account` in a tournament's game with the session
 * (`POST /api/games/{id}/seat-token`) and keep its token, as seatback.js does. */
export async function takeSeat(gameId, account) {
  const { seat, token } = await seatToken(gameId);
  rememberSeat(gameId, { seat, token, name: account });
}

/** The game of `account` in play in a tournament's message other than `gameId`, or null. */
export function nextGameOf(data, account, gameId) {
  const game = (data.games || []).find((g) => g.status === "live" && g.game_id !== gameId && (same(g.first, account) || same(g.second, account)));
  return game ? game.game_id : null;
}

/** What the page knows of the logged-in player's part, from the standings and the
 * games (the socket's messages carry no `you`); `fallback` is GET's own. */
export function youOf(data, account, fallback = null) {
  if (!account) return null;
  const mine = (data.standings || []).find((s) => same(s.player, account));
  const game = (data.games || []).find((g) => g.status === "live" && (same(g.first, account) || same(g.second, account)));
  // Not in the standings yet: GET's or the last action's word (a join the socket has
  // not brought yet).
  if (!mine) return fallback || { joined: false, paused: false, paused_for: null, left: false, game_id: null };
  return { joined: !mine.left, paused: !!mine.paused, paused_for: mine.paused_for || null, left: !!mine.left, game_id: game ? game.game_id : null };
}

export async function showTournament(main, id) {
  mount(main, h("p", { class: "loading" }, t("Loading…")));
  let data;
  try {
    data = await fetchTournament(id);
  } catch (err) {
    mount(main, missing(err));
    return () => {};
  }
  let account = await whenAccountKnown();
  let fallbackYou = data.you || null;
  let connection = "connecting";
  let left = false;
  let message = { kind: "", text: "" }; // the last action's answer, under the buttons
  let confirmingLeave = false;
  let busy = false;
  // Games of the player seen already: a game paired while the page is open takes the
  // player to their seat; one in play when the page opened only offers the button.
  const seen = new Set((data.games || []).map((g) => g.game_id));
  if (data.you && data.you.game_id) seen.add(data.you.game_id);
  // Each part is drawn again only when what it shows changed: a message or a poll that
  // brings nothing new leaves its buttons and links in place, so that a click, a tap or
  // the focus on one is never lost to a redraw.
  const drawn = new Map();
  function changed(slot, ...inputs) {
    const key = JSON.stringify(inputs);
    if (drawn.get(slot) === key) return false;
    drawn.set(slot, key);
    return true;
  }
  const pageInputs = () => [data.tournament, data.standings, data.games, data.podium, data.bye, account];

  const headSlot = h("div", { class: "tournament-head-slot" });
  const youSlot = h("div", { class: "tournament-you-slot" });
  const podiumSlot = h("div", { class: "podium-slot" });
  const standingsSlot = h("div", { class: "standings-slot" });
  const pairingsSlot = h("div", { class: "pairings-slot" });
  const gamesSlot = h("div", { class: "tournament-games-slot" });

  const socket = new TournamentSocket(id, {
    onData: (fresh) => take(fresh, true),
    onState: (state) => {
      connection = state;
      renderHead();
    },
    onMissing: () => {
      if (!left) mount(main, missing(new ApiError(404, "not_found", t("This address names no tournament on this server."))));
    },
  });

  function take(fresh, live) {
    if (left) return;
    const before = data;
    data = { ...fresh, you: live ? data.you : fresh.you };
    if (!live) fallbackYou = fresh.you || null;
    const you = youOf(data, account, fallbackYou);
    const newGame = you && you.game_id && !seen.has(you.game_id) ? you.game_id : null;
    for (const g of data.games || []) seen.add(g.game_id);
    render(before);
    if (newGame && !you.paused) goToSeat(newGame);
  }

  let seating = false; // a seat's token is being asked for
  async function goToSeat(gameId) {
    if (seating) return;
    seating = true;
    try {
      await takeSeat(gameId, account);
      if (!left) window.location.hash = `#/play/${encodeURIComponent(gameId)}`;
    } catch (err) {
      message = { kind: "error", text: tournamentRefusal(err) };
      renderYou();
    } finally {
      seating = false;
    }
  }

  async function act(what) {
    if (busy) return;
    busy = true;
    message = { kind: "", text: "" };
    confirmingLeave = false;
    renderYou();
    try {
      const answer = await tournamentAction(id, what);
      fallbackYou = answer.you || fallbackYou;
      // The socket brings the standings; GET makes sure of them if it is down.
      if (connection !== "live") take(await fetchTournament(id), false);
    } catch (err) {
      message = { kind: "error", text: tournamentRefusal(err) };
    } finally {
      busy = false;
      renderYou();
    }
  }

  let headKey = null;
  function renderHead() {
    const s = data.tournament;
    const key = JSON.stringify([s, connection]);
    if (key === headKey) return;
    headKey = key;
    const round = roundWords(s);
    mount(
      headSlot,
      h(
        "section",
        { class: "panel tournament-head", id: "tournament-head", "aria-labelledby": "tournament-title", dataset: { status: s.status, kind: s.kind } },
        h(
          "div",
          { class: "tournament-title" },
          h("h1", { id: "tournament-title" }, tournamentName(s)),
          h(
            "p",
            { class: "muted tournament-what" },
            h("span", { id: "tournament-kind" }, kindLine(s)),
            " ",
            h("span", { class: "game-tags" }, gameTags({ clock: s.clock, rated: s.rated })),
          ),
          h(
            "p",
            { class: "tournament-when" },
            h("span", { class: `status status-${s.status === "running" ? "live" : s.status}`, id: "tournament-status" }, STATUS_WORDS[s.status] || s.status),
            " ",
            countdown(s, "tournament-countdown"),
            round ? [" ", h("span", { id: "tournament-round" }, round)] : null,
            " ",
            h("span", { class: "muted", id: "tournament-players" }, playersWords(s.players)),
            s.created_by ? [" ", h("span", { class: "muted" }, t("created by {name}", { name: s.created_by }))] : null,
          ),
        ),
        h(
          "span",
          { class: ["conn", `conn-${connection}`], id: "tournament-connection", role: "status", dataset: { state: connection } },
          h("span", { class: "conn-dot", "aria-hidden": "true" }),
          CONNECTION_WORDS[connection] || connection,
        ),
      ),
    );
  }

  function renderYou() {
    const s = data.tournament;
    const you = youOf(data, account, fallbackYou);
    if (!changed(youSlot, s.status, s.kind, you, same(data.bye, account), account, busy, confirmingLeave, message)) return;
    const over = s.status === "finished";
    const keepFocus = youSlot.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    const buttons = [];
    let state = "";
    if (!account) {
      if (!over) buttons.push(h("button", { type: "button", class: "btn btn-primary", id: "tournament-log-in", dataset: { key: "log-in" }, onclick: () => askToLogIn("login") }, t("Log in to join")));
      state = over ? "" : t("Tournaments are for accounts: every game is rated.");
    } else if (you && you.left) {
      state = t("You left this tournament: your points stay in the standings.");
    } else if (you && you.joined) {
      if (you.game_id) {
        buttons.push(h("button", { type: "button", class: "btn btn-primary", id: "your-game", dataset: { key: "your-game", game: you.game_id }, onclick: () => goToSeat(you.game_id) }, t("Go to your game")));
      }
      if (!over && you.paused) buttons.push(h("button", { type: "button", class: "btn btn-primary", id: "tournament-join", dataset: { key: "join" }, disabled: busy, onclick: () => act("join") }, tp("tournament", "Resume")));
      if (!over && !you.paused) buttons.push(h("button", { type: "button", class: "btn", id: "tournament-pause", dataset: { key: "pause" }, disabled: busy, onclick: () => act("pause") }, tp("tournament", "Pause")));
      if (!over && !confirmingLeave) {
        buttons.push(
          h("button", { type: "button", class: "btn btn-danger", id: "tournament-leave", dataset: { key: "leave" }, disabled: busy, onclick: () => { confirmingLeave = true; renderYou(); document.getElementById("tournament-leave-yes")?.focus(); } }, tp("tournament", "Leave")),
        );
      }
      if (over) state = t("The tournament is over.");
      else if (you.game_id) state = t("Your game is in play.");
      else if (you.paused && you.paused_for === "forfeit") state = t("Paused: you missed a game. Resume to play on.");
      else if (you.paused) state = t("Paused: you are not paired until you resume.");
      else if (s.status === "upcoming") state = t("You are in: your first game comes when the tournament starts.");
      else if (s.kind === "arena") state = t("Waiting for an opponent: your next game starts as soon as one is free.");
      else if (same(data.bye, account)) state = t("You have the bye this round: it scores as a win. Your next game comes with the next round.");
      else state = t("Waiting for the next round.");
    } else if (!over) {
      buttons.push(h("button", { type: "button", class: "btn btn-primary", id: "tournament-join", dataset: { key: "join" }, disabled: busy, onclick: () => act("join") }, tp("tournament", "Join")));
      state = s.status === "upcoming" ? t("Join now to play from the start.") : t("You may join while it runs.");
    }
    const confirm = confirmingLeave && you && you.joined
      ? h(
          "div",
          { class: "cancel-confirm", id: "tournament-leave-confirm" },
          h("span", {}, t("Leave for good? You can't come back, and your points stay.")),
          h("button", { type: "button", class: "btn btn-danger", id: "tournament-leave-yes", dataset: { key: "leave-yes" }, disabled: busy, onclick: () => act("leave") }, t("Leave the tournament")),
          h("button", { type: "button", class: "btn", dataset: { key: "leave-no" }, onclick: () => { confirmingLeave = false; renderYou(); document.getElementById("tournament-leave")?.focus(); } }, t("Stay")),
        )
      : null;
    if (!state && !buttons.length && !message.text) return mount(youSlot);
    mount(
      youSlot,
      h(
        "section",
        { class: "panel tournament-you", id: "tournament-you", "aria-label": t("Your part"), dataset: { joined: String(!!(you && you.joined)), paused: String(!!(you && you.paused)), game: (you && you.game_id) || "" } },
        h("p", { class: "tournament-state", id: "tournament-state", role: "status" }, state),
        buttons.length ? h("div", { class: "banner-actions" }, buttons) : null,
        confirm,
        h("p", { class: ["form-error", !message.text && "empty-line"], role: "alert", id: "tournament-error" }, message.text),
      ),
    );
    if (keepFocus) youSlot.querySelector(`[data-key="${keepFocus}"]`)?.focus();
  }

  function renderPodium() {
    if (!changed(podiumSlot, ...pageInputs())) return;
    const podium = data.podium;
    if (!podium || !podium.length) return mount(podiumSlot);
    const byName = new Map((data.standings || []).map((s) => [s.player.toLowerCase(), s]));
    mount(
      podiumSlot,
      h(
        "section",
        { class: "panel podium", id: "podium", "aria-labelledby": "podium-title" },
        h("h2", { id: "podium-title", class: "panel-title" }, t("Podium")),
        h(
          "ol",
          { class: "podium-list" },
          podium.map((name, i) => {
            const row = byName.get(name.toLowerCase());
            return h(
              "li",
              { class: `podium-${i + 1}`, dataset: { player: name, rank: String(i + 1) } },
              h("span", { class: `medal medal-${i + 1}`, "aria-hidden": "true" }, svg("0 0 16 16", MEDAL)),
              h("span", { class: "podium-place" }, podiumWords(i + 1)),
              h("a", { class: "podium-name", href: playerHref(name) }, name),
              row ? h("span", { class: "muted" }, tournamentPoints(row.points)) : null,
            );
          }),
        ),
      ),
    );
  }

  function renderStandings() {
    if (!changed(standingsSlot, ...pageInputs())) return;
    const s = data.tournament;
    const swiss = s.kind === "swiss";
    const rows = data.standings || [];
    const body = rows.length
      ? h(
          "div",
          { class: "table-scroll" },
          h(
            "table",
            { class: "board-table standings-table", id: "standings" },
            h("caption", { class: "sr-only" }, t("Standings")),
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", { scope: "col", class: "num" }, "#"),
                h("th", { scope: "col" }, t("Player")),
                h("th", { scope: "col", class: "num" }, h("abbr", { title: t("Points") }, tp("column", "Pts"))),
                h("th", { scope: "col", class: "num" }, h("abbr", { title: t("Games") }, tp("column", "Gms"))),
                swiss ? h("th", { scope: "col", class: "num" }, h("abbr", { title: t("Buchholz: the sum of the opponents' points") }, tp("column", "BH"))) : null,
                swiss ? h("th", { scope: "col", class: "num" }, h("abbr", { title: t("Sonneborn-Berger: the points of the opponents beaten, plus half the points of those a victory was shared with") }, tp("column", "SB"))) : null,
              ),
            ),
            h("tbody", {}, rows.map((r) => standingRow(r, swiss))),
          ),
        )
      : h("p", { class: "empty" }, s.status === "finished" ? t("Nobody played in this tournament.") : t("Nobody has joined yet."));
    mount(standingsSlot, h("section", { class: "panel", "aria-labelledby": "standings-title" }, h("h2", { id: "standings-title", class: "panel-title" }, t("Standings")), body));
  }

  function standingRow(r, swiss) {
    const me = same(r.player, account);
    // Once finished nobody is paired any more, so "paused" tells nothing; "left" stays:
    // it says why a player stopped before the end.
    const over = data.tournament.status === "finished";
    const forfeit = r.paused_for === "forfeit";
    const marks = [
      r.streak ? h("span", { class: "streak", role: "img", "aria-label": t("on a streak: a win scores double"), title: t("on a streak: a win scores double") }, svg("0 0 16 16", FLAME, { class: "flame" })) : null,
      r.paused && !r.left && !over ? h("span", { class: ["tag", "tag-paused", forfeit && "tag-forfeit"] }, forfeit ? tp("tournament", "paused: missed a game") : tp("tournament", "paused")) : null,
      r.left ? h("span", { class: "tag tag-left" }, tp("tournament", "left")) : null,
    ];
    return h(
      "tr",
      { class: [me && "standing-you", r.left && "standing-left"], dataset: { player: r.player, rank: String(r.rank), points: String(r.points), games: String(r.games), streak: String(!!r.streak), paused: String(!!r.paused), left: String(!!r.left) } },
      h("td", { class: "num standing-rank" }, formatNumber(r.rank)),
      h(
        "td",
        { class: "standing-player" },
        h("a", { href: playerHref(r.player) }, r.player),
        " ",
        h("span", { class: "seat-rating", "aria-label": t("rating {rating}", { rating: r.rating }) }, formatNumber(r.rating)),
        marks.some(Boolean) ? [" ", marks.filter(Boolean)] : null,
      ),
      h("td", { class: "num standing-points" }, formatNumber(r.points)),
      h("td", { class: "num standing-games" }, formatNumber(r.games)),
      swiss ? h("td", { class: "num standing-buchholz" }, numberOrDash(r.buchholz)) : null,
      swiss ? h("td", { class: "num standing-sb" }, numberOrDash(r.sonneborn_berger)) : null,
    );
  }

  /** "Ana – Bo": a game's two players, the first seat first. */
  function pairWords(g) {
    return t("{first} – {second}", { first: g.first, second: g.second });
  }

  function resultWords(g) {
    if (g.status === "live") return t("in play");
    if (!g.winner) return t("shared victory");
    return t("{name} won", { name: g.winner });
  }

  function gameRow(g, withRound) {
    const live = g.status === "live";
    const mine = same(g.first, account) || same(g.second, account);
    return h(
      "div",
      { class: "game-row", dataset: { game: g.game_id, status: g.status, round: String(g.round) } },
      h(
        "div",
        { class: "game-row-body" },
        h("strong", { class: "pairing" }, pairWords(g)),
        h("span", { class: ["muted", "game-result"] }, withRound ? t("{line} · round {round}", { line: resultWords(g), round: g.round }) : resultWords(g)),
      ),
      h(
        "div",
        { class: "game-row-actions" },
        live && mine
          ? h("button", { type: "button", class: "btn btn-small btn-primary", dataset: { key: `seat-${g.game_id}` }, onclick: () => goToSeat(g.game_id) }, t("Take your seat"))
          : live
            ? h("a", { class: "btn btn-small btn-primary", href: `#/watch/${encodeURIComponent(g.game_id)}`, dataset: { key: "watch" } }, t("Watch"))
            : h("a", { class: "btn btn-small", href: `#/replay/${encodeURIComponent(g.game_id)}`, dataset: { key: "replay" } }, t("Replay")),
      ),
    );
  }

  function renderPairings() {
    if (!changed(pairingsSlot, ...pageInputs())) return;
    const s = data.tournament;
    if (s.kind !== "swiss" || !s.round) return mount(pairingsSlot);
    const games = (data.games || []).filter((g) => g.round === s.round);
    const paired = new Set(games.flatMap((g) => [g.first.toLowerCase(), g.second.toLowerCase()]));
    // The bye scores as a win; the others without a game (joined after the pairing, or
    // left without a partner) score nothing this round.
    const bye = data.bye || null;
    const out = (data.standings || []).filter((r) => !r.left && !r.paused && !paired.has(r.player.toLowerCase()) && !same(r.player, bye)).map((r) => r.player);
    mount(
      pairingsSlot,
      h(
        "section",
        { class: "panel", id: "pairings", "aria-labelledby": "pairings-title", dataset: { round: String(s.round) } },
        h("h2", { id: "pairings-title", class: "panel-title" }, t("Pairings of round {round}", { round: s.round })),
        h("div", { class: "game-list" }, games.length ? games.map((g) => gameRow(g, false)) : h("p", { class: "empty" }, t("No game in this round yet."))),
        bye ? h("p", { class: "muted", id: "bye" }, t("Bye, scored as a win: {player}", { player: bye })) : null,
        out.length ? h("p", { class: "muted", id: "not-paired" }, t("Without a game this round: {players}", { players: listWords(out) })) : null,
      ),
    );
  }

  function renderGames() {
    if (!changed(gamesSlot, ...pageInputs())) return;
    const live = (data.games || []).filter((g) => g.status === "live");
    const s = data.tournament;
    // A Swiss's current round is in its pairings; the games in progress are every other.
    const shown = s.kind === "swiss" ? live.filter((g) => g.round !== s.round) : live;
    const finished = (data.games || []).filter((g) => g.status === "over").slice(0, 10);
    mount(
      gamesSlot,
      // An arena in play shows the panel empty (games start any moment); a Swiss between
      // rounds or any finished tournament has none to come.
      !shown.length && (s.kind === "swiss" || s.status === "finished")
        ? null
        : h(
            "section",
            { class: "panel", id: "games-in-play", "aria-labelledby": "in-play-title" },
            h("h2", { id: "in-play-title", class: "panel-title" }, t("Games in progress: watch")),
            h("div", { class: "game-list" }, shown.length ? shown.map((g) => gameRow(g, s.kind === "swiss")) : h("p", { class: "empty" }, t("No game in progress."))),
          ),
      finished.length
        ? h(
            "section",
            { class: "panel", id: "games-over", "aria-labelledby": "over-title" },
            h("h2", { id: "over-title", class: "panel-title" }, t("Latest games: replay")),
            h("div", { class: "game-list" }, finished.map((g) => gameRow(g, s.kind === "swiss"))),
          )
        : null,
    );
  }

  function render() {
    renderHead();
    renderYou();
    renderPodium();
    renderStandings();
    renderPairings();
    renderGames();
  }

  mount(
    main,
    h(
      "div",
      { class: "tournament-page", dataset: { tournament: id } },
      headSlot,
      h("div", { class: "tournament-grid" }, h("div", { class: "tournament-col" }, youSlot, podiumSlot, standingsSlot), h("div", { class: "tournament-col" }, pairingsSlot, gamesSlot)),
    ),
  );
  render();
  socket.start();

  // The countdowns each second; one that runs out asks GET when the socket is down
  // (the socket's next message says the tournament started or ended).
  let polling = false;
  const poll = async () => {
    if (polling || left) return;
    polling = true;
    try {
      take(await fetchTournament(id), false);
    } catch {
      // the next tick tries again
    } finally {
      polling = false;
    }
  };
  let lastPoll = serverNow();
  const ticker = window.setInterval(() => {
    const due = tickCountdowns(headSlot);
    if (connection !== "live" && (due || serverNow() - lastPoll > POLL_MS)) {
      lastPoll = serverNow();
      poll();
    }
  }, 1000);
  const forgetAccount = onAccountChange((name) => {
    account = name;
    poll();
  });
  return () => {
    left = true;
    socket.stop();
    window.clearInterval(ticker);
    forgetAccount();
  };
}

function missing(err) {
  const none = err instanceof ApiError && err.code === "not_found";
  return h(
    "section",
    { class: "panel notice" },
    h("h1", {}, none ? t("No such tournament") : t("The tournament can't be loaded")),
    h("p", {}, none ? t("This address names no tournament on this server.") : err.message),
    h("a", { class: "btn", href: "#/tournaments" }, t("All tournaments")),
  );
}
