// The log of a Splendor Duel in sentences, from its events (docs/duel.md,
// "Events"). Like words.js: {text, kind}, kind "minor" for bookkeeping lines.

import { listWords, plural } from "./dom.js";
import { duelCardName } from "./duel_cards.js";
import { describeEvent, LEFT_WIN_WORDS, tokensWords, variantName } from "./words.js";

const REASONS = {
  prestige: "by prestige",
  crowns: "by crowns",
  colour: "by the points of one colour",
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
  for (const t of tokens || []) out[t] = (out[t] || 0) + 1;
  return out;
}

function cellWords([r, c]) {
  return `row ${r + 1}, column ${c + 1}`;
}

const ABILITY_IGNORED = {
  take_token: (who) => `${who}'s card could not take a token: none of its colour is on the board.`,
  steal_token: (who, other) => `${who} had nothing to steal: ${other} holds no gem or pearl.`,
  take_privilege: (who) => `${who} already holds every privilege: the card's privilege is lost.`,
};

const PRIVILEGE_WHY = {
  setup: () => "as the second player",
  take: (other) => `because ${other} took three tokens of one colour or both pearls`,
  replenish: (other) => `because ${other} replenished the board`,
  ability: () => "with a card's ability",
};

export function describeDuelEvent(event, names, catalog) {
  const who = (seat) => names.of(seat);
  const card = (id) => (catalog && catalog.cards && id ? catalog.cards[id] : null);
  const other = (seat) => (seat === 0 ? 1 : 0);
  switch (event.type) {
    case "GameStarted":
      return { text: `The tokens were laid on the board and the pyramid dealt; ${who(event.first_seat)} plays first.`, kind: "major" };
    case "PrivilegeTaken": {
      const from = event.from_seat !== undefined && event.from_seat !== null ? ` from ${who(event.from_seat)}` : "";
      const why = PRIVILEGE_WHY[event.reason] ? ` ${PRIVILEGE_WHY[event.reason](who(other(event.seat)))}` : "";
      return { text: `${who(event.seat)} took a privilege${from}${why}.`, kind: "move" };
    }
    case "PrivilegesUsed":
      return { text: `${who(event.seat)} used ${plural(event.cells.length, "privilege")} to take ${tokensWords(countTokens(event.tokens))}.`, kind: "move" };
    case "BoardReplenished": {
      const n = (event.placed || []).length;
      const forced = event.forced ? ", having no other action," : "";
      return { text: `${who(event.seat)}${forced} replenished the board with ${plural(n, "token")} from the bag.`, kind: "move" };
    }
    case "TokensTaken":
      return { text: `${who(event.seat)} took ${tokensWords(countTokens(event.tokens))} from the board.`, kind: "move" };
    case "CardReserved": {
      const c = card(event.card);
      const what = c ? `a ${duelCardName(c)}` : `a level-${event.level} card`;
      const from = event.slot === undefined || event.slot === null ? " from the deck" : " from the pyramid";
      return { text: `${who(event.seat)} took a gold and reserved ${what}${from}.`, kind: "move" };
    }
    case "CardBought": {
      const c = card(event.card);
      const what = c ? `a ${duelCardName(c)}` : "a card";
      const gains = [];
      if (c && c.points) gains.push(plural(c.points, "point"));
      if (c && c.crowns) gains.push(plural(c.crowns, "crown"));
      const worth = gains.length ? ` (${listWords(gains)})` : "";
      const from = event.from_reserve ? " from their reserve" : "";
      const on = event.wild_on && card(event.wild_on) ? `, put on their ${card(event.wild_on).color === "wild" ? "wild" : card(event.wild_on).color} card` : "";
      const paid = Object.values(event.payment || {}).some(Boolean) ? `, paying ${tokensWords(event.payment)}` : ", for free";
      return { text: `${who(event.seat)} bought ${what}${from}${worth}${on}${paid}.`, kind: "move" };
    }
    case "CardDealt": {
      const c = card(event.card);
      return { text: `A ${c ? duelCardName(c) : `level-${event.level} card`} was dealt to the pyramid.`, kind: "minor" };
    }
    case "BonusTokenTaken":
      return { text: `${who(event.seat)} took a ${event.token} token from the board (${cellWords(event.cell)}) with the card's ability.`, kind: "move" };
    case "TokenStolen":
      return { text: `${who(event.seat)} stole 1 ${event.token} from ${who(event.from_seat)}.`, kind: "move" };
    case "AbilityIgnored": {
      const say = ABILITY_IGNORED[event.ability];
      return { text: say ? say(who(event.seat), who(other(event.seat))) : `${who(event.seat)}'s ability had nothing to act on.`, kind: "minor" };
    }
    case "RoyalTaken": {
      const royal = catalog && catalog.royals ? catalog.royals[event.royal] : null;
      const points = royal ? ` (+${plural(royal.points, "point")})` : "";
      return { text: `A royal card joined ${who(event.seat)}${points}.`, kind: "major" };
    }
    case "TokensDiscarded":
      return { text: `${who(event.seat)} put ${tokensWords(event.tokens)} back into the bag to keep 10 tokens.`, kind: "move" };
    case "TurnEnded":
      if (event.next_seat === event.seat) return { text: `${who(event.seat)} plays again: an extra turn.`, kind: "major" };
      return { text: `${who(event.next_seat)}'s turn.`, kind: "minor" };
    case "GameEnded": {
      const winner = (event.winners || [])[0];
      const loser = winner === undefined ? null : other(winner);
      const against = loser === null || !names.bySeat.has(loser) ? "" : ` against ${who(loser)}`;
      return { text: `The game ended: ${listWords((event.winners || []).map(who))} won ${reasonWords(event.reason)}${against}.`, kind: "major" };
    }
    case "GameCreated":
      return { text: `A game of ${variantName(event.variant)} was set up.`, kind: "minor" };
    default:
      return describeEvent(event, names, catalog);
  }
}

/** The sentence maker of a variant. */
export function describerFor(variant) {
  return variant === "duel" ? describeDuelEvent : describeEvent;
}
