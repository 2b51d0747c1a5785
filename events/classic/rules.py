"""The rules of classic Splendor: ``decide`` and ``legal_actions``.

``decide(state, seat, action, rng)`` returns the events an action causes or raises a
``RuleViolation`` naming the broken rule; it never changes ``state``. Chance (a card
dealt, a blind reserve, the opening layout) is drawn from ``rng`` at that moment and
written into the event. Each rule is checked in one function below, which both
``decide`` and ``legal_actions`` call.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations, product
from typing import Final, Literal

from events import leaving
from events.base import OutReason
from events.catalog import classic_cards, classic_nobles
from events.classic.actions import (
    Buy,
    ChooseNoble,
    ClassicAction,
    Pass,
    Reserve,
    ReturnTokens,
    TakeThree,
    TakeTwo,
)
from events.classic.events import (
    CardBought,
    CardDealt,
    CardReserved,
    ClassicEvent,
    GameEnded,
    GameStarted,
    NobleVisited,
    TokensReturned,
    TokensTaken,
    TurnEnded,
    TurnPassed,
)
from events.classic.evolve import standing
from events.classic.state import ClassicState, PlayerState
from events.colors import (
    GEM_INDEX,
    GEMS,
    GOLD_INDEX,
    TOKENS,
    Token,
    only_nonzero,
    to_dict,
)
from events.decks import (
    card_levels,
    level_ids,
    opening_rows,
    refill,
    reserve_source,
    slot_of,
)
from events.errors import IllegalAction
from events.leaving import Facts
from events.payment import payment_for
from events.token_limit import check_give_back, ways_to_give_back
from events.turns import take_seat, to_move

Phase = Literal["main", "return_tokens", "choose_noble"]

MAX_TOKENS: Final = 10
MAX_RESERVED: Final = 3
POINTS_TO_END: Final = 15
TAKE_TWO_MINIMUM: Final = 4
GEMS_BY_PLAYERS: Final = {2: 4, 3: 5, 4: 7}
GOLD_TOKENS: Final = 5
BOARD_SLOTS: Final = 4

_CARDS = classic_cards()
_NOBLES = classic_nobles()

_TOKEN_NAMES: tuple[Token, ...] = TOKENS
_COST = {card_id: card.cost for card_id, card in _CARDS.items()}
_LEVEL = card_levels(_CARDS.values())
_LEVEL_IDS = level_ids(_CARDS.values())


def rule_numbers() -> dict[str, int]:
    """The rules' numbers a page explains a refusal with ("take two red needs 4 red in
    the bank"): ``GET /api/catalog/classic``'s ``rules``, read from the constants above."""
    return {
        "take_two_minimum": TAKE_TWO_MINIMUM,
        "max_reserved": MAX_RESERVED,
        "max_tokens": MAX_TOKENS,
        "points_to_end": POINTS_TO_END,
    }


# ------------------------------------------------------------------ the rules' checks
# Each rule is checked in one small function; decide and legal_actions both call it.


def take_three_count_allowed(count: int, colours_left: int) -> bool:
    """take_three takes 3 colours; fewer (but at least 1) only when fewer than 3 are left."""
    return count == 3 or (1 <= count < 3 and colours_left < 3)


def take_two_allowed(in_supply: int) -> bool:
    """take_two needs at least 4 tokens of the colour in the supply before taking."""
    return in_supply >= TAKE_TWO_MINIMUM


def reserve_allowed(player: PlayerState) -> bool:
    """At most 3 reserved cards."""
    return len(player.reserved) < MAX_RESERVED


def affordable(player: PlayerState, card_ids: Iterable[str]) -> list[str]:
    """The cards among ``card_ids`` that the player's bonuses, coloured tokens and gold
    pay for. Unrolled over the five colours: legal_actions asks it for every card."""
    tokens = player.tokens
    bonuses = player.bonuses
    white = bonuses[0] + tokens[0]
    blue = bonuses[1] + tokens[1]
    green = bonuses[2] + tokens[2]
    red = bonuses[3] + tokens[3]
    black = bonuses[4] + tokens[4]
    gold = tokens[GOLD_INDEX]
    out = []
    for card_id in card_ids:
        w, u, g, r, k = _COST[card_id]
        missing = (
            (w - white if w > white else 0)
            + (u - blue if u > blue else 0)
            + (g - green if g > green else 0)
            + (r - red if r > red else 0)
            + (k - black if k > black else 0)
        )
        if missing <= gold:
            out.append(card_id)
    return out


