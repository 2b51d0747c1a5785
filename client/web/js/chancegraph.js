// The replay's chance-to-win graph (GET /api/games/{id}/analysis, docs/analysis.md):
// one SVG line per seat over the game's versions, each seat with a colour of the
// Okabe-Ito palette (safe for colour-blind eyes) and a dash of its own, so the lines
// are told apart without colour too; the biggest mistakes are rings on the mover's line;
// a vertical line marks the version on screen. Clicking (or tapping) the graph jumps
// the replay to the version under the pointer. A game not analysed yet has a button
// that asks for its analysis (the server analyses on request: docs/analysis.md); while
// it is queued the panel says how many games are ahead and about how long it takes,
// then how far the analysis is, asking again every few seconds.

import { gameAnalysis, requestAnalysis } from "./api.js";
import { h, mount, svgElement as el } from "./dom.js";
import { dir, formatList, formatPercent, t, tn } from "./i18n.js";

const W = 600;
const H = 150;
// The SVG stretches to the panel's width at a fixed height of H pixels (so one unit
// down is one pixel): its percentages are HTML beside it, and its marks zero-length
// round-capped strokes of a width in pixels, so nothing is drawn stretched.
const PAD = { left: 0, right: 0, top: 8, bottom: 8 };
export const SEAT_COLOURS = ["#56B4E9", "#E69F00", "#CC79A7", "#F0E442"];
export const SEAT_DASHES = ["", "8 4", "2 3", "10 3 2 3"];
const POLL_MS = 3000;
// The moves run the way the page reads, as the replay's slider does: from the right
// in a page written right to left (docs/web.md "Right to left").
const MIRRORED = dir === "rtl";

const percent = (p) => formatPercent(p);

/** Where a pending analysis is, in words: queued (the games ahead, the wait) or under way. */
function waitWords(body) {
  const known = (wait) => wait !== null && wait !== undefined;
  if (body.stage === "queued") {
    const n = body.ahead;
    if (body.analysers === 0) return tn("Queued: {n} game ahead; no analyser is running at the moment.", "Queued: {n} games ahead; no analyser is running at the moment.", n);
    if (!known(body.wait_s)) return tn("Queued: {n} game ahead.", "Queued: {n} games ahead.", n);
    return tn("Queued: {n} game ahead, about {wait} s.", "Queued: {n} games ahead, about {wait} s.", n, { wait: body.wait_s });
  }
  if (body.stage === "running" && body.of) {
    const args = { done: body.positions, of: body.of, wait: body.wait_s };
    if (!known(body.wait_s)) return t("Analysing: {done} of {of} positions.", args);
    return t("Analysing: {done} of {of} positions, about {wait} s left.", args);
  }
  return t("Analysis: the bots are still studying this game…");
}

export class ChanceGraph {
  /** names: Names (seat -> name); onPick(version) jumps the replay. */
  constructor({ gameId, names, players, onPick }) {
    this.gameId = gameId;
    this.names = names;
    this.players = players;
    this.onPick = onPick;
    this.analysis = null;
    this.current = null;
    this.timer = null;
    this.stopped = false;
    this.listeners = [];
    this.status = h("p", { class: "chance-status", id: "chance-status", "aria-live": "polite" }, t("Analysis: loading…"));
    this.button = h("button", { type: "button", class: "btn btn-small", id: "chance-request", hidden: true, onclick: () => this.request() }, t("Analyse this game"));
    this.body = h("div", { class: "chance-body" });
    this.el = h("section", { class: "chance-panel", id: "chance-panel", "aria-label": t("Chance to win") }, h("h2", { class: "chance-title" }, t("Chance to win")), this.status, this.button, this.body);
  }

  /** Ask the server (again while pending); calls `ready(analysis)` once done. */
  async load(ready) {
    if (ready) this.listeners.push(ready);
    await this.show(() => gameAnalysis(this.gameId));
  }

  /** Ask for the analysis (the panel's button), then follow it as `load` does. */
  async request() {
    this.button.disabled = true;
    await this.show(() => requestAnalysis(this.gameId));
  }

  async show(ask) {
    window.clearTimeout(this.timer);
    let body;
    try {
      body = await ask();
    } catch (err) {
      this.status.textContent = t("No analysis: {problem}", { problem: err.message });
      this.button.disabled = false;
      return;
    }
    if (this.stopped) return;
    this.button.hidden = body.status !== "not_requested";
    this.button.disabled = false;
    if (body.status === "not_requested" || body.status === "off") {
      this.status.textContent = body.status === "off" ? t("This server does not analyse games.") : t("This game has not been analysed.");
      return;
    }
    if (body.status !== "done") {
      this.status.textContent = waitWords(body);
      this.timer = window.setTimeout(() => this.show(() => gameAnalysis(this.gameId)), POLL_MS);
      return;
    }
    this.analysis = body;
    this.status.textContent = "";
    this.draw();
    for (const listener of this.listeners) listener(body);
  }

  destroy() {
    this.stopped = true;
    window.clearTimeout(this.timer);
  }

