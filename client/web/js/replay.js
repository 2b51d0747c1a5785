// `#/replay/{id}` (or `#/replay/{id}/{version}`): a game turn by turn from its log.
// The log comes from GET /events; the table at version N is GET /view?version=N
// (cached, fetched ahead while playing), so what is shown is exactly the server's
// view at that version. The controls step, jump and play by whole turns (a move with
// its consequences: a card dealt, a noble, the turn handed on; turns.js reads them
// from the events), and by single events on demand; the move list jumps to a turn.

import { exportUrl, fetchCatalog, fetchEvents, fetchView, gameSummary } from "./api.js";
import { ChanceGraph } from "./chancegraph.js";
import { h, mount, svg } from "./dom.js";
import { dir, t, tp } from "./i18n.js";
import { describerFor } from "./duel_words.js";
import { KITS, turnLine } from "./game.js";
import { howtoLink } from "./howto.js";
import { HelpDialog } from "./keys.js";
import { LastMove } from "./lastmove.js";
import { GameLog } from "./log.js";
import { MoveList } from "./moves.js";
import { resultHeadline } from "./results.js";
import { markSuggestion, suggestionMarks, suggestionWords } from "./suggestion.js";
import { turnsOf } from "./turns.js";
import { Names, variantName } from "./words.js";

// Milliseconds a turn stays on screen while playing.
const SPEEDS = [
  ["2000", tp("speed", "Slow")],
  ["1000", tp("speed", "Normal")],
  ["500", tp("speed", "Fast")],
  ["200", tp("speed", "Very fast")],
];
const DEFAULT_SPEED = 1000;
// The arrow keys go the way the page reads, as the slider's own keys do: in a page
// written right to left the next turn is to the left (docs/web.md "Right to left").
const FORWARD_KEY = dir === "rtl" ? "ArrowLeft" : "ArrowRight";

/** A key's name with its arrows pointing the way they step in this page. */
function readingArrows(keys) {
  return dir === "rtl" ? keys.replace(/[←→]/g, (arrow) => (arrow === "←" ? "→" : "←")) : keys;
}

const ICONS = {
  first: '<path d="M5 5h2v14H5zM19 5v14l-6-7zM13 5v14l-6-7z"/>',
  "prev-turn": '<path d="M12 5v14L4 12zM20 5v14l-8-7z"/>',
  "prev-event": '<path d="M15 7v10l-6-5zM7 7h2v10H7z"/>',
  play: '<path d="M7 5v14l12-7z"/>',
  pause: '<path d="M6 5h4v14H6zM14 5h4v14h-4z"/>',
  "next-event": '<path d="M9 7v10l6-5zM15 7h2v10h-2z"/>',
  "next-turn": '<path d="M4 5v14l8-7zM12 5v14l8-7z"/>',
  last: '<path d="M17 5h2v14h-2zM5 5v14l6-7zM11 5v14l6-7z"/>',
};

function iconButton(key, label, onclick, extra = "") {
  return h("button", { type: "button", class: ["btn", "btn-icon", extra], dataset: { key }, id: `replay-${key}`, "aria-label": label, title: label, onclick }, svg("0 0 24 24", ICONS[key]));
}

/** Where the replay rests when it steps by turn: the start, then the end of each turn
 * (the game's last event for the last one, so the end shows the result). */
function turnStops(turns, last) {
  const stops = [];
  if (turns.length) stops.push(turns[0].start);
  for (const t of turns) if (t.end !== null && t.end > stops[stops.length - 1]) stops.push(t.end);
  return stops.length ? stops : [last];
}

/** The finished game's record as a file (GET /export); nothing for a game not over. */
function downloadLink(gameId, summary) {
  if (summary.status !== "finished") return null;
  return h("a", { class: "btn btn-small btn-quiet", id: "replay-download", href: exportUrl(gameId), download: `${gameId}.json`, title: t("The whole game as a JSON file (docs/export.md)") }, t("Download"));
}

