// How to play Splendor Duel (2 players), illustrated with the table's drawings
// (duel_table.js's token board, duel_cards.js, gems.js). The rules are
// /work/shared/RULES.md part 2 and docs/duel.md; the example cards are real ones from
// the game's data. Each ability has its own section, `ability-{name}`, which the
// table's "What's this?" opens (howto.js, abilityHelpLink).

import { duelCardBack, duelCardFace, privilegeScrolls, royalTile } from "./duel_cards.js";
import { renderTokenBoard } from "./duel_table.js";
import { h } from "./dom.js";
import { DUEL_TOKENS, GEM_NAMES, colourWord, tokenChip } from "./gems.js";
import { tp } from "./i18n.js";
import { capital, figure, figures, glossary, list, named, or, para, section, subsection } from "./howto_parts.js";

/** The abilities in the order the page explains them ("wild" is a kind of card, explained with them). */
export const ABILITIES = ["extra_turn", "take_token", "take_privilege", "steal_token", "wild"];

function card(level, color, points, cost, { bonus = 1, crowns = 0, ability = "none" } = {}) {
  return { level, color, points, cost, bonus: color === "none" ? 0 : bonus, crowns, ability };
}

/** Example cards: the data's cards 34, 2, 8, 33, 36, 28, 55, 31 and 30. */
const CARDS = {
  crowned: card(2, "white", 2, { green: 2, red: 2, black: 2, pearl: 1 }, { crowns: 1 }),
  extra_turn: card(1, "white", 0, { blue: 2, green: 2, pearl: 1 }, { ability: "extra_turn" }),
  take_token: card(1, "blue", 0, { white: 2, black: 2 }, { ability: "take_token" }),
  take_privilege: card(2, "white", 2, { white: 4, black: 2, pearl: 1 }, { ability: "take_privilege" }),
  steal_token: card(2, "blue", 1, { green: 4, black: 3 }, { ability: "steal_token" }),
  wild: card(1, "wild", 1, { white: 2, green: 2, black: 1, pearl: 1 }),
  twoCrowns: card(3, "white", 3, { blue: 3, red: 5, black: 3, pearl: 1 }, { crowns: 2 }),
  double: card(2, "white", 1, { blue: 5, green: 2 }, { bonus: 2 }),
  noBonus: card(1, "none", 3, { red: 4, pearl: 1 }),
};

const ROYALS = {
  r1: { points: 3, ability: "none" },
  r2: { points: 2, ability: "extra_turn" },
  r3: { points: 2, ability: "take_privilege" },
  r4: { points: 2, ability: "steal_token" },
};

/** A full board as the game lays it: 4 of each gem, 2 pearls, 3 gold. */
const FULL_BOARD = [
  ["red", "black", "pearl", "white", "green"],
  ["blue", "gold", "green", "red", "black"],
  ["white", "red", "blue", "gold", "pearl"],
  ["green", "black", "white", "blue", "red"],
  ["gold", "blue", "green", "black", "white"],
];

/** The same board some turns later, a few cells empty. */
const PLAYED_BOARD = [
  ["red", null, "pearl", "white", null],
  ["blue", "gold", "green", null, "black"],
  [null, "red", "blue", "gold", "pearl"],
  ["green", "black", null, "blue", "red"],
  ["gold", null, "green", "black", null],
];

/** The ability's name, as the rulebook of the reader's language calls it. */
export function abilityName(ability) {
  return {
    extra_turn: tp("term", "extra turn"),
    take_token: tp("term", "take a token"),
    take_privilege: tp("term", "take a privilege"),
    steal_token: tp("term", "steal a token"),
    wild: tp("term", "wild card"),
  }[ability];
}

/** The sections' ids, in order, with their titles (the page's contents). */
export function duelContents() {
  return [
    ["aim", tp("howto", "The aim")],
    ["setup", tp("howto", "Setting up")],
    ["turn", tp("howto", "Your turn")],
    ["line", tp("howto", "Taking tokens in a line")],
    ["privileges", tp("howto", "Privileges")],
    ["replenish", tp("howto", "Replenishing the board")],
    ["abilities", tp("howto", "Card abilities")],
    ["crowns", tp("howto", "Crowns and royal cards")],
    ["limit", tp("howto", "Ten tokens at most")],
    ["end", tp("howto", "The three ways to win")],
    ["words", tp("howto", "The words of the game")],
  ];
}

function tokenName(token) {
  return token === "gold" || token === "pearl" ? colourWord(token) : GEM_NAMES[token];
}

/**
 * The token board (duel_table.js's drawing) of `rows`, with cells marked: `pick` the
 * cells taken, `gap` a cell that breaks the line. A mark is an outline and words in
 * the cell's label, so colour is not its only cue.
 */
function tokenBoard(rows, { pick = [], gap = [] } = {}) {
  const board = renderTokenBoard({ board: rows }, null);
  // The table's board has an id; a page with two drawings of it must not repeat it.
  board.removeAttribute("id");
  const mark = ([r, c], className, words) => {
    const cell = board.querySelector(`[data-row="${r}"][data-col="${c}"]`);
    cell.classList.add(className);
    cell.setAttribute("aria-label", words(cell.getAttribute("aria-label")));
  };
  for (const cell of pick) mark(cell, "howto-pick", (label) => tp("howto", "{cell}, taken", { cell: label }));
  for (const cell of gap) mark(cell, "howto-gap", (label) => tp("howto", "{cell}, in the way", { cell: label }));
  return board;
}