def tokens_over(player: PlayerState) -> int:
    """How many tokens the player must return to hold 10 (0 when at 10 or fewer)."""
    held = sum(player.tokens)
    return held - MAX_TOKENS if held > MAX_TOKENS else 0


# Actions are frozen values: build each once and hand out the same objects.
_TAKE_THREE = {
    combo: TakeThree(tuple(GEMS[i] for i in combo))
    for size in (1, 2, 3)
    for combo in combinations(range(5), size)
}
# For each set of colours left in the supply, the take_three actions the rule allows.
_TAKE_THREE_BY_LEFT = {
    left: tuple(
        _TAKE_THREE[combo]
        for size in (1, 2, 3)
        if take_three_count_allowed(size, len(left))
        for combo in combinations(left, size)
    )
    for n in range(6)
    for left in combinations(range(5), n)
}
_TAKE_TWO = [TakeTwo(g) for g in GEMS]
_RESERVE_CARD = {card_id: Reserve(card=card_id) for card_id in _CARDS}
_RESERVE_BLIND = {level: Reserve(level=level) for level in (1, 2, 3)}
# For which of the three decks still hold cards, the blind reserves they allow.
_RESERVE_BLINDS = {
    left: tuple(_RESERVE_BLIND[level] for level in (1, 2, 3) if left[level - 1])
    for left in product((False, True), repeat=3)
}
_BUY = {card_id: Buy(card_id) for card_id in _CARDS}
_PASS = Pass()


# ------------------------------------------------------------------ set-up


def join(
    state: ClassicState,
    name: str,
    bot: str | None,
    rng: random.Random,
    account: str | None = None,
) -> list[ClassicEvent]:
    """A player (an account's, or a guest) takes the next free seat; the last seat
    starts the game."""
    joined = take_seat(state, name, bot, account)
    events: list[ClassicEvent] = [joined]
    if joined.seat + 1 == state.players_count:
        events.append(start(state.players_count, rng))
    return events


def start(players: int, rng: random.Random) -> GameStarted:
    """The opening: nobles, 4 cards a level, the bank for this many players, first seat."""
    nobles = tuple(rng.sample(sorted(_NOBLES), players + 1))
    board = opening_rows(_LEVEL_IDS, (BOARD_SLOTS,) * 3, rng)
    bank = {g: GEMS_BY_PLAYERS[players] for g in GEMS} | {"gold": GOLD_TOKENS}
    return GameStarted(rng.randrange(players), nobles, board, bank)


# ------------------------------------------------------------------ phases


def phase(state: ClassicState) -> Phase:
    """Where the current turn stands: its main action, a token return, a noble choice."""
    if not state.acted:
        return "main"
    player = state.players[state.seat]
    if tokens_over(player):
        return "return_tokens"
    if not state.noble_visited and len(eligible_nobles(state, player.bonuses)) >= 2:
        return "choose_noble"
    return "main"


def eligible_nobles(state: ClassicState, bonuses: list[int]) -> list[str]:
    """Nobles on the table whose requirement these bonuses meet (bonuses, never tokens)."""
    out = []
    for noble_id in state.nobles:
        req = _NOBLES[noble_id].requires
        if (
            bonuses[0] >= req[0]
            and bonuses[1] >= req[1]
            and bonuses[2] >= req[2]
            and bonuses[3] >= req[3]
            and bonuses[4] >= req[4]
        ):
            out.append(noble_id)
    return out


def final_round(state: ClassicState) -> bool:
    """Someone has 15 points: the round is played to its end. (A list's max, not a
    generator: the views ask it after most events.)"""
    return bool(state.players) and max([p.points for p in state.players]) >= POINTS_TO_END


