// The live table: `#/play/{id}` (with this browser's seat token) and
// `#/watch/{id}` (a spectator: no token, read-only, hidden cards face down).

import { TurnAlert } from "./attention.js";
import { ChatPanel } from "./chat.js";
import { ApiError, fetchCatalog, fetchEvents, fetchTournament, fetchView, gameSummary } from "./api.js";
import { isMyTurn } from "./acting.js";
import { Controls } from "./controls.js";
import { h, mount } from "./dom.js";
import { t, tn } from "./i18n.js";
import { LastMove } from "./lastmove.js";
import { LeaveControls, markOut } from "./leaving.js";
import { TableAudience } from "./audience.js";
import { TablePresence } from "./presence.js";
import { Rematch } from "./rematch.js";
import { gameTags } from "./timecontrol.js";
import { LOW_MS, SeatClocks, titleText } from "./clocks.js";
import { TableKeys } from "./keys.js";
import { LiveGame } from "./live.js";
import { myBar } from "./mybar.js";
import { GameLog } from "./log.js";
import { rankList, resultHeadline, resultTable } from "./results.js";
import { deviceMenu as makeDeviceMenu } from "./device.js";
import { abortedBanner, tickWaited, waitingBanner } from "./waiting.js";
import { accountName, askToLogIn, checkAccount, onAccountChange } from "./account.js";
import { accountSeated, reroute, seatBack } from "./seatback.js";
import { seatFor } from "./seats.js";
import { decorateRatings, seatRatings } from "./seatratings.js";
import { sharePanel } from "./share.js";
import { soundControls, sounds } from "./sound.js";
import { decorate, renderPlayers, renderTable } from "./table.js";
import { DuelControls } from "./duel_controls.js";
import { decorateDuel, renderDuelPlayers, renderDuelTable } from "./duel_table.js";
import { roundOfView, roundsPlayed, turnsOf } from "./turns.js";
import { Names, variantName } from "./words.js";
import { nextGameOf, takeSeat, TournamentSocket } from "./tournament.js";
import { countdown, KIND_WORDS, tickCountdowns, tournamentHref, tournamentName } from "./tournament_words.js";

/** What draws and drives a table, per variant. */
export const KITS = {
  classic: { renderTable, renderPlayers, decorate, Controls, watching: t("You are watching: hidden reserved cards stay face down.") },
  duel: { renderTable: renderDuelTable, renderPlayers: renderDuelPlayers, decorate: decorateDuel, Controls: DuelControls, watching: t("You are watching: reserved cards stay face down.") },
};

// What the mover is doing, after "Ana to play" in the head's line.
const PHASE_WORDS = {
  return_tokens: (who) => t("{who} (returning tokens)", { who }),
  choose_noble: (who) => t("{who} (choosing a noble)", { who }),
  replenish: (who) => t("{who} (replenishing the board)", { who }),
  take_bonus_token: (who) => t("{who} (taking a token)", { who }),
  steal_token: (who) => t("{who} (stealing a token)", { who }),
  choose_royal: (who) => t("{who} (choosing a royal card)", { who }),
  discard_tokens: (who) => t("{who} (putting tokens back)", { who }),
};
const CLASSIC_PHASES = new Set(["return_tokens", "choose_noble"]);

const CONNECTION_WORDS = {
  connecting: t("Connecting…"),
  live: t("Live"),
  reconnecting: t("Reconnecting…"),
  problem: t("Connection problem"),
  closed: t("Disconnected"),
};

const OVER_WORDS = { finished: t("Finished"), aborted: t("Aborted") };

/** The connection's badge; once the game is over and the page is up to date, the
 * game's end instead ("Finished", "Aborted"): nothing is live any more. `problem`:
 * the server's words on a connection problem, its title. */
export function connectionBadge(state, status = null, problem = null) {
  const over = state === "live" ? OVER_WORDS[status] : null;
  return h(
    "span",
    { class: ["conn", over ? `conn-over conn-${status}` : `conn-${state}`], id: "connection", role: "status", title: problem || undefined, dataset: { state, game: status || "" } },
    h("span", { class: "conn-dot", "aria-hidden": "true" }),
    over || CONNECTION_WORDS[state] || state,
  );
}