const ABILITY_WORDS = {
  extra_turn: () => [para(tp("howto", "As soon as this turn ends, you play another one."))],
  take_token: () => [para(tp("howto", "Take one token of the card's colour from the board, anywhere on it. If there is none of that colour, nothing happens."))],
  take_privilege: () => [para(tp("howto", "Take a privilege: from the supply, or from your opponent when the supply is empty."))],
  steal_token: () => [para(tp("howto", "Take one gem or pearl token of your choice from your opponent. Gold can't be stolen; if your opponent holds none but gold, nothing happens."))],
  wild: () => [
    para(tp("howto", "A wild card has a many-coloured gem instead of a colour. When you buy it, put it on one of your cards that has a bonus: it takes that colour, gives a bonus of that colour, and its points count for that colour.")),
    para(tp("howto", "So you can't buy a wild card before you own a card with a bonus.")),
  ],
};

export function duelHowto() {
  const titles = Object.fromEntries(duelContents());
  return [
    section(
      "aim",
      titles.aim,
      para(tp("howto", "Splendor Duel is for two players. As in Splendor, you collect gems and buy jewel cards whose bonuses make later cards cheaper; here the tokens lie on a board, and cards can bring crowns and abilities.")),
      para(tp("howto", "You win as soon as, at the end of one of your turns, you have 20 prestige points, or 10 crowns, or 10 prestige points on cards of one colour.")),
      figure(
        tp("howto", "A jewel card: 2 prestige points and a crown at the top left, its bonus gem at the top right, its cost down the left side. Costs may ask for pearls: this one costs 2 green, 2 red, 2 black and a pearl."),
        duelCardFace("howto-crowned", CARDS.crowned),
      ),
    ),
    section(
      "setup",
      titles.setup,
      list([
        tp("howto", "All 25 tokens, 4 of each gem colour, 2 pearls and 3 gold, go into the bag and are drawn at random onto the 5 by 5 board: the first on the centre cell, then spiralling outwards."),
        tp("howto", "The jewel cards are sorted by level into three decks and shuffled, and laid out as a pyramid: 5 cards of level 1, 4 of level 2 and 3 of level 3."),
        tp("howto", "The 3 privileges lie beside the board, and the 4 royal cards lie face up."),
        tp("howto", "The first player is drawn at random. The second player starts with one privilege."),
      ]),
      figure(tp("howto", "The board at the start: all 25 tokens laid out."), tokenBoard(FULL_BOARD)),
      figure(
        tp("howto", "The tokens: five gem colours, the pearl and gold."),
        DUEL_TOKENS.map((token) => named(tokenChip(token, undefined, { size: "lg" }), tokenName(token))),
      ),
      figure(
        tp("howto", "The three privileges and the four royal cards."),
        privilegeScrolls(3, { label: tp("howto", "3 privileges") }),
        Object.entries(ROYALS).map(([id, royal]) => royalTile(`howto-${id}`, royal)),
      ),
    ),
    section(
      "turn",
      titles.turn,
      para(tp("howto", "Your turn has two steps: first the optional actions, if you want them, in this order; then exactly one mandatory action.")),
      subsection(
        "optional",
        tp("howto", "Optional actions"),
        list(
          [
            tp("howto", "Use privileges: give back one or more of your privileges to the supply, and for each one take any one gem or pearl token from the board. These tokens need not be in a line, but they are never gold."),
            tp("howto", "Replenish the board: put every token of the bag back onto the board. You may do it only when the bag is not empty, and your opponent then takes a privilege."),
          ],
          { ordered: true },
        ),
      ),
      subsection(
        "mandatory",
        tp("howto", "The mandatory action"),
        para(tp("howto", "Then do one of these three:")),
        list([
          tp("howto", "Take up to three tokens: one, two or three gem or pearl tokens in a line (see below). You never take gold this way."),
          tp("howto", "Take a gold and reserve a card: take one gold token from the board, and reserve a card of the pyramid or the top card of a deck, unseen. Gold is taken only this way, and you may hold three reserved cards at most."),
          tp("howto", "Buy a card from the pyramid or from your reserved cards: pay its cost less your bonuses; gold pays for any gem or a pearl. The tokens you pay go into the bag."),
        ]),
        para(tp("howto", "A card that leaves the pyramid is replaced at once from the deck of its level. If no mandatory action is possible, you must replenish the board first.")),
        figure(
          tp("howto", "Reserving: a gold token from the board, with a card of the pyramid or the top card of a deck."),
          tokenChip("gold", undefined, { size: "lg" }),
          duelCardFace("howto-take-token", CARDS.take_token),
          or(),
          duelCardBack(3),
        ),
        para(tp("howto", "A few cards have two gems of their colour: a double bonus, worth two. A few have no bonus at all and bring only points.")),
        figure(tp("howto", "A card with a double bonus, and one with no bonus."), duelCardFace("howto-double", CARDS.double), duelCardFace("howto-no-bonus", CARDS.noBonus)),
      ),
    ),
    section(
      "line",
      titles.line,
      para(tp("howto", "The tokens you take must touch each other, one after another in a straight line: along a row, down a column or along a diagonal.")),
      para(tp("howto", "There may be no gap: an empty cell or a gold token between them breaks the line.")),
      para(tp("howto", "Taking three tokens of the same colour, or both pearls, gives your opponent a privilege.")),
      figures(
        figure(tp("howto", "A line you may take: three tokens touching along a diagonal."), tokenBoard(PLAYED_BOARD, { pick: [[1, 2], [2, 1], [3, 0]] })),
        figure(tp("howto", "Not a line: the gold between the blue token and the pearl is in the way."), tokenBoard(PLAYED_BOARD, { pick: [[2, 2], [2, 4]], gap: [[2, 3]] })),
      ),
    ),
    section(
      "privileges",
      titles.privileges,
      para(tp("howto", "A privilege lets you take one more gem or pearl from the board at the start of a turn (see Optional actions). There are only three of them.")),
      para(tp("howto", "You take a privilege when you are the second player, at the start; when your opponent replenishes the board; when your opponent takes three tokens of one colour, or both pearls; and when a card's ability gives you one.")),
      para(tp("howto", "When you must take one and the supply is empty, you take it from your opponent. If you already hold all three, nothing happens.")),
      figure(tp("howto", "A player holding two of the three privileges."), privilegeScrolls(2, { label: tp("howto", "2 privileges of 3") })),
    ),
    section(
      "replenish",
      titles.replenish,
      para(tp("howto", "Every token players pay or put back goes into the bag. Replenishing the board draws all of them, at random, onto the empty cells, again from the centre outwards.")),
      para(tp("howto", "It is optional, but it always gives your opponent a privilege, even when you had no other choice.")),
      figure(
        tp("howto", "The bag, here with 2 blue tokens, 1 red and 1 pearl, to be drawn onto the board's empty cells."),
        tokenChip("blue", 2, { size: "lg" }),
        tokenChip("red", 1, { size: "lg" }),
        tokenChip("pearl", 1, { size: "lg" }),
      ),
    ),
    section(
      "abilities",
      titles.abilities,
      para(tp("howto", "Some cards have an ability, shown by a round badge on their right. It takes effect as soon as you buy the card (not when you reserve it).")),
      ABILITIES.map((ability) =>
        subsection(
          `ability-${ability}`,
          capital(abilityName(ability)),
          h("div", { class: "howto-ability" }, duelCardFace(`howto-${ability}`, CARDS[ability]), h("div", {}, ABILITY_WORDS[ability]())),
        ),
      ),
    ),
    section(
      "crowns",
      titles.crowns,
      para(tp("howto", "Some cards show crowns at the top. Ten crowns win the game.")),
      para(tp("howto", "When you reach 3 crowns, and again when you reach 6, you choose one of the royal cards still there. It brings its prestige points and its ability at once; taking it is not an action.")),
      figure(
        tp("howto", "A level-3 card with 2 crowns and 3 points, and the royal cards: 3 points, or 2 points with another turn, a privilege or a token stolen."),
        duelCardFace("howto-two-crowns", CARDS.twoCrowns),
        Object.entries(ROYALS).map(([id, royal]) => royalTile(`howto-crowns-${id}`, royal)),
      ),
    ),
    section(
      "limit",
      titles.limit,
      para(tp("howto", "At the end of your turn you may hold ten tokens at most, gold and pearls included. Put the extra ones of your choice into the bag.")),
    ),
    section(
      "end",
      titles.end,
      para(tp("howto", "At the end of each of your turns, you win at once if you have any of these:")),
      list([
        tp("howto", "20 prestige points, counting your cards and your royal cards;"),
        tp("howto", "10 crowns;"),
        tp("howto", "10 prestige points on cards of a single colour (a wild card counts as the colour it was put on)."),
      ]),
      para(tp("howto", "Only the player whose turn is ending can win: there is no last round.")),
    ),
    glossary(titles.words, [
      [tp("term", "jewel card"), tp("howto", "A card you buy with tokens: it gives a bonus, and may bring points, crowns and an ability.")],
      [tp("token", "pearl"), tp("howto", "A rare token: some cards ask for one.")],
      [tp("term", "privilege"), tp("howto", "A scroll that lets you take one gem or pearl from the board before your action.")],
      [tp("term", "crown"), tp("howto", "Shown on some cards: 3 and 6 of them bring royal cards, 10 win.")],
      [tp("term", "royal card"), tp("howto", "A card with points and sometimes an ability, taken for crowns, never bought.")],
      [tp("term", "ability"), tp("howto", "What a card does at once when you buy it.")],
      [tp("term", "bag"), tp("howto", "Where spent and discarded tokens go, until the board is replenished.")],
      [tp("term", "pyramid"), tp("howto", "The face-up cards: 5 of level 1, 4 of level 2, 3 of level 3.")],
    ]),
  ];
}