# ------------------------------------------------------------------ decide


def decide(
    state: ClassicState,
    seat: int,
    action: ClassicAction,
    rng: random.Random,
    facts: Facts | None = None,
) -> list[ClassicEvent]:
    """The events ``action`` by ``seat`` causes, or a ``RuleViolation``. ``facts``:
    the time now and who is away (``events.leaving``); without them no clock is checked
    and nobody counts as away."""
    leave = leaving.decide_first(state, seat, action, facts, seat_out)
    if leave is not None:
        return leave
    player = state.players[seat]
    current = phase(state)
    if isinstance(action, ReturnTokens):
        return _decide_return(state, player, current, action)
    if isinstance(action, ChooseNoble):
        return _decide_noble(state, player, current, action)
    if current == "return_tokens":
        raise IllegalAction("classic.return_first", most=MAX_TOKENS)
    if current == "choose_noble":
        raise IllegalAction("classic.noble_first")
    match action:
        case TakeThree(colors=colors):
            _check_take_three(state, colors)
            events: list[ClassicEvent] = [TokensTaken(seat, {c: 1 for c in colors})]
            return _finish(state, player, events, sum(player.tokens) + len(colors))
        case TakeTwo(color=color):
            left = state.bank[GEM_INDEX[color]]
            if not take_two_allowed(left):
                raise IllegalAction(
                    "take_two.supply_short", color=color, have=left, need=TAKE_TWO_MINIMUM
                )
            events = [TokensTaken(seat, {color: 2})]
            return _finish(state, player, events, sum(player.tokens) + 2)
        case Reserve():
            return _decide_reserve(state, player, action, rng)
        case Buy():
            return _decide_buy(state, player, action, rng)
        case Pass():
            if _main_actions(state, player):
                raise IllegalAction("pass.not_allowed")
            return _finish(state, player, [TurnPassed(seat)], sum(player.tokens), passed=True)
    raise IllegalAction("classic.unknown_action", action=type(action).__name__)


def _check_take_three(state: ClassicState, colors: tuple[str, ...]) -> None:
    if len(set(colors)) != len(colors):
        raise IllegalAction("take_three.same_colour")
    if not 1 <= len(colors) <= 3:
        raise IllegalAction("take_three.count", most=3)
    for color in colors:
        if state.bank[GEM_INDEX[color]] == 0:
            raise IllegalAction("take_three.supply_empty", color=color)
    left = sum(1 for i in range(5) if state.bank[i])
    if not take_three_count_allowed(len(colors), left):
        raise IllegalAction("take_three.fewer", most=3, left=left)


def _decide_reserve(
    state: ClassicState, player: PlayerState, action: Reserve, rng: random.Random
) -> list[ClassicEvent]:
    if not reserve_allowed(player):
        raise IllegalAction("reserve.full", most=MAX_RESERVED)
    gold = 1 if state.bank[GOLD_INDEX] else 0
    level, card_id, slot = reserve_source(
        state.board, state.decks, _LEVEL, action.card, action.level, rng, "board"
    )
    events: list[ClassicEvent] = [CardReserved(player.seat, level, card_id, slot is None, gold)]
    if slot is not None:
        refill(events, CardDealt, state.decks, level, slot, rng)
    return _finish(state, player, events, sum(player.tokens) + gold)


def _decide_buy(
    state: ClassicState, player: PlayerState, action: Buy, rng: random.Random
) -> list[ClassicEvent]:
    card_id = action.card
    from_reserve = any(r.card == card_id for r in player.reserved)
    where = None if from_reserve else slot_of(state.board, _LEVEL, card_id)
    if not from_reserve and where is None:
        raise IllegalAction("buy.not_on_board", card=card_id)
    card = _CARDS[card_id]
    pay = payment_for(card_id, card.cost, GEMS, player.bonuses, player.tokens, action.payment)
    events: list[ClassicEvent] = [
        CardBought(player.seat, card_id, only_nonzero(to_dict(pay)), from_reserve)
    ]
    if where is not None:
        refill(events, CardDealt, state.decks, *where, rng)
    bonuses = list(player.bonuses)
    bonuses[card.color] += 1
    return _finish(
        state,
        player,
        events,
        sum(player.tokens) - sum(pay),
        bonuses=bonuses,
        points=player.points + card.points,
        cards=len(player.cards) + 1,
    )


