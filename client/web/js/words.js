// The game log in sentences, built from the events (PROTOCOL.md "Events").
// `describeEvent` returns {text, kind}: kind "minor" marks bookkeeping lines
// (a card dealt, a turn handed on) that the log shows small.

import { cardName } from "./cards.js";
import { listWords } from "./dom.js";
import { DUEL_TOKENS, colourWord, tokenWords } from "./gems.js";
import { t, tn, tp } from "./i18n.js";

/** "1 white, 1 blue and 1 red" (colours in table order). */
export function tokensWords(tokens) {
  const parts = DUEL_TOKENS.filter((c) => tokens && tokens[c]).map((c) => tokenWords(c, tokens[c]));
  return parts.length ? listWords(parts) : t("no tokens");
}

/** Who sits where, from the events and the view (names may arrive by either). */
export class Names {
  constructor() {
    this.bySeat = new Map();
  }

  learnEvent(event) {
    if (event.type === "PlayerJoined") this.bySeat.set(event.seat, seatName(event.name, event.bot));
  }

  learnView(view) {
    for (const p of (view && view.players) || []) this.bySeat.set(p.seat, seatName(p.name, p.bot));
  }

  of(seat) {
    const name = this.bySeat.get(seat);
    if (!name) return t("Seat {n}", { n: seat + 1 });
    // Two seats with one name (two bots of a level): the seat tells them apart.
    for (const [other, n] of this.bySeat) if (other !== seat && n === name) return t("{name} (seat {n})", { name, n: seat + 1 });
    return name;
  }
}

// The server names a bot seat in English ("Greedy bot 2"): its level as written there.
const BOT_LEVEL_ENGLISH = { greedy: "greedy", random: "random", mcts: "MCTS" };
const BOT_LEVEL_WORDS = { greedy: tp("bot", "greedy"), random: tp("bot", "random"), mcts: tp("bot", "MCTS") };
// "A greedy bot took seat 2.": a bot without a name of its own, by level.
const BOT_JOINED = { greedy: t("A greedy bot"), random: t("A random bot"), mcts: t("An MCTS bot") };
// The server's name for a bot seat ("Greedy bot", then "Greedy bot 2"), by level.
const BOT_SEATS = { greedy: t("Greedy bot"), random: t("Random bot"), mcts: t("MCTS bot") };

/** "greedy", "MCTS": a bot level as written in a sentence. */
export function botLevelWords(bot) {
  return BOT_LEVEL_WORDS[bot] || bot;
}

/** Whether a bot seat's name is the server's name for its level ("Greedy bot 2"). */
function plainBotName(name, bot) {
  const level = BOT_LEVEL_ENGLISH[bot] || bot;
  return (name || "").toLowerCase().startsWith(`${String(level).toLowerCase()} bot`);
}

/** "greedy bot" beside a bot seat's name, unless its name says so already
 * ("Greedy bot 2"); null for a person. */
export function botTag(p) {
  if (!p.bot) return null;
  return plainBotName(p.name, p.bot) ? null : t("{level} bot", { level: botLevelWords(p.bot) });
}

/** "Greedy bot 2" (the server's name for a bot seat), or "Robo (a greedy bot)" when
 * the bot has a name of its own. */
function botJoined(event) {
  const level = botLevelWords(event.bot);
  if (!event.name) return BOT_JOINED[event.bot] || t("A {level} bot", { level });
  return plainBotName(event.name, event.bot) ? seatName(event.name, event.bot) : t("{name} (a {level} bot)", { name: event.name, level });
}

/**
 * A seat's name as the page writes it: a person's as given, the server's name for a
 * bot seat ("Greedy bot 2", made in English) in the page's language, "Bot (greedy)"
 * for a bot without a name.
 */
export function seatName(name, bot) {
  if (!name) return botName(bot);
  const words = bot ? BOT_SEATS[bot] : null;
  const plain = words ? name.match(new RegExp(`^${BOT_LEVEL_ENGLISH[bot]} bot(?: (\\d+))?$`, "i")) : null;
  if (!plain) return name;
  return plain[1] ? t("{bot} {n}", { bot: words, n: Number(plain[1]) }) : words;
}

/** A seat's name on the page: its name, with its seat when another seat has the same. */
export function seatLabel(players, p) {
  const name = seatName(p.name, p.bot);
  const twin = players.some((q) => q.seat !== p.seat && seatName(q.name, q.bot) === name);
  return twin ? t("{name} (seat {n})", { name, n: p.seat + 1 }) : name;
}

export function botName(bot) {
  return bot ? t("Bot ({level})", { level: botLevelWords(bot) }) : t("Someone");
}

function card(catalog, id) {
  return catalog && catalog.cards ? catalog.cards[id] : null;
}

/** How a game was won when someone left it (RULES.md part 3): the end of "… won on time". */
export const LEFT_WIN_WORDS = { time: tp("won", "on time"), resign: tp("won", "by resignation"), abandon: tp("won", "by abandonment") };

/** "3 points". */
export function pointsWords(n) {
  return tn("{n} point", "{n} points", n);
}

