// `#/replay/{id}` (or `#/replay/{id}/{version}`): a game move by move from its log.
// The log comes from GET /events; the table at move N is GET /view?version=N
// (cached, fetched ahead while playing), so what is shown is exactly the server's
// view at that version. Step, jump with the slider, play and pause; arrows step.

import { fetchCatalog, fetchEvents, fetchView, gameSummary } from "./api.js";
import { h, mount, svg } from "./dom.js";
import { describerFor } from "./duel_words.js";
import { KITS, turnLine } from "./game.js";
import { LastMove } from "./lastmove.js";
import { GameLog } from "./log.js";
import { resultHeadline } from "./results.js";
import { Names, variantName } from "./words.js";

const SPEEDS = [
  ["1500", "Slow"],
  ["800", "Normal"],
  ["300", "Fast"],
];

const ICONS = {
  first: '<path d="M6 5h2v14H6zM19 5v14L9 12z"/>',
  prev: '<path d="M17 5v14L6 12z"/>',
  play: '<path d="M7 5v14l12-7z"/>',
  pause: '<path d="M6 5h4v14H6zM14 5h4v14h-4z"/>',
  next: '<path d="M7 5v14l11-7z"/>',
  last: '<path d="M16 5h2v14h-2zM5 5v14l10-7z"/>',
};

function iconButton(key, label, onclick) {
  return h("button", { type: "button", class: "btn btn-icon", dataset: { key }, id: `replay-${key}`, "aria-label": label, title: label, onclick }, svg("0 0 24 24", ICONS[key]));
}

