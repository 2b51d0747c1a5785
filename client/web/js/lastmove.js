// The last move, shown: what the most recent move changed on the table (tokens,
// the card bought or reserved, the card dealt into a slot, the bank or the board,
// points) is marked with `data-last-move` for a few seconds, and each marked piece
// glides in from where it came from (a token from the bank to a player, a card
// from its slot to its buyer, a new card from its deck).
//
// Nothing here knows a rule: the changes are read by comparing the view before
// with the view after, the same views the page draws (live diffs, a snapshot, or
// the replay's views). Under prefers-reduced-motion the pieces are only marked.

const SHOWN_MS = 5000;
const GLIDE_MS = 450;

const LEVELS = ["1", "2", "3"];

/** A selector's attribute value, quoted. */
function q(value) {
  return JSON.stringify(String(value));
}

function playerSel(seat) {
  return `[data-player=${q(seat)}]`;
}

function slotSel(level, index) {
  return `.slot[data-level=${q(level)}][data-index=${q(index)}]`;
}

function deckSel(level) {
  return `[data-deck=${q(level)}]`;
}

function chipSel(seat, colour) {
  return `${playerSel(seat)} .gem-col-${colour} > .token`;
}

/** Where each card shown face up in `rows` ({level: [id|null]}) lies: id -> slot selector. */
function slotsOf(rows) {
  const where = new Map();
  for (const level of LEVELS) {
    ((rows && rows[level]) || []).forEach((id, index) => {
      if (id) where.set(id, slotSel(level, index));
    });
  }
  return where;
}

function changedKeys(a = {}, b = {}) {
  const keys = new Set([...Object.keys(a || {}), ...Object.keys(b || {})]);
  return [...keys].filter((k) => ((a || {})[k] || 0) !== ((b || {})[k] || 0));
}

/** The marks of the slots and decks: a card gone, a card dealt (it comes from its deck). */
function rowMarks(before, after, beforeDecks, afterDecks, out) {
  for (const level of LEVELS) {
    const was = (before && before[level]) || [];
    const now = (after && after[level]) || [];
    for (let i = 0; i < Math.max(was.length, now.length); i += 1) {
      if ((was[i] ?? null) !== (now[i] ?? null)) out.push({ sel: slotSel(level, i), from: now[i] ? deckSel(level) : null });
    }
    if (((beforeDecks || {})[level] ?? 0) !== ((afterDecks || {})[level] ?? 0)) out.push({ sel: deckSel(level) });
  }
}

/**
 * What changed between two views of one table, as marks: {sel, from}, `sel` a CSS
 * selector of a changed piece, `from` (optional) the selector of where it came from.
 * `source(colour, seat)` says where a token a player gained came from.
 */
function playerMarks(prev, next, out, { rows, source, sink }) {
  const wereOnTable = slotsOf(rows);
  for (const p of next.players || []) {
    const was = (prev.players || []).find((x) => x.seat === p.seat);
    if (!was) continue;
    const seat = p.seat;
    for (const colour of changedKeys(was.tokens, p.tokens)) {
      const gained = (p.tokens[colour] || 0) > (was.tokens[colour] || 0);
      out.push({ sel: chipSel(seat, colour), from: gained ? source(colour, seat) : null });
      if (!gained && sink(colour, seat)) out.push({ sel: sink(colour, seat), from: chipSel(seat, colour) });
    }
    const bought = (p.cards || []).filter((id) => !(was.cards || []).includes(id));
    const boughtFrom = bought.map((id) => wereOnTable.get(id)).find(Boolean) || null;
    for (const colour of changedKeys(was.bonuses, p.bonuses)) {
      out.push({ sel: `${playerSel(seat)} .gem-col-${colour} > .bonus`, from: boughtFrom });
    }
    (p.reserved || []).forEach((r, i) => {
      const old = (was.reserved || [])[i];
      if (old && old.card === r.card && old.level === r.level) return;
      const from = (r.card && wereOnTable.get(r.card)) || (old ? null : deckSel(r.level));
      out.push({ sel: `${playerSel(seat)} .reserved-item:nth-child(${i + 1})`, from });
    });
    if (was.points !== p.points) out.push({ sel: `${playerSel(seat)} .player-points` });
    if ((was.nobles || []).length !== (p.nobles || []).length) out.push({ sel: `${playerSel(seat)} .player-nobles` });
    if (was.crowns !== undefined && was.crowns !== p.crowns) out.push({ sel: `${playerSel(seat)} .stat-crowns` });
    if (was.privileges !== undefined && was.privileges !== p.privileges) out.push({ sel: `${playerSel(seat)} .player-stats .scrolls` });
    if ((was.royals || []).length !== (p.royals || []).length) out.push({ sel: `${playerSel(seat)} .player-royals` });
  }
}

function classicMarks(prev, next) {
  const out = [];
  rowMarks(prev.board, next.board, prev.decks, next.decks, out);
  const bankLost = new Set(changedKeys(prev.bank, next.bank).filter((c) => (next.bank[c] || 0) < (prev.bank[c] || 0)));
  for (const colour of changedKeys(prev.bank, next.bank)) {
    if (!bankLost.has(colour)) continue; // a token paid back is marked with its giver below
    out.push({ sel: `[data-bank=${q(colour)}]` });
  }
  playerMarks(prev, next, out, {
    rows: prev.board,
    source: (colour) => `[data-bank=${q(colour)}]`,
    sink: (colour) => `[data-bank=${q(colour)}]`,
  });
  if ((prev.nobles || []).length !== (next.nobles || []).length) out.push({ sel: ".nobles" });
  return out;
}