export function describeEvent(event, names, catalog) {
  const who = (seat) => names.of(seat);
  switch (event.type) {
    case "Resigned":
      return { text: t("{who} resigned.", { who: who(event.seat) }), kind: "major" };
    case "TimeRanOut":
      return { text: t("{who} ran out of time.", { who: who(event.seat) }), kind: "major" };
    case "AbandonClaimed":
      // Nobody claims it (seat == against): the game sat idle a day and bots are left.
      if (event.seat === event.against) return { text: t("{who} was away from the game for a day: out.", { who: who(event.against) }), kind: "major" };
      return { text: t("{who} left the game: {claimer} claimed it abandoned.", { who: who(event.against), claimer: who(event.seat) }), kind: "major" };
    case "GameAborted": {
      const by = event.seat === null || event.seat === undefined ? t("A player") : who(event.seat);
      if (event.reason === "expired") return { text: t("The game expired: nobody took the open seats."), kind: "major" };
      if (event.reason === "first_move") return { text: t("{who} made no first move in time: the game was aborted.", { who: by }), kind: "major" };
      if (event.reason === "idle") return { text: t("Nobody came back to the game for a day: it was aborted."), kind: "major" };
      return { text: t("{who} aborted the game.", { who: by }), kind: "major" };
    }
    case "GameCreated":
      return { text: tn("A {n}-player game of {game} was set up.", "A {n}-player game of {game} was set up.", event.players, { game: variantName(event.variant) }), kind: "minor" };
    case "PlayerJoined":
      return { text: t("{who} took seat {n}.", { who: event.bot ? botJoined(event) : event.name, n: event.seat + 1 }), kind: "minor" };
    case "GameStarted":
      return { text: t("The game began; {who} plays first.", { who: who(event.first_seat) }), kind: "major" };
    case "TokensTaken":
      return { text: t("{who} took {tokens}.", { who: who(event.seat), tokens: tokensWords(event.tokens) }), kind: "move" };
    case "CardReserved": {
      const args = { who: who(event.seat), level: event.level };
      if (event.blind) {
        const seen = event.card && card(catalog, event.card);
        if (seen) {
          args.card = cardName(seen);
          return { text: event.gold ? t("{who} reserved a level-{level} card from the deck (a {card}) and took 1 gold.", args) : t("{who} reserved a level-{level} card from the deck (a {card}).", args), kind: "move" };
        }
        return { text: event.gold ? t("{who} reserved a level-{level} card from the deck and took 1 gold.", args) : t("{who} reserved a level-{level} card from the deck.", args), kind: "move" };
      }
      const c = card(catalog, event.card);
      args.card = c ? cardName(c) : t("level-{level} card", { level: event.level });
      return { text: event.gold ? t("{who} reserved a {card} and took 1 gold.", args) : t("{who} reserved a {card}.", args), kind: "move" };
    }
    case "CardBought": {
      const c = card(catalog, event.card);
      const args = {
        who: who(event.seat),
        card: c ? t("a level-{level} {colour} card", { level: c.level, colour: colourWord(c.color) }) : t("a card"),
        points: c && c.points ? pointsWords(c.points) : "",
        tokens: tokensWords(event.payment),
      };
      const paid = Object.values(event.payment || {}).some(Boolean);
      // Translators: {card} is "a level-2 blue card" (or "a card"), {points} "3 points", {tokens} "2 red and 1 gold".
      const sentences = event.from_reserve
        ? args.points
          ? paid ? t("{who} bought {card} from their reserve for {points}, paying {tokens}.", args) : t("{who} bought {card} from their reserve for {points}, for free.", args)
          : paid ? t("{who} bought {card} from their reserve, paying {tokens}.", args) : t("{who} bought {card} from their reserve, for free.", args)
        : args.points
          ? paid ? t("{who} bought {card} for {points}, paying {tokens}.", args) : t("{who} bought {card} for {points}, for free.", args)
          : paid ? t("{who} bought {card}, paying {tokens}.", args) : t("{who} bought {card}, for free.", args);
      return { text: sentences, kind: "move" };
    }
    case "CardDealt": {
      const c = card(catalog, event.card);
      const what = c ? cardName(c) : t("level-{level} card", { level: event.level });
      return { text: t("A {card} was dealt to the board.", { card: what }), kind: "minor" };
    }
    case "TokensReturned":
      return { text: t("{who} returned {tokens} to keep 10 tokens.", { who: who(event.seat), tokens: tokensWords(event.tokens) }), kind: "move" };
    case "NobleVisited": {
      const noble = catalog && catalog.nobles ? catalog.nobles[event.noble] : null;
      if (noble) return { text: t("A noble visited {who} (+{points}).", { who: who(event.seat), points: pointsWords(noble.points) }), kind: "major" };
      return { text: t("A noble visited {who}.", { who: who(event.seat) }), kind: "major" };
    }
    case "TurnPassed":
      return { text: t("{who} could not act and passed.", { who: who(event.seat) }), kind: "move" };
    case "TurnEnded":
      return { text: t("{who}'s turn.", { who: who(event.next_seat) }), kind: "minor" };
    case "GameEnded": {
      const winners = (event.winners || []).map(who);
      const how = LEFT_WIN_WORDS[event.reason];
      const args = { winners: listWords(winners), how };
      if (how) return { text: tn("The game ended: {winners} won {how}.", "The game ended: {winners} share the victory {how}.", winners.length, args), kind: "major" };
      args.points = pointsWords(Math.max(...(event.points || [0])));
      return { text: tn("The game ended: {winners} won with {points}.", "The game ended: {winners} share the victory with {points}.", winners.length, args), kind: "major" };
    }
    default:
      // An event newer than this page: its type, in words.
      return { text: `${event.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}.`, kind: "minor" };
  }
}

export function variantName(variant) {
  return variant === "duel" ? t("Splendor Duel") : t("Splendor");
}
