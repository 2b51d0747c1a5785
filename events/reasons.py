"""What the rules refuse, as stable keys with arguments (PROTOCOL.md "Languages").

A refusal is a ``Reason``: a key (``"take_two.supply_short"``) and its arguments
(``{"color": "red", "have": 3, "need": 4}``). ``REASONS`` maps each key to its English
template, marked for the ``server`` catalog; the sentence in a reader's language is
made at the edge (server/common/sentences.py) by ``render`` with that language's
words, and ``english`` makes the English one for logs and tests. docs/reasons.md
lists every key.

Arguments are plain JSON values, rendered by their name: ``color`` is a token's colour
as the wire names it (``"red"``, ``"gold"``, ``"pearl"``: its word comes from the
catalog, context ``token``) and ``status`` a game's status (context ``status``),
``cost`` counts tokens by colour (``{"blue": 2}``: "2 blue", a list of them in
words), ``cell`` is a Duel board cell ``[row, col]``; numbers are written in the
reader's digits; other strings (names, card ids, actions, what a client sent) stay
as they are. A template of two forms (``N_(singular, plural, count)``) picks its
form by the number in the argument ``count``, with the reader's plural rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final, Protocol, TypeAlias, overload

Arg: TypeAlias = "int | float | str | Sequence[int] | Mapping[str, int]"

PLACEHOLDER: Final = re.compile(r"(?<!\{)\{(\w+)\}")
TERM_ARGS: Final[Mapping[str, str]] = {"color": "token", "status": "status"}
"""Arguments whose value is a word of the game, and the message context of its name."""
TOKEN_COUNT_ARGS: Final = frozenset({"cost"})
CELL_ARGS: Final = frozenset({"cell"})


@dataclass(frozen=True)
class Template:
    """A reason's English sentence: one form, or a singular and a plural chosen by
    the number in the argument ``count``."""

    singular: str
    plural: str | None = None
    count: str | None = None

    @cached_property
    def names(self) -> frozenset[str]:
        """The arguments the template takes: its ``{name}`` placeholders."""
        return frozenset(PLACEHOLDER.findall(f"{self.singular} {self.plural or ''}"))

    def check(self, key: str, args: Mapping[str, Arg]) -> None:
        """Refuse (``ValueError``) arguments other than the template's: a refusal
        raised without one its sentence names is a bug, caught where it is raised."""
        if set(args) != self.names:
            raise ValueError(f"{key} takes {sorted(self.names)}, not {sorted(args)}")


@overload
def N_(msgid: str) -> Template: ...
@overload
def N_(msgid: str, plural: str, count: str) -> Template: ...
def N_(msgid: str, plural: str | None = None, count: str | None = None) -> Template:
    """Mark a template for the catalog (python -m catalogs.tool extract) without
    translating it: this module is pure, the translation happens at the edge."""
    return Template(msgid, plural, count)


@overload
def NP_(context: str, msgid: str) -> str: ...
@overload
def NP_(context: str, msgid: str, plural: str, count: str) -> str: ...
def NP_(context: str, msgid: str, plural: str | None = None, count: str | None = None) -> str:
    """Mark ``msgid`` (and its ``plural``) with a message ``context`` for the catalog,
    without translating it."""
    return msgid


@dataclass(frozen=True)
class Reason:
    """A refusal: its key in ``REASONS`` (or the server's) and its arguments."""

    key: str
    args: Mapping[str, Arg] = field(default_factory=dict)

    def to_wire(self) -> dict[str, object]:
        return {"key": self.key, "args": dict(self.args)}


def _give_back(verb: str) -> dict[str, Template]:
    """The refusals of giving back tokens above the limit, one set per verb (each a
    whole sentence, so that a translator sees the verb in it)."""
    if verb == "return":
        return {
            "return_tokens.negative": N_("You can't return a negative number of tokens."),
            "return_tokens.more_than_held": N_(
                "You return {n} {color} but hold only {have}.",
                "You return {n} {color} but hold only {have}.",
                "n",
            ),
            "return_tokens.wrong_count": N_(
                "You hold {held} token: return exactly {excess} to keep {keep}, not {count}.",
                "You hold {held} tokens: return exactly {excess} to keep {keep}, not {count}.",
                "held",
            ),
            "return_tokens.not_now": N_(
                "You return tokens only when you hold more than {most} at a turn's end."
            ),
        }
    return {
        "discard_tokens.negative": N_("You can't discard a negative number of tokens."),
        "discard_tokens.more_than_held": N_(
            "You discard {n} {color} but hold only {have}.",
            "You discard {n} {color} but hold only {have}.",
            "n",
        ),
        "discard_tokens.wrong_count": N_(
            "You hold {held} token: discard exactly {excess} to keep {keep}, not {count}.",
            "You hold {held} tokens: discard exactly {excess} to keep {keep}, not {count}.",
            "held",
        ),
        "discard_tokens.not_now": N_(
            "You discard tokens only when you hold more than {most} at a turn's end."
        ),
    }


REASONS: Final[Mapping[str, Template]] = {
    # The game's state and the turn (both games).
    "game.over": N_("The game is over."),
    "game.aborted": N_("The game was aborted."),
    "game.not_started": N_("The game has not started: it is waiting for players."),
    "turn.not_yours": N_("It is {player}'s turn, not yours."),
    "seat.none_free": N_("This game has no free seat left."),
    "seat.rated_needs_account": N_(
        "This game is rated: only a player logged in to an account may join it."
    ),
    "seat.account_seated": N_("{account} already has a seat at this game: one seat an account."),
    # Leaving a game and the clock (events/leaving.py).
    "leave.no_seat": N_("You have no seat in this game."),
    "leave.already_out": N_("You are out of this game already."),
    "leave.not_started": N_("The game has not started: abort it instead."),
    "abort.too_late": N_("A game can be aborted only until every player has made a first move."),
    "resign.bot": N_("A bot's seat does not resign."),
    "claim.correspondence": N_(
        "A correspondence game is never claimed abandoned: the clock decides it."
    ),
    "claim.first_move": N_(
        "{player} has not made a first move: the game is aborted if none comes in time."
    ),
    "claim.own_move": N_("It is your move: you can't claim that you abandoned."),
    "claim.bot": N_("Bots never abandon a game."),
    "claim.too_early": N_(
        "{player} can be claimed to have abandoned after {after} s away; {wait} s to go."
    ),
    "time.first_move_out": N_("The time for your first move ran out: the game is aborted."),
    "time.out": N_("Your time ran out."),
    # Classic Splendor.
    "classic.unknown_action": N_("{action} is not a classic Splendor action."),
    "classic.return_first": N_(
        "You hold more than {most} tokens: return tokens before anything else."
    ),
    "classic.noble_first": N_("Several nobles want to visit you: choose one first."),
    "take_three.same_colour": N_(
        "take_three takes tokens of different colours; use take_two for two of one colour"
    ),
    "take_three.count": N_("take_three takes {most} tokens of different colours"),
    "take_three.supply_empty": N_("there is no {color} token left in the supply"),
    "take_three.fewer": N_(
        "take_three takes {most} different colours; fewer only when fewer than {most} "
        "colours are left in the supply, and {left} is",
        "take_three takes {most} different colours; fewer only when fewer than {most} "
        "colours are left in the supply, and {left} are",
        "left",
    ),
    "take_two.supply_short": N_(
        "take_two needs at least {need} {color} tokens in the supply, there is {have}",
        "take_two needs at least {need} {color} tokens in the supply, there are {have}",
        "have",
    ),
    "pass.not_allowed": N_("You may pass only when no other action is possible."),
    "buy.not_on_board": N_("Card {card} is neither on the board nor in your reserve."),
    "noble.not_now": N_("You choose a noble only when several can visit you at once."),
    "noble.not_met": N_("Noble {noble} can't visit you: your bonuses don't meet it."),
    **_give_back("return"),
    # Reserving and buying (both games).
    "reserve.full": N_(
        "You already hold {most} reserved card, the most allowed.",
        "You already hold {most} reserved cards, the most allowed.",
        "most",
    ),
    "reserve.card_and_deck.board": N_(
        "Reserve names a card on the board or a level's deck, not both."
    ),
    "reserve.card_and_deck.pyramid": N_(
        "Reserve names a card in the pyramid or a level's deck, not both."
    ),
    "reserve.card_missing.board": N_("Card {card} is not on the board."),
    "reserve.card_missing.pyramid": N_("Card {card} is not in the pyramid."),
    "reserve.nothing.board": N_("Reserve needs a card on the board or a deck level of 1, 2 or 3."),
    "reserve.nothing.pyramid": N_(
        "Reserve needs a card in the pyramid or a deck level of 1, 2 or 3."
    ),
    "reserve.deck_empty": N_("The level-{level} deck is empty: there is nothing to reserve."),
    "buy.cant_afford": N_(
        "You can't afford {card}: after your bonuses it costs {cost}, and you are {short} "
        "token short.",
        "You can't afford {card}: after your bonuses it costs {cost}, and you are {short} "
        "tokens short.",
        "short",
    ),
    "buy.payment_negative": N_(
        "You can't buy {card} that way: a payment can't hold a negative number of tokens."
    ),
    "buy.payment_more_than_held": N_(
        "You can't buy {card} that way: you pay {n} {color} but hold only {have}.",
        "You can't buy {card} that way: you pay {n} {color} but hold only {have}.",
        "n",
    ),
    "buy.payment_too_much": N_(
        "You can't buy {card} that way: the card needs only {need} {color} after your "
        "bonuses, you offer {offer}.",
        "You can't buy {card} that way: the card needs only {need} {color} after your "
        "bonuses, you offer {offer}.",
        "need",
    ),
    "buy.payment_short": N_("You can't buy {card} that way: this payment is {short} short."),
    "buy.payment_gold_over": N_(
        "You can't buy {card} that way: this payment has {extra} gold too many."
    ),
    # Splendor Duel.
    "duel.unknown_action": N_("{action} is not a Splendor Duel action."),
    "duel.replenish_first": N_(
        "No mandatory action is possible with this board: you must replenish the board first."
    ),
    "duel.bonus_token_first": N_(
        "Your card lets you take a {color} token from the board: choose which one first."
    ),
    "duel.steal_first": N_("Choose which token to steal from {player} first."),
    "duel.royal_first": N_("You reached a crown threshold: choose a royal card first."),
    "duel.discard_first": N_(
        "You hold {held} token: put {excess} back into the bag before anything else.",
        "You hold {held} tokens: put {excess} back into the bag before anything else.",
        "held",
    ),
    "duel.mandatory_done": N_("Your mandatory action of this turn is done."),
    "cell.off_board": N_("Cell {cell} is off the board: rows and columns go from 0 to 4."),
    "cell.twice": N_("A cell is named twice."),
    "cell.empty": N_("Cell {cell} is empty."),
    "privileges.after_action": N_(
        "Privileges are used at the start of a turn, before its mandatory action."
    ),
    "privileges.after_replenish": N_(
        "Privileges are used before replenishing the board, not after."
    ),
    "privileges.no_cell": N_("Name at least one cell: each privilege takes one token."),
    "privileges.none": N_("You hold no privilege."),
    "privileges.too_many": N_(
        "You hold {held} privilege: you can take at most {held} token with them.",
        "You hold {held} privileges: you can take at most {held} tokens with them.",
        "held",
    ),
    "privileges.cell_gold": N_(
        "Cell {cell} holds gold, which a privilege can't take: gold comes only with a reserve."
    ),
    "privileges.no_action_left": N_(
        "Taking these tokens would leave you no mandatory action, even after replenishing "
        "the board: take fewer."
    ),
    "replenish.after_action": N_(
        "The board is replenished at the start of a turn, before its mandatory action."
    ),
    "replenish.bag_empty": N_("The bag is empty: there is nothing to replenish the board with."),
    "take_tokens.count": N_("take_tokens takes 1 to {most} tokens, not {count}."),
    "take_tokens.cell_gold": N_(
        "Cell {cell} holds gold, which take_tokens can't take: gold comes only with a reserve."
    ),
    "take_tokens.not_a_line": N_("The tokens must lie in one row, column or diagonal."),
    "take_tokens.gap_empty": N_(
        "The tokens must be adjacent, with no gap: {cell} lies between them and is empty."
    ),
    "take_tokens.gap_gold": N_(
        "The tokens must be adjacent, with no gap: {cell} lies between them and holds gold."
    ),
    "take_tokens.gap_token": N_(
        "The tokens must be adjacent, with no gap: {cell} lies between them and holds a "
        "{color} token you did not name."
    ),
    "reserve.no_gold": N_("There is no gold on the board: you can't reserve a card."),
    "reserve.cell_not_gold": N_("Cell {cell} holds no gold: name a cell with a gold token."),
    "buy.not_in_pyramid": N_("Card {card} is neither in the pyramid nor in your reserve."),
    "buy.not_wild": N_("Only a wild card goes on another card, and {card} is not wild."),
    "buy.wild_without_bonus": N_(
        "{card} is a wild card: it goes on a card of yours with a bonus, and you have none "
        "yet, so you can't buy it."
    ),
    "buy.wild_on_missing": N_(
        "{card} is a wild card: name the card of yours it goes on (wild_on)."
    ),
    "buy.wild_on_not_owned": N_("You don't own {target}: a wild card goes on a card of yours."),
    "buy.wild_on_no_bonus": N_("{target} has no bonus: a wild card goes on a card with a bonus."),
    "take_bonus_token.not_now": N_(
        "take_bonus_token follows only a card with the take-a-token ability."
    ),
    "take_bonus_token.wrong_cell": N_(
        "Cell {cell} holds no {color} token: your card takes a {color} one."
    ),
    "steal_token.not_now": N_("steal_token follows only a card or royal with the steal ability."),
    "steal_token.gold": N_("Gold can't be stolen: take a gem or a pearl."),
    "steal_token.none_held": N_("{player} holds no {color} token."),
    "choose_royal.not_now": N_("You choose a royal card only on reaching your 3rd or 6th crown."),
    "choose_royal.unavailable": N_("Royal card {royal} is not available."),
    **_give_back("discard"),
}


# ---------------------------------------------------------------------- sentences


class Words(Protocol):
    """A language's words for ``render``: its form of a template, a colour's name, a
    count of tokens of a colour, a number in its digits, a list."""

    def template(self, template: Template, count: float | None) -> str: ...
    def term(self, context: str, word: str) -> str: ...
    def tokens(self, color: str, n: int) -> str: ...
    def number(self, n: float) -> str: ...
    def join(self, parts: Sequence[str]) -> str: ...


class English:
    """The English words: the templates as written, numbers in plain digits, lists as
    "a, b and c"."""

    def template(self, template: Template, count: float | None) -> str:
        if template.plural is not None and count != 1:
            return template.plural
        return template.singular

    def term(self, context: str, word: str) -> str:
        return word

    def tokens(self, color: str, n: int) -> str:
        return f"{self.number(n)} {color}"

    def number(self, n: float) -> str:
        if isinstance(n, int) or (math.isfinite(n) and n == int(n)):
            return str(int(n))
        return f"{n:.3f}".rstrip("0")

    def join(self, parts: Sequence[str]) -> str:
        if len(parts) <= 1:
            return "".join(parts)
        return ", ".join(parts[:-1]) + " and " + parts[-1]


ENGLISH: Final = English()


def render(template: Template, args: Mapping[str, Arg], words: Words) -> str:
    """The sentence of ``template`` with ``args`` in the language of ``words``."""
    count = args.get(template.count) if template.count else None
    text = words.template(template, count if isinstance(count, int | float) else None)
    return text.format_map({name: _word(name, value, words) for name, value in args.items()})


def _word(name: str, value: Arg, words: Words) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return words.number(value)
    if isinstance(value, str):
        context = TERM_ARGS.get(name)
        return value if context is None else words.term(context, value)
    if isinstance(value, Mapping):
        return words.join([words.tokens(color, n) for color, n in value.items() if n])
    if name in CELL_ARGS:
        return f"[{', '.join(words.number(n) for n in value)}]"
    return words.join([words.number(n) for n in value])


def english(reason: Reason) -> str:
    """The English sentence of a refusal of the rules."""
    return render(REASONS[reason.key], reason.args, ENGLISH)
