// How to play Splendor (2-4 players), illustrated with the table's drawings
// (cards.js, gems.js). The rules are /work/shared/RULES.md part 1 and docs/rules.md;
// the example cards and noble are real ones from the game's data.

import { cardBack, cardFace, nobleTile } from "./cards.js";
import { GEM_NAMES, GEMS, tokenChip } from "./gems.js";
import { tp } from "./i18n.js";
import { arrow, figure, glossary, group, list, named, or, para, section, subsection } from "./howto_parts.js";

/** Example pieces: the data's cards 49, 42, 84, 14 and 10, and noble 1. */
const CARDS = {
  blue2: { level: 2, color: "blue", points: 2, cost: { blue: 5 } },
  white2: { level: 2, color: "white", points: 1, cost: { white: 2, blue: 3, red: 3 } },
  red3: { level: 3, color: "red", points: 4, cost: { green: 7 } },
  ownedBlue: { level: 1, color: "blue", points: 0, cost: { white: 1, green: 1, red: 2, black: 1 } },
  ownedBlue2: { level: 1, color: "blue", points: 0, cost: { black: 3 } },
};
const NOBLE = { points: 3, requires: { white: 4, blue: 4 } };

/** The sections' ids, in order, with their titles (the page's contents). */
export function classicContents() {
  return [
    ["aim", tp("howto", "The aim")],
    ["setup", tp("howto", "Setting up")],
    ["turn", tp("howto", "Your turn: one of four actions")],
    ["limit", tp("howto", "Ten tokens at most")],
    ["nobles", tp("howto", "Nobles")],
    ["end", tp("howto", "The end of the game")],
    ["words", tp("howto", "The words of the game")],
  ];
}

function gemName(colour) {
  return colour === "gold" ? tp("token", "gold") : GEM_NAMES[colour];
}

