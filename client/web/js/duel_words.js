// The log of a Splendor Duel in sentences, from its events (docs/duel.md,
// "Events"). Like words.js: {text, kind}, kind "minor" for bookkeeping lines.

import { listWords } from "./dom.js";
import { duelCardName } from "./duel_cards.js";
import { colourWord, tokenWords } from "./gems.js";
import { t, tn, tp } from "./i18n.js";
import { describeEvent, LEFT_WIN_WORDS, pointsWords, tokensWords, variantName } from "./words.js";

const REASONS = {
  prestige: tp("won", "by prestige"),
  crowns: tp("won", "by crowns"),
  colour: tp("won", "by the points of one colour"),
  // Both games (RULES.md part 3); classic's normal end, "points", needs no words.
  ...LEFT_WIN_WORDS,
};

/** "won by prestige" and the like. */
export function reasonWords(reason) {
  return REASONS[reason] || "";
}

/** {"red": 2, "pearl": 1} from ["red", "red", "pearl"]. */
function countTokens(tokens) {
  const out = {};
  for (const kind of tokens || []) out[kind] = (out[kind] || 0) + 1;
  return out;
}

function cellWords([r, c]) {
  return t("row {row}, column {column}", { row: r + 1, column: c + 1 });
}

const ABILITY_IGNORED = {
  take_token: (who) => t("{who}'s card could not take a token: none of its colour is on the board.", { who }),
  steal_token: (who, other) => t("{who} had nothing to steal: {other} holds no gem or pearl.", { who, other }),
  take_privilege: (who) => t("{who} already holds every privilege: the card's privilege is lost.", { who }),
};

// Why a privilege was taken: the end of "Ana took a privilege …".
const PRIVILEGE_WHY = {
  setup: () => tp("privilege", "as the second player"),
  take: (other) => tp("privilege", "because {other} took three tokens of one colour or both pearls", { other }),
  replenish: (other) => tp("privilege", "because {other} replenished the board", { other }),
  ability: () => tp("privilege", "with a card's ability"),
};

/** "a level-2 blue card", or "a level-2 card" when the card is not known. */
function aCard(c, level) {
  return c ? t("a {card}", { card: duelCardName(c) }) : t("a level-{level} card", { level });
}