def _decide_return(
    state: ClassicState, player: PlayerState, current: Phase, action: ReturnTokens
) -> list[ClassicEvent]:
    if current != "return_tokens":
        raise IllegalAction("return_tokens.not_now", most=MAX_TOKENS)
    check_give_back(player.tokens, action.tokens, MAX_TOKENS, "return_tokens")
    events: list[ClassicEvent] = [
        TokensReturned(player.seat, {name: n for name, n in action.tokens.items() if n})
    ]
    return _finish(state, player, events, MAX_TOKENS)


def _decide_noble(
    state: ClassicState, player: PlayerState, current: Phase, action: ChooseNoble
) -> list[ClassicEvent]:
    if current != "choose_noble":
        raise IllegalAction("noble.not_now")
    if action.noble not in eligible_nobles(state, player.bonuses):
        raise IllegalAction("noble.not_met", noble=action.noble)
    events: list[ClassicEvent] = [NobleVisited(player.seat, action.noble)]
    return _end_turn(state, player, events, player.points + _NOBLES[action.noble].points)


def _finish(
    state: ClassicState,
    player: PlayerState,
    events: list[ClassicEvent],
    tokens_after: int,
    *,
    bonuses: list[int] | None = None,
    points: int | None = None,
    cards: int | None = None,
    passed: bool = False,
) -> list[ClassicEvent]:
    """The end of a turn after its events so far: token return, noble visit, next seat."""
    if tokens_after > MAX_TOKENS:
        return events  # phase return_tokens
    points = player.points if points is None else points
    if not state.noble_visited:
        eligible = eligible_nobles(state, player.bonuses if bonuses is None else bonuses)
        if len(eligible) >= 2:
            return events  # phase choose_noble
        if eligible:
            events.append(NobleVisited(player.seat, eligible[0]))
            points += _NOBLES[eligible[0]].points
    return _end_turn(state, player, events, points, cards, passed)


def _end_turn(
    state: ClassicState,
    player: PlayerState,
    events: list[ClassicEvent],
    points: int,
    cards: int | None = None,
    passed: bool = False,
    out: int | None = None,
) -> list[ClassicEvent]:
    """The turn of ``player`` ends (``out``: the seat going out now, skipped from now
    on); then the game's end if the round is over with 15 points reached, or if every
    seat in play passed in a row."""
    seat = player.seat
    count = state.players_count
    next_seat = leaving.next_in_play(state, seat, out)
    events.append(TurnEnded(seat, next_seat))
    round_over = leaving.round_over(state.first_seat, count, seat, next_seat)
    playing = len(leaving.in_play(state, out))
    everyone_stuck = passed and state.passes_in_row + 1 >= playing
    # Points never go down, so someone reached 15 iff the mover does now or anyone had.
    someone_at_15 = points >= POINTS_TO_END or final_round(state)
    if (round_over and someone_at_15) or everyone_stuck:
        all_points = [points if p.seat == seat else p.points for p in state.players]
        all_cards = [
            (len(p.cards) if cards is None else cards) if p.seat == seat else len(p.cards)
            for p in state.players
        ]
        gone = () if out is None else (out,)
        events.append(
            GameEnded(
                winners(all_points, all_cards, leaving.in_play(state, out)),
                tuple(all_points),
                tuple(all_cards),
                "points",
                standing(state, all_points, all_cards, gone),
            )
        )
    return events


def winners(
    points: list[int], cards: list[int], playing: list[int] | None = None
) -> tuple[int, ...]:
    """Most prestige; then fewest cards bought; a tie after that is a shared victory.
    Only seats in play (``playing``, default all) can win."""
    seats = range(len(points)) if playing is None else playing
    best = max(points[s] for s in seats)
    leaders = [s for s in seats if points[s] == best]
    fewest = min(cards[s] for s in leaders)
    return tuple(s for s in leaders if cards[s] == fewest)


