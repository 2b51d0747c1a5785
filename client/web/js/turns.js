// Turns, read from the events alone (no rule is re-implemented here): a turn starts
// at GameStarted (its `first_seat`) and at every TurnEnded (its `next_seat`), and ends
// at the next TurnEnded, or at the game's last event when the game ended inside it (a
// resignation, time). A seat's round is how many turns it has started, an extra turn
// (Duel's ability: TurnEnded to the same seat) counting in the round it came from.

const OVER = new Set(["GameEnded", "GameAborted"]);
// Part of the opening, not of the first turn: Duel's privilege for the second player.
const OPENING = (e) => e.type === "PrivilegeTaken" && e.reason === "setup";

/**
 * The turns of a game from its events (any order): [{n, seat, round, extra, start,
 * end, versions}], `start` the version where the turn begins (the seat is to move),
 * `end` the version where it is over (null while it is being played; the game's last
 * event for its last turn), `versions` its own events' versions. A turn cut off by
 * the game's end before any move of it is left out.
 */
export function turnsOf(events) {
  const sorted = [...events].sort((a, b) => a.version - b.version);
  const turns = [];
  const rounds = new Map(); // seat -> turns started, extra turns not counted
  let open = null;
  let over = false;
  const begin = (seat, version, extra) => {
    if (!extra) rounds.set(seat, (rounds.get(seat) || 0) + 1);
    open = { n: turns.length + 1, seat, round: rounds.get(seat) || 1, extra, start: version, end: null, versions: [] };
    turns.push(open);
  };
  for (const e of sorted) {
    if (OPENING(e)) {
      if (open && !open.versions.length) open.start = e.version; // the first turn starts after it
      continue;
    }
    if (e.type === "GameStarted") begin(e.first_seat, e.version, false);
    else if (e.type === "TurnEnded" && open) {
      open.versions.push(e.version);
      open.end = e.version;
      begin(e.next_seat, e.version, e.next_seat === e.seat);
    } else if (open) {
      if (OVER.has(e.type)) over = true;
      else open.versions.push(e.version);
    }
  }
  if (over && open) {
    // The last turn ends with the game (its result shown): the turn the game ended
    // in, or the one before when the game ended as the next one began.
    if (!open.versions.length) turns.pop();
    if (turns.length) turns[turns.length - 1].end = sorted[sorted.length - 1].version;
  }
  return turns;
}

/** The turn being played or last played at `version` (null before the first). */
export function turnAt(turns, version) {
  let found = null;
  for (const t of turns) {
    if (t.start > version) break;
    found = t;
  }
  return found;
}

/**
 * "Round 7" for the turn of a live view: the view's own `turn.round` (the mover's
 * turns begun, an extra turn counting in the round it came from, as here), else from
 * the events when the page has them all (up to the view's version), else from the
 * turn number and the seat count (a server before `round`: exact while no turn was
 * an extra one).
 */
export function roundOfView(view, turns, lastEventVersion) {
  const t = view.turn;
  if (!t) return null;
  if (Number.isInteger(t.round) && t.round > 0) return t.round;
  if (turns && lastEventVersion >= view.version) {
    const current = turnAt(turns, view.version);
    if (current && current.seat === t.seat) return current.round;
  }
  const seats = Math.max(1, (view.players || []).length);
  return Math.floor((Math.max(1, t.number) - 1) / seats) + 1;
}

/** How many rounds a finished game took: the most any seat started. */
export function roundsPlayed(turns) {
  return turns.reduce((most, t) => Math.max(most, t.round), 0);
}