function duelMarks(prev, next) {
  const out = [];
  rowMarks(prev.pyramid, next.pyramid, prev.decks, next.decks, out);
  const emptied = new Map(); // token -> cell selectors emptied this move
  const was = prev.board || [];
  (next.board || []).forEach((row, r) =>
    row.forEach((token, c) => {
      const old = (was[r] && was[r][c]) || null;
      if (old === (token || null)) return;
      const sel = `.cell[data-row=${q(r)}][data-col=${q(c)}]`;
      if (old && !token) (emptied.get(old) || emptied.set(old, []).get(old)).push(sel);
      out.push({ sel, from: token ? "#bag" : null });
    }),
  );
  for (const kind of changedKeys(prev.bag, next.bag)) out.push({ sel: `[data-bag=${q(kind)}]` });
  if ((prev.privileges ?? 0) !== (next.privileges ?? 0)) out.push({ sel: "#privilege-supply" });
  if ((prev.royals || []).length !== (next.royals || []).length) out.push({ sel: ".royals" });
  const lost = new Map();
  for (const p of prev.players || []) {
    const now = (next.players || []).find((x) => x.seat === p.seat);
    for (const colour of changedKeys(p.tokens, now && now.tokens)) if (now && (now.tokens[colour] || 0) < (p.tokens[colour] || 0)) lost.set(colour, p.seat);
  }
  playerMarks(prev, next, out, {
    rows: prev.pyramid,
    // A token gained comes from a cell emptied this move, else from the player who lost it (a steal).
    source: (colour, seat) => {
      const cells = emptied.get(colour);
      if (cells && cells.length) return cells.shift();
      return lost.has(colour) && lost.get(colour) !== seat ? chipSel(lost.get(colour), colour) : null;
    },
    sink: () => null,
  });
  return out;
}

/** The marks of the change from `prev` to `next` (both views of the same game). */
export function lastMoveMarks(prev, next) {
  if (!prev || !next || prev.status === "open" || next.version <= prev.version) return [];
  return next.variant === "duel" || Array.isArray(next.board) ? duelMarks(prev, next) : classicMarks(prev, next);
}

function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** `el` glides from `fromEl`'s place to its own (a FLIP with the Web Animations API). */
function glide(el, fromEl) {
  const to = el.getBoundingClientRect();
  const from = fromEl.getBoundingClientRect();
  if (!to.width || !from.width) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (Math.abs(dx) + Math.abs(dy) < 4) return;
  el.animate([{ transform: `translate(${dx}px, ${dy}px) scale(0.8)`, opacity: 0.6 }, { transform: "none", opacity: 1 }], {
    duration: GLIDE_MS,
    easing: "cubic-bezier(.2,.7,.3,1)",
  });
}

/**
 * The marks of the last move on a page that redraws: `note(prev, next)` when a view
 * replaces another (a move is every change while the same seat is to move: its
 * action, the card dealt, the turn handed on), `show(prev, next)` to mark just one
 * change (a replay step), `apply(root)` after each drawing. The marks go after
 * SHOWN_MS of the page being visible, or when another move comes.
 */
export class LastMove {
  constructor({ shownMs = SHOWN_MS } = {}) {
    this.shownMs = shownMs;
    this.marks = [];
    this.mover = null;
    this.version = null;
    this.fresh = false;
    this.timer = 0;
    this.root = null;
    this.onVisible = () => {
      if (!document.hidden && this.marks.length && !this.timer) this.schedule();
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  destroy() {
    window.clearTimeout(this.timer);
    document.removeEventListener("visibilitychange", this.onVisible);
  }

  note(prev, next) {
    const marks = lastMoveMarks(prev, next);
    const mover = prev && prev.turn ? prev.turn.seat : null;
    const sameMove = this.marks.length && mover === this.mover && prev && prev.version === this.version;
    this.version = next ? next.version : null;
    if (!marks.length) return;
    this.set(sameMove ? [...this.marks, ...marks] : marks);
    this.mover = mover;
  }

  show(prev, next) {
    this.version = next ? next.version : null;
    this.mover = null;
    this.set(lastMoveMarks(prev, next));
  }

  set(marks) {
    this.marks = marks;
    this.fresh = true;
    window.clearTimeout(this.timer);
    this.timer = 0;
    if (marks.length) this.schedule();
  }

  schedule() {
    if (document.hidden) return; // counted from when the page is seen again
    this.timer = window.setTimeout(() => {
      this.timer = 0;
      this.marks = [];
      if (this.root) this.apply(this.root);
    }, this.shownMs);
  }

  clear() {
    this.set([]);
  }

  /** Put the marks on the pieces drawn under `root` (and take old ones off). */
  apply(root) {
    this.root = root;
    const keep = new Set();
    const glides = [];
    for (const mark of this.marks) {
      for (const el of root.querySelectorAll(mark.sel)) {
        keep.add(el);
        el.setAttribute("data-last-move", "");
        if (this.fresh && mark.from) glides.push([el, mark.from]);
      }
    }
    for (const el of root.querySelectorAll("[data-last-move]")) if (!keep.has(el)) el.removeAttribute("data-last-move");
    if (this.fresh && !reducedMotion()) {
      for (const [el, from] of glides) {
        const fromEl = root.querySelector(from);
        if (fromEl && fromEl !== el) glide(el, fromEl);
      }
    }
    this.fresh = false;
  }
}