  get versions() {
    return this.analysis ? this.analysis.seats[0].length - 1 : 0;
  }

  x(version) {
    const along = (version * (W - PAD.left - PAD.right)) / Math.max(1, this.versions);
    return MIRRORED ? W - PAD.right - along : PAD.left + along;
  }

  y(p) {
    return PAD.top + (1 - p) * (H - PAD.top - PAD.bottom);
  }

  /** The version under a click at `clientX` on the graph. */
  versionAt(graph, clientX) {
    const box = graph.getBoundingClientRect();
    const inside = ((clientX - box.left) / box.width) * W;
    const along = MIRRORED ? W - PAD.right - inside : inside - PAD.left;
    const share = along / (W - PAD.left - PAD.right);
    return Math.max(0, Math.min(this.versions, Math.round(share * this.versions)));
  }

  draw() {
    const { seats, mistakes } = this.analysis;
    const ends = seats.map((line, s) => t("{who} ends at {chance}", { who: this.names.of(s), chance: percent(line[line.length - 1]) }));
    const sentence = t("Each player's chance to win, move by move: {ends}. Click the graph to go to that move.", { ends: formatList(ends, { units: true }) });
    const graph = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chance-graph", id: "chance-graph", role: "img", "aria-label": sentence, preserveAspectRatio: "none" });
    const axis = h("div", { class: "chance-axis", "aria-hidden": "true" });
    for (const p of [1, 0.5, 0]) {
      graph.append(el("line", { x1: 0, x2: W, y1: this.y(p), y2: this.y(p), class: "chance-grid" }));
      axis.append(h("span", { style: { top: `${this.y(p)}px` } }, percent(p)));
    }
    seats.forEach((line, s) => {
      const points = line.map((p, v) => `${this.x(v).toFixed(1)},${this.y(p).toFixed(1)}`).join(" ");
      const attrs = { points, class: "chance-line", "data-seat": s, stroke: SEAT_COLOURS[s % SEAT_COLOURS.length] };
      if (SEAT_DASHES[s]) attrs["stroke-dasharray"] = SEAT_DASHES[s];
      graph.append(el("polyline", attrs));
    });
    for (const m of mistakes) {
      const at = { x1: this.x(m.version), x2: this.x(m.version), y1: this.y(seats[m.seat][m.version]), y2: this.y(seats[m.seat][m.version]) };
      const mark = el("g", { class: "chance-mistake", "data-version": m.version });
      mark.append(el("line", { ...at, class: "chance-mistake-ring", stroke: SEAT_COLOURS[m.seat % SEAT_COLOURS.length] }), el("line", { ...at, class: "chance-mistake-hole" }));
      mark.append(el("title", {}, t("{who} lost {chance} here", { who: this.names.of(m.seat), chance: percent(m.lost) })));
      graph.append(mark);
    }
    this.cursor = el("line", { y1: PAD.top, y2: H - PAD.bottom, class: "chance-cursor", id: "chance-cursor" });
    graph.append(this.cursor);
    graph.addEventListener("click", (e) => this.onPick(this.versionAt(graph, e.clientX)));
    const legend = h(
      "ul",
      { class: "chance-legend" },
      seats.map((_, s) => {
        const key = el("svg", { viewBox: "0 0 30 8", class: "chance-key", "aria-hidden": "true" });
        const sample = el("line", { x1: 0, x2: 30, y1: 4, y2: 4, stroke: SEAT_COLOURS[s % SEAT_COLOURS.length], "stroke-width": 3 });
        if (SEAT_DASHES[s]) sample.setAttribute("stroke-dasharray", SEAT_DASHES[s]);
        key.append(sample);
        return h("li", { dataset: { seat: String(s) } }, key, this.names.of(s));
      }),
    );
    mount(this.body, h("div", { class: "chance-plot" }, axis, graph), legend);
    this.setCurrent(this.current);
  }

  /** Mark `version` (the one on screen). */
  setCurrent(version) {
    this.current = version;
    if (!this.analysis || version === null || !this.cursor) return;
    const v = Math.min(version, this.versions);
    this.cursor.setAttribute("x1", this.x(v).toFixed(1));
    this.cursor.setAttribute("x2", this.x(v).toFixed(1));
    this.cursor.dataset.version = String(version);
  }

  /** The chance of every seat at `version`, in words. */
  chancesWords(version) {
    if (!this.analysis) return "";
    const v = Math.min(version, this.versions);
    return formatList(this.analysis.seats.map((line, s) => t("{who} {chance}", { who: this.names.of(s), chance: percent(line[v]) })), { units: true });
  }

  /** What the bot would have played in the turn being played (or about to be) at
   * `version`: the analysis's `best` of the last turn start at or before it. */
  bestAt(version) {
    if (!this.analysis) return null;
    let found = null;
    for (const [v, action] of Object.entries(this.analysis.best)) {
      if (Number(v) <= version && (found === null || Number(v) > found.version)) found = { version: Number(v), action };
    }
    return found;
  }
}