/**
 * The sound a new view makes (sound.js), from the view before it: one a view, the
 * most telling: the end, the start, your move, else anyone's move (a turn ended).
 * None for the page's first view, nor for a view that changes no turn.
 */
export function tableSound(before, after) {
  if (!before || !after || after.version <= before.version) return null;
  if (after.status === "finished" && before.status !== "finished") return "end";
  if (after.status !== "live") return null;
  if (before.status === "open") return "start";
  if (isMyTurn(after) && !isMyTurn(before)) return "your_move";
  const turn = (v) => (v.turn ? v.turn.number : null);
  return before.status === "live" && turn(after) !== turn(before) ? "move" : null;
}

/**
 * Re-render `slot` with `build()` and give focus back to the same control; true when
 * the slot held focus and that control is gone (the caller puts focus somewhere useful).
 */
function rerender(slot, build) {
  const active = document.activeElement;
  const held = !!active && active !== document.body && slot.contains(active);
  const key = held ? active.dataset.key : null;
  mount(slot, build());
  if (!held) return false;
  if (active.isConnected && slot.contains(active) && !active.disabled) {
    active.focus(); // the same control, put back by the build (the head's kept menus)
    return false;
  }
  const again = key ? slot.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
  if (again && !again.disabled) {
    again.focus();
    return false;
  }
  return true;
}

/**
 * The head's line: "Round 7 · your move". Turns are counted per player (a round is
 * each seat's turn once); `turns` are the game's turns from its events (turns.js)
 * and `known` the last version they cover, else the round comes from the view.
 */
export function turnLine(view, names, turns = null, known = 0) {
  if (view.status === "open") {
    const seated = view.players.length;
    return t("Waiting for players: {seated} of {seats} seated", { seated, seats: view.players_count || "?" });
  }
  const round = roundOfView(view, turns, known);
  if (view.status === "finished" || view.status === "aborted") {
    const rounds = turns && known >= view.version ? roundsPlayed(turns) : round;
    if (view.status === "aborted") return rounds ? tn("Aborted after {n} round", "Aborted after {n} rounds", rounds) : t("Aborted");
    return rounds ? tn("Finished after {n} round", "Finished after {n} rounds", rounds) : t("Finished");
  }
  const turn = view.turn;
  let who = view.you === turn.seat ? t("your move") : t("{who} to play", { who: names.of(turn.seat) });
  const duel = view.variant === "duel";
  const phase = PHASE_WORDS[turn.phase];
  if (phase && duel !== CLASSIC_PHASES.has(turn.phase)) who = phase(who);
  const line = t("Round {round} · {who}", { round, who });
  if (duel) return turn.extra_turn ? t("{line} · extra turn", { line }) : line;
  return turn.final_round ? t("{line} · final round", { line }) : line;
}