export async function showReplay(main, gameId, startAt) {
  mount(main, h("p", { class: "loading" }, t("Loading the replay…")));
  let summary;
  let events;
  try {
    summary = await gameSummary(gameId);
    events = await fetchEvents(gameId, { after: 0 });
  } catch (err) {
    mount(main, h("section", { class: "panel notice" }, h("h1", {}, t("This game can't be replayed")), h("p", {}, err.message), h("a", { class: "btn", href: "#/" }, t("Back to the lobby"))));
    return () => {};
  }
  const kit = KITS[summary.variant];
  if (!kit) {
    mount(main, h("section", { class: "panel notice" }, h("h1", {}, variantName(summary.variant)), h("p", {}, t("This page can't replay this game.")), h("a", { class: "btn", href: "#/" }, t("Back to the lobby"))));
    return () => {};
  }
  const describeEvent = describerFor(summary.variant);
  let catalog;
  try {
    catalog = await fetchCatalog(summary.variant);
  } catch (err) {
    mount(main, h("section", { class: "panel notice" }, h("h1", {}, t("This game can't be replayed")), h("p", {}, err.message), h("a", { class: "btn", href: "#/" }, t("Back to the lobby"))));
    return () => {};
  }
  const names = new Names();
  const last = events.length ? events[events.length - 1].version : summary.version;
  const first = 1;
  const turns = turnsOf(events);
  const stops = turnStops(turns, last);
  const played = turns.filter((t) => t.end !== null).length;
  const byVersion = new Map(events.map((e) => [e.version, e]));
  const cache = new Map(); // version -> Promise<view>
  let current = Math.min(last, Math.max(first, startAt || stops[0]));
  let shown = null; // the view on screen
  let playing = false;
  let playTimer = null;
  let speed = DEFAULT_SPEED;
  let stopped = false;
  const lastMove = new LastMove();

  const log = new GameLog({ names, catalog, onPick: (v) => go(v), title: t("Events"), variant: summary.variant });
  log.add(events);
  const moves = new MoveList({ turns, events, names, catalog, variant: summary.variant, onPick: (t) => go(t.end ?? t.start) });
  moves.render();

  // The analysis of a finished game (docs/analysis.md): the chance graph, the mistakes
  // in the move list and, on demand, the bot's choice at the turn shown.
  const graph = summary.status === "finished" ? new ChanceGraph({ gameId, names, players: summary.players, onPick: (v) => (pause(), go(v)) }) : null;
  let showBest = false;
  const bestLine = h("p", { class: "replay-best", id: "replay-best", "aria-live": "polite", hidden: true });
  const bestButton = graph && h("button", { type: "button", class: "btn btn-small", id: "replay-best-toggle", "aria-pressed": "false", title: t("What the bot would have played here (B)"), onclick: () => toggleBest() }, t("Bot's move"));
  function toggleBest() {
    showBest = !showBest;
    bestButton.setAttribute("aria-pressed", String(showBest));
    drawBest();
  }
  // The pieces of the bot's move, drawn on the table shown (suggestion.js).
  let suggested = [];
  let bestAsked = 0; // the latest drawing of the bot's move (an earlier one still loading gives way)
  function showSuggested(marks) {
    suggested = marks;
    markSuggestion(main, suggested);
  }
  async function drawBest() {
    const asked = ++bestAsked;
    bestLine.hidden = !showBest;
    if (!showBest || !graph) return showSuggested([]);
    if (!graph.analysis) {
      bestLine.textContent = t("The analysis is not ready yet.");
      return showSuggested([]);
    }
    const best = graph.bestAt(current);
    if (best === null) {
      bestLine.textContent = t("No move to suggest here.");
      return showSuggested([]);
    }
    const seat = turns.find((t) => (t.end ?? Infinity) > best.version)?.seat;
    // The action is read on the table it was chosen at: the turn's start.
    const at = await viewAt(best.version).catch(() => shown);
    if (asked !== bestAsked || stopped) return;
    const args = { move: suggestionWords(best.action, at, catalog, summary.variant, seat), chances: graph.chancesWords(current) };
    bestLine.textContent = seat === null || seat === undefined
      ? t("The bot would play: {move}. Chances here: {chances}.", args)
      : t("For {who}, the bot would play: {move}. Chances here: {chances}.", { ...args, who: names.of(seat) });
    bestLine.dataset.kind = best.action.kind;
    showSuggested(suggestionMarks(best.action, at, seat));
  }

  const tableSlot = h("div", { class: "table-slot" });
  const playersSlot = h("div", { class: "players-slot" });
  const caption = h("p", { class: "replay-caption", id: "replay-caption", "aria-live": "polite" });
  const position = h("span", { class: "replay-position", id: "replay-position" });
  const slider = h("input", { type: "range", id: "replay-slider", min: "0", max: String(stops.length - 1), value: "0", "aria-label": t("Turn") });
  const jump = h("input", { type: "number", id: "replay-goto", min: "0", max: String(played), value: "0", "aria-label": t("Go to turn"), inputmode: "numeric" });
  const playButton = iconButton("play", t("Play"), () => (playing ? pause() : play()), "btn-play");
  const speedSelect = h(
    "select",
    { id: "replay-speed", "aria-label": t("Speed"), onchange: (e) => (speed = Number(e.target.value)) },
    SPEEDS.map(([v, label]) => h("option", { value: v, selected: Number(v) === speed }, label)),
  );
  const title = h("p", { class: "turn-line", id: "turn-line" });
  const headline = h("p", { class: "replay-result", id: "replay-result" });

  // The moves (turns) or every event: one list on screen at a time.
  const tabs = {};
  function showList(which) {
    for (const [key, tab] of Object.entries(tabs)) tab.setAttribute("aria-pressed", String(key === which));
    moves.el.hidden = which !== "moves";
    log.el.hidden = which !== "events";
    (which === "moves" ? moves : log).setCurrent(which === "moves" ? moves.current : log.current);
  }
  for (const [key, label] of [["moves", t("Moves")], ["events", t("Every event")]]) {
    tabs[key] = h("button", { type: "button", class: "btn btn-small list-tab", id: `replay-list-${key}`, "aria-pressed": "false", onclick: () => showList(key) }, label);
  }

  slider.addEventListener("input", () => go(stops[Number(slider.value)], { fromSlider: true }));
  jump.addEventListener("change", () => {
    const n = Number(jump.value);
    if (Number.isFinite(n)) go(stops[Math.max(0, Math.min(stops.length - 1, Math.round(n)))]);
  });

  /** How many turns are over at `version`, and the stop index at or before it. */
  function stopIndex(version) {
    let i = 0;
    while (i + 1 < stops.length && stops[i + 1] <= version) i += 1;
    return i;
  }

  function positionWords(version) {
    if (version < stops[0]) return t("Setting up: event {version} of {last}", { version, last });
    const i = stopIndex(version);
    if (stops[i] === version) return i === 0 ? t("Start · {played} turns", { played }) : t("Turn {n} of {played}", { n: i, played });
    const turn = turns[i];
    const step = turn ? turn.versions.indexOf(version) + 1 : 0;
    return t("Turn {n} of {played} · event {step} of {steps}", { n: i + 1, played, step, steps: turn ? turn.versions.length : "?" });
  }

  function captionWords(version) {
    const i = stopIndex(version);
    if (stops[i] === version && i > 0) return moves.words(turns[i - 1]);
    const event = byVersion.get(version);
    return event ? describeEvent(event, names, catalog).text : "";
  }

  function viewAt(version) {
    if (!cache.has(version)) {
      const pending = fetchView(gameId, { version }).then((r) => r.view);
      pending.catch(() => cache.delete(version));
      cache.set(version, pending);
    }
    return cache.get(version);
  }

  function prefetch(from) {
    const i = stopIndex(from);
    for (const v of stops.slice(i + 1, i + 4)) viewAt(v).catch(() => {});
  }

  async function go(version, { fromSlider = false } = {}) {
    const target = Math.max(first, Math.min(last, version));
    current = target;
    const i = stopIndex(target);
    if (!fromSlider) slider.value = String(i);
    jump.value = String(i);
    position.textContent = positionWords(target);
    caption.textContent = captionWords(target);
    log.setCurrent(target);
    if (graph) graph.setCurrent(target);
    drawBest();
    // The turn shown: the last one over at a stop, else the one being played.
    moves.setCurrent(target < stops[0] ? null : stops[i] === target ? (i > 0 ? i : null) : i + 1);
    window.history.replaceState(null, "", `#/replay/${encodeURIComponent(gameId)}/${target}`);
    let view;
    try {
      view = await viewAt(target);
    } catch (err) {
      caption.textContent = t("This move can't be loaded: {problem}", { problem: err.message });
      return;
    }
    if (stopped || current !== target) return; // a later step won
    const before = shown;
    shown = view;
    names.learnView(view);
    draw();
    // Stepping forward marks what the step changed (one turn, or an event of it);
    // going back, or a jump over several turns, marks nothing.
    const oneStep = before && view.version > before.version && stopIndex(view.version) - stopIndex(before.version) <= 1;
    if (oneStep) lastMove.show(before, view);
    else lastMove.clear();
    lastMove.apply(main);
    if (playing) prefetch(target);
  }

  function draw() {
    if (!shown) return;
    mount(tableSlot, kit.renderTable(shown, catalog));
    mount(playersSlot, kit.renderPlayers(shown, catalog));
    markSuggestion(main, suggested);
    title.textContent = turnLine({ ...shown, players_count: summary.players }, names, turns, last);
    headline.textContent = shown.result ? resultHeadline(shown) : "";
  }

  /** The next (+1) or previous (-1) turn stop from the current version. */
  function turnStep(direction) {
    if (direction > 0) return stops.find((v) => v > current) ?? last;
    const before = stops.filter((v) => v < current);
    return before.length ? before[before.length - 1] : first;
  }

  async function tick() {
    if (!playing || stopped) return;
    if (current >= last) {
      pause();
      return;
    }
    await go(turnStep(1));
    if (playing && !stopped) playTimer = window.setTimeout(tick, speed);
  }

  function play() {
    if (current >= last) current = stops[0];
    playing = true;
    mount(playButton, svg("0 0 24 24", ICONS.pause));
    playButton.setAttribute("aria-label", t("Pause"));
    playButton.title = t("Pause");
    prefetch(current);
    playTimer = window.setTimeout(tick, 50);
  }

  function pause() {
    playing = false;
    window.clearTimeout(playTimer);
    mount(playButton, svg("0 0 24 24", ICONS.play));
    playButton.setAttribute("aria-label", t("Play"));
    playButton.title = t("Play");
  }

  const help = new HelpDialog([
    [readingArrows("← / →"), t("one turn back / forward")],
    [readingArrows(tp("key", "Shift+← / Shift+→")), t("one event back / forward")],
    [tp("key", "Home / End"), t("the start / the end")],
    [tp("key", "Space"), t("play / pause")],
    ["B", t("the bot's move here (finished games)")],
    ["?", t("this list")],
  ], { variant: summary.variant });
  const onKey = (e) => {
    if (help.onKey(e) || help.dialog.open) return;
    const target = e.target;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      if (typing) return; // the slider and the number field step themselves
      e.preventDefault();
      const step = e.key === FORWARD_KEY ? 1 : -1;
      pause();
      go(e.shiftKey ? current + step : turnStep(step));
    } else if ((e.key === "Home" || e.key === "End") && !typing) {
      e.preventDefault();
      pause();
      go(e.key === "Home" ? stops[0] : last);
    } else if ((e.key === "b" || e.key === "B") && graph && !typing) {
      e.preventDefault();
      toggleBest();
    } else if (e.key === " " && !typing && !(target instanceof HTMLButtonElement) && !(target instanceof HTMLAnchorElement)) {
      e.preventDefault();
      playing ? pause() : play();
    }
  };
  document.addEventListener("keydown", onKey);

  const stepped = (fn) => () => {
    pause();
    go(fn());
  };
  mount(
    main,
    h(
      "div",
      { class: "game-page replay-page", dataset: { mode: "replay", game: gameId } },
      h(
        "div",
        { class: "game-head" },
        h("div", { class: "game-title" }, h("h1", {}, t("Replay: {game}", { game: variantName(summary.variant) }), " ", h("span", { class: "game-id" }, `#${gameId}`)), title),
        h("div", { class: "head-side" }, headline, downloadLink(gameId, summary), howtoLink(summary.variant, { newTab: true, short: true, className: "btn btn-small btn-quiet replay-howto" }), help.button),
      ),
      h(
        "section",
        { class: "replay-bar", "aria-label": t("Replay controls") },
        h(
          "div",
          { class: "replay-buttons" },
          iconButton("first", t("Start (Home)"), stepped(() => stops[0])),
          iconButton("prev-turn", t("Previous turn (Left arrow)"), stepped(() => turnStep(-1))),
          iconButton("prev-event", t("One event back (Shift+Left)"), stepped(() => current - 1), "btn-event"),
          playButton,
          iconButton("next-event", t("One event forward (Shift+Right)"), stepped(() => current + 1), "btn-event"),
          iconButton("next-turn", t("Next turn (Right arrow)"), stepped(() => turnStep(1))),
          iconButton("last", t("End (End)"), stepped(() => last)),
        ),
        h("div", { class: "replay-slider" }, slider, position),
        h("div", { class: "replay-extra" }, h("label", { class: "goto" }, t("Turn"), " ", jump), speedSelect, bestButton),
        caption,
        bestLine,
      ),
      graph && graph.el,
      h(
        "div",
        { class: ["game-grid", summary.players >= 3 && "many-players", summary.variant === "duel" && "duel-grid"] },
        h("div", { class: "col-board" }, tableSlot),
        h("div", { class: "col-players" }, playersSlot),
        h(
          "div",
          { class: "col-log" },
          h("section", { class: "log replay-lists", "aria-label": t("Moves and events") }, h("div", { class: "list-tabs", role: "group", "aria-label": t("Show") }, tabs.moves, tabs.events), moves.el, log.el),
        ),
      ),
    ),
  );
  showList("moves");
  if (graph)
    graph.load((analysis) => {
      moves.markMistakes(analysis.mistakes);
      graph.setCurrent(current);
      drawBest();
    });
  // Left while loading: the address is the next page's, and stays so.
  if (main.isConnected) await go(current);
  return () => {
    stopped = true;
    if (graph) graph.destroy();
    pause();
    lastMove.destroy();
    help.destroy();
    document.removeEventListener("keydown", onKey);
  };
}
