// A player's rating over its rated games, drawn as an SVG line (no library): one point
// per game, the first at the rating before them (1500 for a whole history). Each point
// says its rating in a <title> (a tooltip); the whole graph is one image with a
// sentence for screen readers (the games list below it has the replay links).

import { svgElement as el } from "./dom.js";
import { dir, formatDate, formatNumber, t, tn } from "./i18n.js";

const W = 600;
const H = 180;
const PAD = { left: 44, right: 10, top: 12, bottom: 22 };
const START = 1500;
// The games run the way the page reads: from the right in a page written right to
// left. Only x is mirrored: an SVG text's anchor (start, end) follows the page's
// direction by itself, so the labels stay beside their marks.
const MIRRORED = dir === "rtl";
const across = (x) => (MIRRORED ? W - x : x);

/** `history`: [{game, at, rating, delta, rank, of}], oldest first; `label` names it. */
export function ratingGraph(history, label) {
  // The rating before the first game shown: 1500, unless older games are left out.
  const before = history.length ? history[0].rating - history[0].delta : START;
  const ratings = [before, ...history.map((p) => p.rating)];
  let low = Math.min(...ratings);
  let high = Math.max(...ratings);
  if (high - low < 40) {
    low -= 20;
    high += 20;
  }
  const x = (i) => across(PAD.left + (i * (W - PAD.left - PAD.right)) / Math.max(1, ratings.length - 1));
  const y = (r) => PAD.top + ((high - r) * (H - PAD.top - PAD.bottom)) / (high - low);
  const last = ratings[ratings.length - 1];
  const sentence = tn("{label}: {n} rated game, from {before} to {last} (lowest {lowest}, highest {highest}).", "{label}: {n} rated games, from {before} to {last} (lowest {lowest}, highest {highest}).", history.length, { label, before, last, lowest: Math.min(...ratings), highest: Math.max(...ratings) });
  const graph = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-graph", role: "img", "aria-label": sentence });
  graph.append(el("title", {}, sentence));
  for (const r of [high, low]) {
    graph.append(el("line", { x1: across(PAD.left), x2: across(W - PAD.right), y1: y(r), y2: y(r), class: "rating-grid" }));
    graph.append(el("text", { x: across(PAD.left - 6), y: y(r) + 4, "text-anchor": "end", class: "rating-axis" }, formatNumber(Math.round(r))));
  }
  if (low < START && START < high) {
    graph.append(el("line", { x1: across(PAD.left), x2: across(W - PAD.right), y1: y(START), y2: y(START), class: "rating-start" }));
  }
  graph.append(el("text", { x: across(PAD.left), y: H - 6, class: "rating-axis" }, t("first game")));
  graph.append(el("text", { x: across(W - PAD.right), y: H - 6, "text-anchor": "end", class: "rating-axis" }, t("latest")));
  const points = ratings.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
  graph.append(el("polyline", { points, class: "rating-line" }));
  history.forEach((p, i) => {
    const dot = el("circle", { cx: x(i + 1), cy: y(p.rating), r: 4, class: p.delta >= 0 ? "rating-dot up" : "rating-dot down" });
    const sign = p.delta >= 0 ? "+" : "−";
    const args = { rating: p.rating, change: `${sign}${formatNumber(Math.abs(p.delta))}`, rank: p.rank, of: p.of, at: formatDate(p.at, { time: true }) };
    dot.append(el("title", {}, p.rank === 1 ? t("{rating} ({change}), won, {at}", args) : t("{rating} ({change}), rank {rank} of {of}, {at}", args)));
    graph.append(dot);
  });
  return graph;
}
