// The game log in sentences, built from the events (PROTOCOL.md "Events").
// `describeEvent` returns {text, kind}: kind "minor" marks bookkeeping lines
// (a card dealt, a turn handed on) that the log shows small.

import { cardName } from "./cards.js";
import { listWords, plural } from "./dom.js";
import { DUEL_TOKENS } from "./gems.js";

/** "1 white, 1 blue and 1 red" (colours in table order). */
export function tokensWords(tokens) {
  const parts = DUEL_TOKENS.filter((c) => tokens && tokens[c]).map((c) => `${tokens[c]} ${c}`);
  return parts.length ? listWords(parts) : "no tokens";
}

/** Who sits where, from the events and the view (names may arrive by either). */
export class Names {
  constructor() {
    this.bySeat = new Map();
  }

  learnEvent(event) {
    if (event.type === "PlayerJoined") this.bySeat.set(event.seat, event.name || botName(event.bot));
  }

  learnView(view) {
    for (const p of (view && view.players) || []) this.bySeat.set(p.seat, p.name || botName(p.bot));
  }

  of(seat) {
    const name = this.bySeat.get(seat);
    if (!name) return `Seat ${seat + 1}`;
    // Two seats with one name (two bots of a level): the seat tells them apart.
    for (const [other, n] of this.bySeat) if (other !== seat && n === name) return `${name} (seat ${seat + 1})`;
    return name;
  }
}

const BOT_LEVEL_WORDS = { mcts: "MCTS" };

/** "greedy", "MCTS": a bot level as written in a sentence. */
export function botLevelWords(bot) {
  return BOT_LEVEL_WORDS[bot] || bot;
}

/** "greedy bot" beside a bot seat's name, unless its name says so already
 * ("Greedy bot 2"); null for a person. */
export function botTag(p) {
  if (!p.bot) return null;
  const level = botLevelWords(p.bot);
  return (p.name || "").toLowerCase().startsWith(`${level.toLowerCase()} bot`) ? null : `${level} bot`;
}

/** "Greedy bot 2" (the server's name for a bot seat), or "Robo (a greedy bot)" when
 * the bot has a name of its own. */
function botJoined(event) {
  const level = botLevelWords(event.bot);
  if (!event.name) return `${/^[aeiou]/i.test(level) ? "An" : "A"} ${level} bot`;
  const plain = event.name.toLowerCase().startsWith(`${level.toLowerCase()} bot`);
  return plain ? event.name : `${event.name} (a ${level} bot)`;
}

/** A seat's name on the page: its name, with its seat when another seat has the same. */
export function seatLabel(players, p) {
  const name = p.name || botName(p.bot);
  const twin = players.some((q) => q.seat !== p.seat && (q.name || botName(q.bot)) === name);
  return twin ? `${name} (seat ${p.seat + 1})` : name;
}

export function botName(bot) {
  return bot ? `Bot (${botLevelWords(bot)})` : "Someone";
}

function card(catalog, id) {
  return catalog && catalog.cards ? catalog.cards[id] : null;
}

/** How a game was won when someone left it (RULES.md part 3). */
export const LEFT_WIN_WORDS = { time: "on time", resign: "by resignation", abandon: "by abandonment" };

export function describeEvent(event, names, catalog) {
  const who = (seat) => names.of(seat);
  switch (event.type) {
    case "Resigned":
      return { text: `${who(event.seat)} resigned.`, kind: "major" };
    case "TimeRanOut":
      return { text: `${who(event.seat)} ran out of time.`, kind: "major" };
    case "AbandonClaimed":
      return { text: `${who(event.against)} left the game: ${who(event.seat)} claimed it abandoned.`, kind: "major" };
    case "GameAborted": {
      const by = event.seat === null || event.seat === undefined ? "A player" : who(event.seat);
      if (event.reason === "expired") return { text: "The game expired: nobody took the open seats.", kind: "major" };
      if (event.reason === "first_move") return { text: `${by} made no first move in time: the game was aborted.`, kind: "major" };
      return { text: `${by} aborted the game.`, kind: "major" };
    }
    case "GameCreated":
      return { text: `A ${event.players}-player game of ${variantName(event.variant)} was set up.`, kind: "minor" };
    case "PlayerJoined":
      return {
        text: event.bot ? `${botJoined(event)} took seat ${event.seat + 1}.` : `${event.name} took seat ${event.seat + 1}.`,
        kind: "minor",
      };
    case "GameStarted":
      return { text: `The game began; ${who(event.first_seat)} plays first.`, kind: "major" };
    case "TokensTaken":
      return { text: `${who(event.seat)} took ${tokensWords(event.tokens)}.`, kind: "move" };
    case "CardReserved": {
      const gold = event.gold ? " and took 1 gold" : "";
      if (event.blind) {
        const seen = event.card && card(catalog, event.card);
        const what = seen ? ` (a ${cardName(seen)})` : "";
        return { text: `${who(event.seat)} reserved a level-${event.level} card from the deck${what}${gold}.`, kind: "move" };
      }
      const c = card(catalog, event.card);
      return { text: `${who(event.seat)} reserved a ${c ? cardName(c) : `level-${event.level} card`}${gold}.`, kind: "move" };
    }
    case "CardBought": {
      const c = card(catalog, event.card);
      const what = c ? `a level-${c.level} ${c.color} card` : "a card";
      const points = c && c.points ? ` for ${plural(c.points, "point")}` : "";
      const from = event.from_reserve ? " from their reserve" : "";
      const paid = Object.values(event.payment || {}).some(Boolean) ? `, paying ${tokensWords(event.payment)}` : ", for free";
      return { text: `${who(event.seat)} bought ${what}${from}${points}${paid}.`, kind: "move" };
    }
    case "CardDealt": {
      const c = card(catalog, event.card);
      return { text: `A ${c ? cardName(c) : `level-${event.level} card`} was dealt to the board.`, kind: "minor" };
    }
    case "TokensReturned":
      return { text: `${who(event.seat)} returned ${tokensWords(event.tokens)} to keep 10 tokens.`, kind: "move" };
    case "NobleVisited": {
      const noble = catalog && catalog.nobles ? catalog.nobles[event.noble] : null;
      const points = noble ? ` (+${plural(noble.points, "point")})` : "";
      return { text: `A noble visited ${who(event.seat)}${points}.`, kind: "major" };
    }
    case "TurnPassed":
      return { text: `${who(event.seat)} could not act and passed.`, kind: "move" };
    case "TurnEnded":
      return { text: `${who(event.next_seat)}'s turn.`, kind: "minor" };
    case "GameEnded": {
      const winners = (event.winners || []).map(who);
      const verb = winners.length > 1 ? "share the victory" : "won";
      const how = LEFT_WIN_WORDS[event.reason];
      if (how) return { text: `The game ended: ${listWords(winners)} ${verb} ${how}.`, kind: "major" };
      const best = Math.max(...(event.points || [0]));
      return { text: `The game ended: ${listWords(winners)} ${verb} with ${plural(best, "point")}.`, kind: "major" };
    }
    default:
      return { text: `${event.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}.`, kind: "minor" };
  }
}

export function variantName(variant) {
  return variant === "duel" ? "Splendor Duel" : "Splendor";
}
