// What this browser remembers: the player's name and the seat token of every game
// it joined (keyed by game id), so a reload or a later visit takes the seat back.
// localStorage may be unavailable (private modes): everything degrades to memory.

const NAME_KEY = "splendor.name";
const SEAT_PREFIX = "splendor.seat.";
const memory = new Map();

function read(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return memory.get(key) ?? null;
  }
}

function write(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    memory.set(key, value);
  }
}

export function playerName() {
  return read(NAME_KEY) || "";
}

export function rememberName(name) {
  write(NAME_KEY, name);
}

/** {seat, token, name, joined} for a game this browser sits at, or null. */
export function seatFor(gameId) {
  const raw = read(SEAT_PREFIX + gameId);
  if (!raw) return null;
  try {
    const seat = JSON.parse(raw);
    return seat && typeof seat.token === "string" ? seat : null;
  } catch {
    return null;
  }
}

export function rememberSeat(gameId, { seat, token, name }) {
  write(SEAT_PREFIX + gameId, JSON.stringify({ seat, token, name, joined: Date.now() }));
}

/** Every game this browser holds a seat at, newest first. */
export function mySeats() {
  const out = [];
  try {
    const store = window.localStorage;
    for (let i = 0; i < store.length; i += 1) {
      const key = store.key(i);
      if (key && key.startsWith(SEAT_PREFIX)) {
        const game = key.slice(SEAT_PREFIX.length);
        const seat = seatFor(game);
        if (seat) out.push({ game, ...seat });
      }
    }
  } catch {
    for (const key of memory.keys()) {
      if (key.startsWith(SEAT_PREFIX)) {
        const game = key.slice(SEAT_PREFIX.length);
        const seat = seatFor(game);
        if (seat) out.push({ game, ...seat });
      }
    }
  }
  return out.sort((a, b) => (b.joined || 0) - (a.joined || 0));
}