export async function showReplay(main, gameId, startAt) {
  mount(main, h("p", { class: "loading" }, "Loading the replay…"));
  let summary;
  let events;
  try {
    summary = await gameSummary(gameId);
    events = await fetchEvents(gameId, { after: 0 });
  } catch (err) {
    mount(main, h("section", { class: "panel notice" }, h("h1", {}, "This game can't be replayed"), h("p", {}, err.message), h("a", { class: "btn", href: "#/" }, "Back to the lobby")));
    return () => {};
  }
  const kit = KITS[summary.variant];
  if (!kit) {
    mount(main, h("section", { class: "panel notice" }, h("h1", {}, variantName(summary.variant)), h("p", {}, "This page can't replay this game."), h("a", { class: "btn", href: "#/" }, "Back to the lobby")));
    return () => {};
  }
  const describeEvent = describerFor(summary.variant);
  const catalog = await fetchCatalog(summary.variant);
  const names = new Names();
  const last = events.length ? events[events.length - 1].version : summary.version;
  const started = events.find((e) => e.type === "GameStarted");
  const first = 1;
  const byVersion = new Map(events.map((e) => [e.version, e]));
  const cache = new Map(); // version -> Promise<view>
  let current = Math.min(last, Math.max(first, startAt || (started ? started.version : first)));
  let shown = null; // the view on screen
  let playing = false;
  let playTimer = null;
  let speed = 800;
  let stopped = false;
  const lastMove = new LastMove();

  const log = new GameLog({ names, catalog, onPick: (v) => go(v), title: "Moves", variant: summary.variant });
  log.add(events);

  const tableSlot = h("div", { class: "table-slot" });
  const playersSlot = h("div", { class: "players-slot" });
  const caption = h("p", { class: "replay-caption", id: "replay-caption", "aria-live": "polite" });
  const position = h("span", { class: "replay-position", id: "replay-position" });
  const slider = h("input", { type: "range", id: "replay-slider", min: String(first), max: String(last), value: String(current), "aria-label": "Move" });
  const jump = h("input", { type: "number", id: "replay-goto", min: String(first), max: String(last), value: String(current), "aria-label": "Go to move", inputmode: "numeric" });
  const playButton = iconButton("play", "Play", () => (playing ? pause() : play()));
  const speedSelect = h(
    "select",
    { id: "replay-speed", "aria-label": "Speed", onchange: (e) => (speed = Number(e.target.value)) },
    SPEEDS.map(([v, label]) => h("option", { value: v, selected: Number(v) === speed }, label)),
  );
  const title = h("p", { class: "turn-line", id: "turn-line" });
  const headline = h("p", { class: "replay-result", id: "replay-result" });

  slider.addEventListener("input", () => go(Number(slider.value), { fromSlider: true }));
  jump.addEventListener("change", () => {
    const n = Number(jump.value);
    if (Number.isFinite(n)) go(Math.round(n));
  });

  function viewAt(version) {
    if (!cache.has(version)) {
      const pending = fetchView(gameId, { version }).then((r) => r.view);
      pending.catch(() => cache.delete(version));
      cache.set(version, pending);
    }
    return cache.get(version);
  }

  function prefetch(from) {
    for (let v = from + 1; v <= Math.min(last, from + 4); v += 1) viewAt(v).catch(() => {});
  }

  async function go(version, { fromSlider = false } = {}) {
    const target = Math.max(first, Math.min(last, version));
    current = target;
    if (!fromSlider) slider.value = String(target);
    jump.value = String(target);
    position.textContent = `Move ${target} of ${last}`;
    const event = byVersion.get(target);
    caption.textContent = event ? describeEvent(event, names, catalog).text : "";
    log.setCurrent(target);
    window.history.replaceState(null, "", `#/replay/${encodeURIComponent(gameId)}/${target}`);
    let view;
    try {
      view = await viewAt(target);
    } catch (err) {
      caption.textContent = `This move can't be loaded: ${err.message}`;
      return;
    }
    if (stopped || current !== target) return; // a later step won
    const before = shown;
    shown = view;
    names.learnView(view);
    draw();
    // Stepping forward marks what the step changed; going back marks nothing.
    if (before && view.version > before.version) lastMove.show(before, view);
    else lastMove.clear();
    lastMove.apply(main);
    if (playing) prefetch(target);
  }

  function draw() {
    if (!shown) return;
    mount(tableSlot, kit.renderTable(shown, catalog));
    mount(playersSlot, kit.renderPlayers(shown, catalog));
    title.textContent = turnLine({ ...shown, players_count: summary.players }, names);
    headline.textContent = shown.result ? resultHeadline(shown) : "";
  }

  function turnBoundary(direction) {
    // The previous/next "X's turn" line (TurnEnded), or the ends.
    let v = current + direction;
    while (v > first && v < last) {
      const e = byVersion.get(v);
      if (e && e.type === "TurnEnded") return v;
      v += direction;
    }
    return v;
  }

  async function tick() {
    if (!playing || stopped) return;
    if (current >= last) {
      pause();
      return;
    }
    await go(current + 1);
    if (playing && !stopped) playTimer = window.setTimeout(tick, speed);
  }

  function play() {
    if (current >= last) current = first;
    playing = true;
    mount(playButton, svg("0 0 24 24", ICONS.pause));
    playButton.setAttribute("aria-label", "Pause");
    playButton.title = "Pause";
    prefetch(current);
    playTimer = window.setTimeout(tick, 50);
  }

  function pause() {
    playing = false;
    window.clearTimeout(playTimer);
    mount(playButton, svg("0 0 24 24", ICONS.play));
    playButton.setAttribute("aria-label", "Play");
    playButton.title = "Play";
  }

  const onKey = (e) => {
    const target = e.target;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      if (typing) return; // the slider and the number field step themselves
      e.preventDefault();
      const dir = e.key === "ArrowLeft" ? -1 : 1;
      pause();
      go(e.shiftKey ? turnBoundary(dir) : current + dir);
    } else if ((e.key === "Home" || e.key === "End") && !typing) {
      e.preventDefault();
      pause();
      go(e.key === "Home" ? first : last);
    } else if (e.key === " " && !typing && !(target instanceof HTMLButtonElement) && !(target instanceof HTMLAnchorElement)) {
      e.preventDefault();
      playing ? pause() : play();
    }
  };
  document.addEventListener("keydown", onKey);

  mount(
    main,
    h(
      "div",
      { class: "game-page replay-page", dataset: { mode: "replay", game: gameId } },
      h(
        "div",
        { class: "game-head" },
        h("div", { class: "game-title" }, h("h1", {}, `Replay: ${variantName(summary.variant)} `, h("span", { class: "game-id" }, `#${gameId}`)), title),
        h("div", { class: "head-side" }, headline),
      ),
      h(
        "section",
        { class: "replay-bar", "aria-label": "Replay controls" },
        h(
          "div",
          { class: "replay-buttons" },
          iconButton("first", "First move (Home)", () => { pause(); go(first); }),
          iconButton("prev", "Step back (Left arrow)", () => { pause(); go(current - 1); }),
          playButton,
          iconButton("next", "Step forward (Right arrow)", () => { pause(); go(current + 1); }),
          iconButton("last", "Last move (End)", () => { pause(); go(last); }),
        ),
        h("div", { class: "replay-slider" }, slider, position),
        h("div", { class: "replay-extra" }, h("label", { class: "goto" }, "Go to ", jump), speedSelect),
        caption,
      ),
      h(
        "div",
        { class: ["game-grid", summary.players >= 3 && "many-players", summary.variant === "duel" && "duel-grid"] },
        h("div", { class: "col-board" }, tableSlot),
        h("div", { class: "col-players" }, playersSlot),
        h("div", { class: "col-log" }, log.el),
      ),
    ),
  );
  await go(current);
  return () => {
    stopped = true;
    pause();
    lastMove.destroy();
    document.removeEventListener("keydown", onKey);
  };
}