# ------------------------------------------------------------------ time and leaving


def seat_out(state: ClassicState, seat: int, reason: OutReason) -> list[ClassicEvent]:
    """What follows ``seat`` going out (``events.leaving.SeatOut``): with one seat left in
    play, it wins at once; else, if it was ``seat``'s move, its turn ends there and
    play goes on among the seats in play (to the game's normal end, maybe now)."""
    left = leaving.in_play(state, seat)
    points = [p.points for p in state.players]
    cards = [len(p.cards) for p in state.players]
    if len(left) == 1:
        ranks = leaving.ranks(state.players_count, [left], [*state.clock.outs, seat])
        return [GameEnded((left[0],), tuple(points), tuple(cards), reason, ranks)]
    if state.status == "live" and state.seat == seat:
        player = state.players[seat]
        return _end_turn(state, player, [], player.points, out=seat)
    return []


def idle_end(state: ClassicState, humans: list[int]) -> list[ClassicEvent]:
    """The end of a game its human seats in play (``humans``) left idle for a day
    (``events.leaving.IdleEnd``): the bots in play win and rank by the usual order
    (points, then fewest cards), the humans going out below them."""
    points = tuple(p.points for p in state.players)
    cards = tuple(len(p.cards) for p in state.players)
    gone = set(humans)
    bots = [s for s in leaving.in_play(state) if s not in gone]
    ranks = standing(state, points, cards, humans)
    return [GameEnded(winners(list(points), list(cards), bots), points, cards, "abandon", ranks)]


def expire(state: ClassicState, facts: Facts) -> list[ClassicEvent]:
    """The events the passing of time causes now (``events.leaving.expire``)."""
    return leaving.expire(state, facts, seat_out, idle_end)


# ------------------------------------------------------------------ legal actions


def legal_actions(state: ClassicState, seat: int) -> list[ClassicAction]:
    """Every action ``seat`` may take now; empty when it is not that seat's move."""
    if not to_move(state, seat):
        return []
    player = state.players[seat]
    current = phase(state)
    if current == "return_tokens":
        return list(_return_options(tuple(player.tokens), tokens_over(player)))
    if current == "choose_noble":
        return [ChooseNoble(n) for n in eligible_nobles(state, player.bonuses)]
    actions = _main_actions(state, player)
    return actions if actions else [_PASS]


def _main_actions(state: ClassicState, player: PlayerState) -> list[ClassicAction]:
    actions: list[ClassicAction] = list(_takes(tuple(state.bank)))
    can_reserve = reserve_allowed(player)
    on_board = [card_id for row in state.board for card_id in row if card_id is not None]
    reserved = [reservation.card for reservation in player.reserved]
    actions.extend(map(_BUY.__getitem__, affordable(player, on_board + reserved)))
    if can_reserve:
        actions.extend(map(_RESERVE_CARD.__getitem__, on_board))
        decks = state.decks
        actions.extend(_RESERVE_BLINDS[bool(decks[0]), bool(decks[1]), bool(decks[2])])
    return actions


@lru_cache(maxsize=4096)
def _takes(bank: tuple[int, ...]) -> tuple[ClassicAction, ...]:
    """The take_three and take_two actions a bank allows (memoized: banks recur, and
    every event of a turn but the take leaves the bank as it was)."""
    three = _TAKE_THREE_BY_LEFT[tuple(i for i in range(5) if bank[i])]
    return (*three, *(_TAKE_TWO[i] for i in range(5) if take_two_allowed(bank[i])))


@lru_cache(maxsize=4096)
def _return_options(tokens: tuple[int, ...], count: int) -> tuple[ReturnTokens, ...]:
    """Every way to give back exactly ``count`` of the tokens held (memoized: the same
    holdings recur often, and the actions are frozen values)."""
    return tuple(ReturnTokens(way) for way in ways_to_give_back(tokens, count, _TOKEN_NAMES))