export async function showGame(main, gameId, mode) {
  let seat = mode === "play" ? seatFor(gameId) : null;
  mount(main, h("p", { class: "loading" }, t("Loading the table…")));
  let summary;
  try {
    summary = await gameSummary(gameId);
  } catch (err) {
    mount(main, notFound(err));
    return () => {};
  }
  // No token here: a logged-in player seated in this game gets the seat's token with
  // the session (seatback.js); anyone else goes to the join page.
  if (mode === "play" && !seat) seat = await seatBack(gameId, summary);
  if (!main.isConnected) return () => {}; // left while loading: it sends nobody anywhere
  if (mode === "play" && !seat) {
    window.location.replace(`#/join/${encodeURIComponent(gameId)}`);
    return () => {};
  }
  const token = seat ? seat.token : null;
  const kit = KITS[summary.variant];
  if (!kit) {
    mount(main, h("section", { class: "panel notice" }, h("h1", {}, variantName(summary.variant)), h("p", {}, t("This page can't show tables of this game.")), h("a", { class: "btn", href: "#/" }, t("Back to the lobby"))));
    return () => {};
  }
  let catalog;
  try {
    catalog = await fetchCatalog(summary.variant);
  } catch (err) {
    mount(main, notFound(err));
    return () => {};
  }

  const names = new Names();
  const log = new GameLog({ names, catalog, variant: summary.variant });
  const headSlot = h("div", { class: "game-head" });
  const bannerSlot = h("div", { class: "banner-slot" });
  const tableSlot = h("div", { class: "table-slot" });
  const barSlot = h("div", { class: "bar-slot" });
  const playersSlot = h("div", { class: "players-slot" });
  const endDialog = h("dialog", { class: "dialog end-dialog", id: "end-dialog", "aria-labelledby": "end-title" });
  document.body.append(endDialog);

  let view = null;
  let refused = false; // the server refused this page's seat token: it was replaced
  let served = false; // the socket was served once (the token worked on this page)
  let left = false; // the page is gone (another route)
  let connection = "connecting";
  let shownEnd = false;
  let previousStatus = null;
  // A rated game's ratings beside the names, and each seat's change once it counted
  // (seatratings.js); null for a casual game.
  let ratings = seatRatings(summary);
  let ratingsKey = JSON.stringify(summary.seats || []);
  let ratingsAsked = 0; // the seats seen when the summary was last asked for their ratings
  const lastMove = new LastMove();
  // Kept across the head's redraws: an open menu stays open (device.js).
  const deviceMenu = token ? makeDeviceMenu(gameId, token, { name: seat.name, onReplaced: reroute }) : null;
  const turnAlert = token ? new TurnAlert({ what: `${variantName(summary.variant)} #${gameId}` }) : null;
  // The clocks; on your move, under a minute left goes to the tab's title, and under
  // the warning (clocks.js lowTimeMs) the title starts with an hourglass, the low-time
  // sound plays once, and under 10 s a tick each second.
  let clockNote = "";
  let clockLow = false;
  let lowSounded = false;
  let lastTick = null;
  const clocks = new SeatClocks({
    names,
    onMine: (ms, warnMs) => {
      if (!turnAlert) return;
      const low = ms !== null && ms < warnMs;
      const note = ms !== null && (low || ms < 60_000) ? t("{time} left", { time: titleText(ms) }) : "";
      if (note !== clockNote || low !== clockLow) turnAlert.setClockNote(note, low);
      clockNote = note;
      clockLow = low;
      if (ms === null) {
        lowSounded = false;
        lastTick = null;
        return;
      }
      if (low && !lowSounded && ms > 0) sounds.play("low_time");
      lowSounded = lowSounded || low;
      const second = Math.ceil(ms / 1000);
      if (ms > 0 && ms < LOW_MS && second !== lastTick && lastTick !== null) sounds.play("tick");
      lastTick = ms < LOW_MS ? second : null;
    },
  });
  const spectatorSound = turnAlert ? null : soundControls();

  const endRematch = h("div", { class: "end-rematch" });
  const rematch = new Rematch({
    gameId,
    seat,
    names,
    onChange: () => {
      renderBanner();
      mount(endRematch, rematchOrBack("end"));
    },
  });
  const presence = new TablePresence({
    names,
    catalog,
    checkClaim: () => fetchView(gameId, { token }).then((r) => r.view),
    claim: () => live.command({ kind: "claim_abandon" }).catch((err) => leave && leave.onError(err)),
    onChange: () => {
      presence.decorate(playersSlot);
      if (controls) scheduleRender(); // the prompt says whether the mover is away
    },
  });
  const chat = new ChatPanel({ seated: !!token, send: (frame) => live.established && live.sendFrame(frame) });
  const audience = new TableAudience();
  const live = new LiveGame({
    gameId,
    token,
    onChat: (message) => (message.type === "error" ? chat.refused(message) : chat.take(message)),
    onView: (v, info) => {
      lastMove.note(view, v);
      const heard = tableSound(view, v);
      if (heard) sounds.play(heard);
      view = v;
      if (info.event) log.add([{ version: v.version, ...info.event }]);
      if (info.snapshot) catchUpLog();
      names.learnView(v);
      // A seat taken since the summary was read: its rating comes with the summary.
      if (ratings && v.players.length > ratingsAsked && v.players.some((p) => (p.account || p.bot) && !ratings.has(p.seat))) {
        ratingsAsked = v.players.length;
        loadRatings();
      }
      if (turnAlert) turnAlert.update(v);
      clocks.update(v);
      presence.update(v);
      rematch.seats(v);
      rematch.take(v.rematch);
      if (controls) controls.update(v);
      if (v.status === "finished" && previousStatus && previousStatus !== "finished" && !shownEnd) showEnd();
      if (nextGame) goToNext();
      previousStatus = v.status;
      scheduleRender();
    },
    onState: (state) => {
      connection = state;
      if (state === "live") served = true;
      renderHead();
      if (state === "live") catchUpLog();
    },
    onPresence: (message) => presence.take(message),
    onRematch: (message) => rematch.take(message),
    onAudience: (message) => audience.take(message),
    onRefused: async () => {
      // Refused before it was ever served: the token was revoked while this page was
      // away ("log out everywhere"), so a logged-in player takes the seat back at once
      // (once a game per page load). Refused later, the seat moved to another browser
      // meanwhile: taken back only with a click, so two browsers never fight over it.
      if (!served && !autoTaken.has(gameId)) {
        autoTaken.add(gameId);
        if ((await seatBack(gameId, summary)) && !left) return reroute();
      } else if (accountName()) {
        await checkAccount(); // its session may have ended with the seat ("log out everywhere")
      }
      if (left) return;
      refused = true;
      render();
    },
    onProblem: (problem) => {
      if (controls) {
        controls.message = { kind: "error", text: problem.message, code: problem.code };
        render();
      }
    },
  });
  const controls = token
    ? new kit.Controls({ send: (action) => live.command(action), render: () => render(), catalog, names, away: (seat) => !!presence.seats && presence.seats[seat] === false })
    : null;
  const leave = token
    ? new LeaveControls({
        send: (action) => live.command(action),
        onError: (err) => {
          if (!controls) return;
          controls.message = { kind: "error", text: err.message, code: err.code };
          render();
        },
      })
    : null;
  const keys = new TableKeys({ variant: summary.variant, controls, root: main });

  // The log's events come from GET /events (at start and after every snapshot, which
  // may follow a gap) and from the diffs. One fetch at a time; a request made during
  // a fetch runs again after it, so a snapshot newer than that fetch is covered.
  let catchingUp = false;
  let again = false;
  async function catchUpLog() {
    if (catchingUp) {
      again = true;
      return;
    }
    catchingUp = true;
    try {
      do {
        again = false;
        log.add(await fetchEvents(gameId, { after: log.lastVersion, token }));
      } while (again);
      renderHead(); // the round is counted from the events
      renderBanner(); // and why an aborted game was
    } catch {
      // the next snapshot or reconnect tries again
    } finally {
      catchingUp = false;
    }
  }

  // The tournament the game belongs to (docs/tournaments.md "Pages"): its name as a
  // link, and an arena's countdown to its end; null for a game of none.
  let tournament = null;
  // A player seated here follows the tournament: once this game is over, their next
  // game (an arena's next pairing, a Swiss's next round) takes them to its seat.
  let following = null;
  let nextGame = null;
  findTournament(summary).then(
    (found) => {
      if (!found || left) return;
      tournament = found;
      headKey = null;
      renderHead();
      renderBanner();
      if (view) mount(endRematch, rematchOrBack("end"));
      const account = accountName();
      if (!token || !account || found.status !== "running") return;
      following = new TournamentSocket(found.id, {
        onData: (data) => {
          nextGame = nextGameOf(data, account, gameId);
          goToNext();
        },
      });
      following.start();
    },
    () => {},
  );
  let going = false;
  async function goToNext() {
    if (!nextGame || going || left || !view || (view.status !== "finished" && view.status !== "aborted")) return;
    going = true;
    try {
      await takeSeat(nextGame, accountName());
      if (!left) window.location.hash = `#/play/${encodeURIComponent(nextGame)}`;
    } catch {
      going = false; // the next message tries again
    }
  }
  // An arena's countdown that runs out ends it for this game (docs/tournaments.md,
  // "Decisions": a game still in play then does not count): the line says so.
  let arenaOver = false;
  const tournamentTimer = window.setInterval(() => {
    if (tournament && tickCountdowns(headSlot) && tournament.kind === "arena" && !arenaOver) {
      arenaOver = true;
      renderHead();
    }
  }, 1000);

  let headKey = null;
  function renderHead() {
    // Drawn again only when what it says changes (an open Share menu stays open).
    const line = view ? turnLine({ ...view, players_count: summary.players }, names, turnsOf(log.events.values()), log.lastVersion) : t("Connecting…");
    const problem = connection === "problem" && live.problem ? live.problem.message : null;
    const key = JSON.stringify([connection, line, view ? view.status : null, problem, leave ? leave.key(view) : "", tournament, arenaOver]);
    if (key === headKey) return;
    headKey = key;
    // Focus stays on the control it was on (Resign, Sound…) across the redraw.
    rerender(headSlot, () => [
      h(
        "div",
        { class: "game-title" },
        h("h1", {}, `${variantName(summary.variant)} `, h("span", { class: "game-id" }, `#${gameId}`), " ", h("span", { class: "game-tags" }, gameTags(summary))),
        h("p", { class: "turn-line", id: "turn-line" }, line),
        tournament
          ? h(
              "p",
              { class: "tournament-line", id: "tournament-line", dataset: { tournament: tournament.id } },
              h("span", { class: "tag tag-tournament" }, KIND_WORDS[tournament.kind] || tournament.kind),
              " ",
              h("a", { href: tournamentHref(tournament.id), dataset: { key: "tournament" } }, tournamentName(tournament)),
              " ",
              tournament.kind !== "arena" ? null : !arenaOver ? countdown(tournament, "tournament-countdown") : view && view.status === "live" ? h("span", { class: "muted", id: "tournament-time-up" }, t("The arena's time is up: this game no longer counts in it.")) : null,
            )
          : null,
      ),
      h(
        "div",
        { class: "head-side" },
        connectionBadge(connection, view ? view.status : null, problem),
        h("span", { class: "who-am-i" }, token ? t("Playing as {name}", { name: seat.name }) : t("Watching")),
        turnAlert ? turnAlert.el : spectatorSound,
        leave ? leave.buttons(view, { tournament: !!tournament }) : null,
        keys.button,
        view && view.status !== "open"
          ? h("details", { class: "share-menu" }, h("summary", { class: "btn btn-small" }, t("Share")), sharePanel(gameId, { join: false }))
          : null,
        deviceMenu && view && (view.status === "open" || view.status === "live") ? deviceMenu : null,
      ),
    ]);
  }

  let bannerKey = null;
  function renderBanner() {
    const canAbort = !!view && (view.legal || []).some((a) => a.kind === "abort");
    const aborted = view && view.status === "aborted" ? [...log.events.values()].find((e) => e.type === "GameAborted") || null : null;
    const key = refused ? JSON.stringify(["refused", accountName()]) : view ? JSON.stringify([view.status, view.players.length, view.result, canAbort, aborted, rematch.key(), ratingsKey, tournament && tournament.id]) : null;
    if (key === bannerKey) return;
    bannerKey = key;
    if (refused) return mount(bannerSlot, seatMovedBanner(gameId, summary));
    if (!view) return mount(bannerSlot);
    if (view.status === "open") {
      const openSeconds = (catalog.rules && catalog.rules.open_game_seconds) || 0;
      return mount(bannerSlot, waitingBanner({ gameId, summary, view, seated: !!token, cancel: () => live.command({ kind: "abort" }), openSeconds }));
    }
    if (view.status === "aborted") return mount(bannerSlot, abortedBanner(aborted, names));
    if (view.status === "finished" && view.result) {
      const again = rematchOrBack("banner"); // the rematch, when offered, is the main action
      return mount(
        bannerSlot,
        h(
          "section",
          { class: "banner banner-end", id: "result-banner", "aria-label": t("Result") },
          h("h2", {}, resultHeadline(view)),
          rankList(view, ratings),
          h("div", { class: "banner-actions" }, again, h("a", { class: ["btn", !again && "btn-primary"], href: `#/replay/${encodeURIComponent(gameId)}` }, t("Replay this game")), h("a", { class: "btn", href: "#/" }, t("Back to the lobby"))),
        ),
      );
    }
    return mount(bannerSlot);
  }

  // A move arrives as several diffs at once (a buy, a card dealt, the turn handed on):
  // the table is drawn once per frame, from the newest view. Clicks draw at once.
  let frame = 0;
  function scheduleRender() {
    if (!frame) {
      frame = window.requestAnimationFrame(() => {
        frame = 0;
        render();
      });
    }
  }

  const drawn = { view: null, interactive: false, myTurn: false };
  function render() {
    renderHead();
    renderBanner();
    if (!view) return;
    const ui = controls && view.status === "live" ? controls.tableUi() : null;
    // The table is drawn once per view; a click while choosing only updates the
    // selection on it (decorate), which keeps clicks cheap and focus in place.
    let lost = false; // the focused control is gone: focus goes where the next choice starts
    const focusedBefore = document.activeElement;
    const hadFocus = !!focusedBefore && focusedBefore !== main && main.contains(focusedBefore);
    if (drawn.view !== view || drawn.interactive !== !!ui) {
      lost = rerender(tableSlot, () => kit.renderTable(view, catalog, ui)) || lost;
      lost = rerender(playersSlot, () => kit.renderPlayers(view, catalog, ui)) || lost;
      drawn.view = view;
      drawn.interactive = !!ui;
      clocks.decorate(playersSlot);
      presence.decorate(playersSlot);
      markOut(playersSlot, view);
      decorateRatings(playersSlot, ratings);
    }
    if (ui) {
      kit.decorate(tableSlot, view, ui);
      kit.decorate(playersSlot, view, ui);
    }
    lastMove.apply(main);
    if (controls) {
      lost = rerender(barSlot, () => [myBar(view, catalog), controls.actionBar()]) || lost;
      clocks.decorateBar(barSlot);
      const myTurn = isMyTurn(view);
      // Nothing in particular has focus: the body, or the page's <main> after a route.
      const idle = !document.activeElement || document.activeElement === document.body || document.activeElement === main;
      // A focused control redrawn away or disabled (a move sent, the turn handed on) drops focus to the body.
      // (Chrome moves focus off a disabled control only at its next frame: that counts too.)
      if ((hadFocus && idle) || (document.activeElement && document.activeElement.disabled)) lost = true;
      if (lost || (myTurn && !drawn.myTurn && idle)) keys.focusStart(myTurn);
      drawn.myTurn = myTurn;
    }
    else if (view.status === "live") mount(barSlot, h("p", { class: "watch-note" }, kit.watching));
    else mount(barSlot);
  }

  // The end's table, drawn again when the game's rating changes arrive.
  const endTable = h("div", { class: "end-table" });

  /** Once a rated game is over, its summary again: each seat's change once counted
   * (the process that ended it counts it before answering the last move, but this
   * page may see the end first: a pending count is asked again a few times). */
  async function refreshRatings() {
    if (!ratings) return;
    for (let attempt = 0; attempt < 6 && !left; attempt += 1) {
      const fresh = await loadRatings();
      if (fresh && fresh.status === "finished" && typeof fresh.counted === "boolean" && fresh.not_counted !== "pending") return;
      await new Promise((done) => window.setTimeout(done, 1000));
    }
  }

  /** The game's summary again, for its seats' ratings; null when it can't be read. */
  async function loadRatings() {
    const fresh = await gameSummary(gameId).catch(() => null);
    if (!fresh || left) return null;
    ratings = seatRatings(fresh);
    ratingsKey = JSON.stringify(fresh.seats || []);
    drawn.view = null; // the players' heads are drawn again with the ratings
    scheduleRender();
    if (shownEnd && view) mount(endTable, resultTable(view, ratings));
    return fresh;
  }

  // A tournament's game is followed by the tournament's next pairing, not a rematch:
  // its end offers the way back to the tournament instead.
  function rematchOrBack(where) {
    if (!tournament) return rematch.actions(view, where);
    const primary = where === "banner" ? "btn-primary" : null;
    return h("a", { class: ["btn", primary], id: `back-to-tournament-${where}`, href: tournamentHref(tournament.id) }, t("Back to the tournament"));
  }

  function showEnd() {
    shownEnd = true;
    mount(endRematch, rematchOrBack("end"));
    mount(endTable, resultTable(view, ratings));
    refreshRatings();
    mount(
      endDialog,
      h("h2", { id: "end-title", class: "dialog-title" }, t("Game over")),
      h("p", { class: "end-headline" }, resultHeadline(view)),
      endTable,
      endRematch,
      h(
        "div",
        { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn-quiet", onclick: () => endDialog.close() }, t("Close")),
        h("a", { class: "btn", href: "#/" }, t("Lobby")),
        h("a", { class: "btn btn-primary", href: `#/replay/${encodeURIComponent(gameId)}` }, t("Replay")),
      ),
    );
    endDialog.showModal();
    endDialog.querySelector(".dialog-actions .btn-primary").focus();
  }

  const onKey = (e) => {
    if (keys.handle(e)) return;
    if (e.key === "Escape" && controls && !document.querySelector("dialog[open]")) controls.cancel();
  };
  document.addEventListener("keydown", onKey);

  mount(
    main,
    h(
      "div",
      { class: "game-page", dataset: { mode, game: gameId } },
      headSlot,
      bannerSlot,
      presence.slot,
      h(
        "div",
        { class: ["game-grid", summary.players >= 3 && "many-players", summary.variant === "duel" && "duel-grid"] },
        h("div", { class: "col-board" }, tableSlot, barSlot),
        h("div", { class: "col-players" }, h("h2", { class: "panel-title sr-only" }, t("Players")), playersSlot, audience.slot),
        h("div", { class: "col-log" }, log.el, chat.el),
      ),
      chat.toggle,
    ),
  );
  render();
  live.start();
  catchUpLog();
  const waitedTimer = window.setInterval(() => tickWaited(bannerSlot), 5000);
  const forgetAccount = onAccountChange(() => renderBanner());

  return () => {
    left = true;
    forgetAccount();
    live.stop();
    window.clearInterval(waitedTimer);
    window.clearInterval(tournamentTimer);
    if (following) following.stop();
    lastMove.destroy();
    clocks.destroy();
    presence.destroy();
    if (leave) leave.destroy();
    if (turnAlert) turnAlert.destroy();
    window.cancelAnimationFrame(frame);
    document.removeEventListener("keydown", onKey);
    if (controls) controls.destroy();
    keys.destroy();
    chat.destroy();
    endDialog.remove();
  };
}

/**
 * The tournament of a game (its summary), or null: a game's summary names the
 * tournament it belongs to (docs/http-api.md), whose own summary says the rest.
 */
async function findTournament(summary) {
  if (!summary.tournament) return null;
  const found = await fetchTournament(summary.tournament);
  return found ? found.tournament : null;
}

const autoTaken = new Set(); // games whose seat this page load took back by itself

/** The banner of a page whose seat token was replaced: its seat plays elsewhere now.
 * An account's seat is taken back here with a click, once logged in. */
function seatMovedBanner(gameId, summary) {
  const account = accountName();
  const mine = accountSeated(summary, account);
  const note = h("p", { class: "form-error", role: "alert" });
  const takeBack = async (e) => {
    e.currentTarget.disabled = true;
    if (await seatBack(gameId, summary)) {
      reroute();
      return;
    }
    note.textContent = t("The seat can't be taken back now: try again in a moment.");
    e.target.disabled = false;
  };
  const accountsSeat = (summary.seats || []).some((s) => s.account);
  return h(
    "section",
    { class: "banner banner-moved", id: "seat-moved", "aria-label": t("Seat") },
    h("h2", {}, t("This seat is played elsewhere now")),
    h(
      "p",
      {},
      t("This page's seat token was replaced: the seat was opened in another browser, given a new link, or its account logged out everywhere. It acts no more here."),
    ),
    h(
      "div",
      { class: "banner-actions" },
      mine ? h("button", { type: "button", class: "btn btn-primary", id: "seat-take-back", onclick: takeBack }, t("Take the seat back here")) : null,
      !account && accountsSeat ? h("button", { type: "button", class: "btn btn-primary", id: "seat-log-in", onclick: () => askToLogIn("login") }, t("Log in to take it back")) : null,
      h("a", { class: "btn", href: `#/watch/${encodeURIComponent(gameId)}` }, t("Watch instead")),
    ),
    note,
  );
}

function notFound(err) {
  const missing = err instanceof ApiError && err.code === "not_found";
  return h(
    "section",
    { class: "panel notice" },
    h("h1", {}, missing ? t("No such game") : t("The game can't be loaded")),
    h("p", {}, missing ? t("This address names no game on this server.") : err.message),
    h("a", { class: "btn", href: "#/" }, t("Back to the lobby")),
  );
}