export function classicHowto() {
  const titles = Object.fromEntries(classicContents());
  return [
    section(
      "aim",
      titles.aim,
      para(tp("howto", "You are gem merchants. You collect gem tokens and spend them on development cards. Every card you own gives you a bonus: a gem of its colour that you keep for good and that makes later cards cheaper. Many cards also bring prestige points, and nobles visit the player whose cards impress them.")),
      para(tp("howto", "When a player reaches 15 prestige points, the round is played to its end, and the player with the most points wins.")),
      figure(
        tp("howto", "A development card: its prestige points at the top left, its bonus gem at the top right, its cost down the left side. This one is worth 1 point, gives a white bonus and costs 2 white, 3 blue and 3 red."),
        cardFace("howto-white2", CARDS.white2),
      ),
    ),
    section(
      "setup",
      titles.setup,
      list([
        tp("howto", "The development cards are sorted by level into three decks and shuffled. Four cards of each level are laid face up beside their deck: level 1 at the bottom, level 3 at the top."),
        tp("howto", "One noble more than there are players is laid out: three with two players, four with three, five with four."),
        tp("howto", "The gem tokens go into the bank: 4 of each colour with two players, 5 with three, 7 with four. There are always 5 gold tokens."),
        tp("howto", "The first player is drawn at random, and play goes round the table from there."),
      ]),
      figure(
        tp("howto", "The three decks, level 1 to level 3, once their first four cards are face up."),
        cardBack(1, { count: 36 }),
        cardBack(2, { count: 26 }),
        cardBack(3, { count: 16 }),
      ),
      figure(
        tp("howto", "The bank for two players: 4 tokens of each of the five gems, and 5 gold. Gold is the joker."),
        [...GEMS.map((colour) => named(tokenChip(colour, 4, { size: "lg" }), gemName(colour))), named(tokenChip("gold", 5, { size: "lg" }), gemName("gold"))],
      ),
    ),
    section(
      "turn",
      titles.turn,
      para(tp("howto", "On your turn you do exactly one of these four things.")),
      subsection(
        "take-three",
        tp("howto", "Take three different gems"),
        para(tp("howto", "Take one token of each of three different colours from the bank. If fewer than three colours are left in the bank, take one of each colour that is left.")),
        para(tp("howto", "You never take gold this way.")),
        figure(tp("howto", "Three different gems: one white, one blue and one green."), tokenChip("white", undefined, { size: "lg" }), tokenChip("blue", undefined, { size: "lg" }), tokenChip("green", undefined, { size: "lg" })),
      ),
      subsection(
        "take-two",
        tp("howto", "Take two gems of the same colour"),
        para(tp("howto", "Take two tokens of one colour, but only if the bank holds at least four of that colour before you take them.")),
        figure(
          tp("howto", "The bank holds 4 red tokens, so you may take two of them. With 3 or fewer, you could not."),
          tokenChip("red", 4, { size: "lg" }),
          arrow(),
          tokenChip("red", undefined, { size: "lg" }),
          tokenChip("red", undefined, { size: "lg" }),
        ),
      ),
      subsection(
        "reserve",
        tp("howto", "Reserve a card and take a gold"),
        para(tp("howto", "Take a face-up card into your hand, or the top card of any deck without showing it to anyone. Take one gold token too, if the bank has one left; with no gold left you still reserve the card.")),
        para(tp("howto", "Only you can buy the cards you reserved. You may hold three reserved cards at most, and you can't give one back: the only way to get rid of it is to buy it.")),
        para(tp("howto", "A face-up card you reserve is replaced at once by the top card of its deck.")),
        figure(
          tp("howto", "Reserving: a face-up card, or the top card of a deck unseen, and a gold token with it."),
          group(cardFace("howto-red3", CARDS.red3), tokenChip("gold", undefined, { size: "lg" })),
          or(),
          group(cardBack(2), tokenChip("gold", undefined, { size: "lg" })),
        ),
      ),
      subsection(
        "buy",
        tp("howto", "Buy a card"),
        para(tp("howto", "Buy a face-up card or one of your reserved cards: pay its cost with tokens, which go back to the bank, and put the card in front of you. A face-up card you buy is replaced at once by the top card of its deck.")),
        para(tp("howto", "Your cards' bonuses pay part of the cost: each card you own takes one token of its colour off the price of every card you buy later. Bonuses are never spent.")),
        para(tp("howto", "A gold token pays for one token of any colour.")),
        figure(
          tp("howto", "This card costs 5 blue. You own two blue cards, whose bonuses take 2 off, so you pay 3: here 2 blue tokens and a gold."),
          named(cardFace("howto-blue2", CARDS.blue2), tp("howto", "the card")),
          named(group(cardFace("howto-owned-1", CARDS.ownedBlue, { size: "sm" }), cardFace("howto-owned-2", CARDS.ownedBlue2, { size: "sm" })), tp("howto", "your bonuses")),
          named(group(tokenChip("blue", undefined, { size: "lg" }), tokenChip("blue", undefined, { size: "lg" }), tokenChip("gold", undefined, { size: "lg" })), tp("howto", "you pay")),
        ),
      ),
      para(tp("howto", "In the rare position where none of the four is possible, you pass.")),
    ),
    section(
      "limit",
      titles.limit,
      para(tp("howto", "At the end of your turn you may hold ten tokens at most, gold included. If you hold more, give tokens of your choice back to the bank until you hold exactly ten; they may be tokens you have just taken.")),
    ),
    section(
      "nobles",
      titles.nobles,
      para(tp("howto", "Nobles are never bought. A noble visits you at the end of your turn when your bonuses, the cards in front of you, match what it asks for; your tokens don't count. A visit brings 3 prestige points.")),
      para(tp("howto", "A visit can't be refused, and only one noble comes in a turn: if several could, you choose which one, and the others may come in a later turn.")),
      figure(tp("howto", "This noble visits a player who owns 4 white and 4 blue cards, and brings 3 points."), nobleTile("howto-noble", NOBLE)),
    ),
    section(
      "end",
      titles.end,
      para(tp("howto", "When a player has 15 prestige points or more at the end of a turn, the round is played to its end, so that everyone has had as many turns.")),
      para(tp("howto", "Then the player with the most prestige points wins; nobles count. On a tie, the one who bought fewer development cards wins, and if they are still tied they share the victory.")),
    ),
    glossary(titles.words, [
      [tp("term", "development card"), tp("howto", "A card you buy with tokens: it gives a bonus of its colour, and often prestige points.")],
      [tp("term", "bonus"), tp("howto", "The gem a card you own gives you for good: one less token of its colour to pay for every later card.")],
      [tp("term", "prestige point"), tp("howto", "What wins the game: on cards and on nobles.")],
      [tp("term", "noble"), tp("howto", "A tile worth 3 points that visits a player whose bonuses are enough.")],
      [tp("term", "reserve"), tp("howto", "To take a card into your hand, to buy later, with a gold token.")],
      [tp("token", "gold"), tp("howto", "The joker: it pays for a token of any colour.")],
      [tp("term", "bank"), tp("howto", "The tokens in the middle of the table, which everyone takes from and pays into.")],
    ]),
  ];
}