export function describeDuelEvent(event, names, catalog) {
  const who = (seat) => names.of(seat);
  const card = (id) => (catalog && catalog.cards && id ? catalog.cards[id] : null);
  const other = (seat) => (seat === 0 ? 1 : 0);
  switch (event.type) {
    case "GameStarted":
      return { text: t("The tokens were laid on the board and the pyramid dealt; {who} plays first.", { who: who(event.first_seat) }), kind: "major" };
    case "PrivilegeTaken": {
      const hasFrom = event.from_seat !== undefined && event.from_seat !== null;
      const why = PRIVILEGE_WHY[event.reason] ? PRIVILEGE_WHY[event.reason](who(other(event.seat))) : "";
      const args = { who: who(event.seat), from: hasFrom ? who(event.from_seat) : "", why };
      let text;
      if (hasFrom) text = why ? t("{who} took a privilege from {from} {why}.", args) : t("{who} took a privilege from {from}.", args);
      else text = why ? t("{who} took a privilege {why}.", args) : t("{who} took a privilege.", args);
      return { text, kind: "move" };
    }
    case "PrivilegesUsed":
      return { text: tn("{who} used {n} privilege to take {tokens}.", "{who} used {n} privileges to take {tokens}.", event.cells.length, { who: who(event.seat), tokens: tokensWords(countTokens(event.tokens)) }), kind: "move" };
    case "BoardReplenished": {
      const n = (event.placed || []).length;
      const args = { who: who(event.seat) };
      const text = event.forced
        ? tn("{who}, having no other action, replenished the board with {n} token from the bag.", "{who}, having no other action, replenished the board with {n} tokens from the bag.", n, args)
        : tn("{who} replenished the board with {n} token from the bag.", "{who} replenished the board with {n} tokens from the bag.", n, args);
      return { text, kind: "move" };
    }
    case "TokensTaken":
      return { text: t("{who} took {tokens} from the board.", { who: who(event.seat), tokens: tokensWords(countTokens(event.tokens)) }), kind: "move" };
    case "CardReserved": {
      const args = { who: who(event.seat), card: aCard(card(event.card), event.level) };
      const fromDeck = event.slot === undefined || event.slot === null;
      return { text: fromDeck ? t("{who} took a gold and reserved {card} from the deck.", args) : t("{who} took a gold and reserved {card} from the pyramid.", args), kind: "move" };
    }
    case "CardBought": {
      const c = card(event.card);
      const what = c ? t("a {card}", { card: duelCardName(c) }) : t("a card");
      // The sentence grows part by part: each part takes the sentence so far as {bought}.
      let bought = event.from_reserve ? t("{who} bought {card} from their reserve", { who: who(event.seat), card: what }) : t("{who} bought {card}", { who: who(event.seat), card: what });
      const gains = [];
      if (c && c.points) gains.push(pointsWords(c.points));
      if (c && c.crowns) gains.push(tn("{n} crown", "{n} crowns", c.crowns));
      if (gains.length) bought = t("{bought} ({gains})", { bought, gains: listWords(gains) });
      const target = event.wild_on ? card(event.wild_on) : null;
      if (target) bought = t("{bought}, put on their {colour} card", { bought, colour: colourWord(target.color === "wild" ? "wild" : target.color) });
      const paid = Object.values(event.payment || {}).some(Boolean);
      const text = paid ? t("{bought}, paying {tokens}.", { bought, tokens: tokensWords(event.payment) }) : t("{bought}, for free.", { bought });
      return { text, kind: "move" };
    }
    case "CardDealt": {
      const c = card(event.card);
      const what = c ? duelCardName(c) : t("level-{level} card", { level: event.level });
      return { text: t("A {card} was dealt to the pyramid.", { card: what }), kind: "minor" };
    }
    case "BonusTokenTaken":
      return { text: t("{who} took a {colour} token from the board ({cell}) with the card's ability.", { who: who(event.seat), colour: colourWord(event.token), cell: cellWords(event.cell) }), kind: "move" };
    case "TokenStolen":
      return { text: t("{who} stole {token} from {from}.", { who: who(event.seat), token: tokenWords(event.token, 1), from: who(event.from_seat) }), kind: "move" };
    case "AbilityIgnored": {
      const say = ABILITY_IGNORED[event.ability];
      return { text: say ? say(who(event.seat), who(other(event.seat))) : t("{who}'s ability had nothing to act on.", { who: who(event.seat) }), kind: "minor" };
    }
    case "RoyalTaken": {
      const royal = catalog && catalog.royals ? catalog.royals[event.royal] : null;
      if (royal) return { text: t("A royal card joined {who} (+{points}).", { who: who(event.seat), points: pointsWords(royal.points) }), kind: "major" };
      return { text: t("A royal card joined {who}.", { who: who(event.seat) }), kind: "major" };
    }
    case "TokensDiscarded":
      return { text: t("{who} put {tokens} back into the bag to keep 10 tokens.", { who: who(event.seat), tokens: tokensWords(event.tokens) }), kind: "move" };
    case "TurnEnded":
      if (event.next_seat === event.seat) return { text: t("{who} plays again: an extra turn.", { who: who(event.seat) }), kind: "major" };
      return { text: t("{who}'s turn.", { who: who(event.next_seat) }), kind: "minor" };
    case "GameEnded": {
      const winner = (event.winners || [])[0];
      const loser = winner === undefined ? null : other(winner);
      const args = { winners: listWords((event.winners || []).map(who)), how: reasonWords(event.reason), loser: loser === null ? "" : who(loser) };
      const against = loser !== null && names.bySeat.has(loser);
      return { text: against ? t("The game ended: {winners} won {how} against {loser}.", args) : t("The game ended: {winners} won {how}.", args), kind: "major" };
    }
    case "GameCreated":
      return { text: t("A game of {game} was set up.", { game: variantName(event.variant) }), kind: "minor" };
    default:
      return describeEvent(event, names, catalog);
  }
}

/** The sentence maker of a variant. */
export function describerFor(variant) {
  return variant === "duel" ? describeDuelEvent : describeEvent;
}
