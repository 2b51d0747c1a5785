"""Abilities, resolved when the card is acquired: extra turn, take a token of the
card's colour, privilege, steal; crowns and royal cards at 3 and 6, with theirs.

FULL_BOARD, row 0 at the top:
    w b g r k
    y w b g r
    k p y p k
    r g b w y
    k r g b w
"""

from __future__ import annotations

from events.duel.actions import Buy, ChooseRoyal, StealToken, TakeBonusToken, TakeTokens
from events.duel.checks import phase
from events.duel.events import (
    AbilityIgnored,
    BonusTokenTaken,
    PrivilegeTaken,
    RoyalTaken,
    TokenStolen,
    TurnEnded,
)
from events.duel.legal import legal_actions
from events.duel.state import DuelState
from events.duel.view import view
from tests.duel_helpers import Table, kinds, play, refused

ONE_WHITE = """
. b g r k
y . b g r
k p y p k
r g b . y
k r g b w
"""

NO_WHITE = """
. b g r k
y . b g r
k p y p k
r g b . y
k r g b .
"""


def test_extra_turn() -> None:
    """d1-02: after this turn the same player plays another."""
    state = Table().give(0, blue=2, green=2, pearl=1).state()
    events = play(state, 0, Buy("d1-02"))
    assert events[-1] == TurnEnded(0, 0)
    assert state.seat == 0 and state.turn_number == 3 and phase(state) == "main"
    assert view(state, 0)["legal"] and view(state, 1)["legal"] == []


def _end_turn(state: DuelState) -> None:
    """The mover plays its first legal actions until its turn ends."""
    seat = state.seat
    for _ in range(10):
        if any(isinstance(e, TurnEnded) for e in play(state, seat, legal_actions(state, seat)[0])):
            return
    raise AssertionError("the turn did not end")


def test_an_extra_turn_counts_in_the_round_it_came_from() -> None:
    """The view's turn.round is the mover's count of turns begun, an extra turn left out (the lobby and the table's head show it); turn.number counts every turn."""
    state = Table().give(0, blue=2, green=2, pearl=1).state()
    start = view(state, None)["turn"]
    play(state, 0, Buy("d1-02"))  # its extra turn begins
    extra = view(state, None)["turn"]
    assert (extra["seat"], extra["number"], extra["round"]) == (
        0,
        start["number"] + 1,
        start["round"],
    )
    _end_turn(state)
    _end_turn(state)  # the opponent's turn
    after = view(state, None)["turn"]
    assert (after["seat"], after["number"], after["round"]) == (
        0,
        start["number"] + 3,
        start["round"] + 1,
    )


def test_take_a_token_of_the_cards_colour_by_choice() -> None:
    """d1-03 (white): with several white tokens on the board, the player picks one."""
    state = Table().give(0, red=2, black=2).state()
    events = play(state, 0, Buy("d1-03"))
    assert kinds(events) == ["CardBought", "CardDealt"]
    assert phase(state) == "take_bonus_token"
    assert view(state, 0)["turn"]["phase"] == "take_bonus_token"
    assert legal_actions(state, 0) == [
        TakeBonusToken((0, 0)),
        TakeBonusToken((1, 1)),
        TakeBonusToken((3, 3)),
        TakeBonusToken((4, 4)),
    ]
    problem = refused(state, 0, TakeBonusToken((0, 1)))
    assert problem.message == "Cell [0, 1] holds no white token: your card takes a white one."
    assert "choose which one first" in refused(state, 0, TakeTokens(((0, 1),))).message
    events = play(state, 0, TakeBonusToken((3, 3)))
    assert events == [BonusTokenTaken(0, (3, 3), "white"), TurnEnded(0, 1)]
    assert state.players[0].tokens[0] == 1


def test_take_a_token_with_a_single_choice_is_automatic() -> None:
    """One white token on the board: it is taken without asking."""
    table = Table(ONE_WHITE).give(0, red=2, black=2)
    state = table.state()
    events = play(state, 0, Buy("d1-03"))
    assert events[-2:] == [BonusTokenTaken(0, (4, 4), "white"), TurnEnded(0, 1)]


def test_take_a_token_with_none_on_the_board_is_ignored() -> None:
    """No white token on the board: the ability is ignored, as the rulebook says."""
    state = Table(NO_WHITE).give(0, red=2, black=2).state()
    events = play(state, 0, Buy("d1-03"))
    assert events[-2:] == [AbilityIgnored(0, "take_token"), TurnEnded(0, 1)]


def test_privilege_ability_from_the_supply() -> None:
    """d2-03: the buyer takes a privilege from the supply."""
    state = Table().give(0, white=4, black=2, pearl=1).state()
    events = play(state, 0, Buy("d2-03"))
    assert PrivilegeTaken(0, "ability") in events
    assert state.players[0].privileges == 1 and state.privileges == 1


def test_privilege_ability_from_the_opponent_when_the_supply_is_empty() -> None:
    """Supply empty: the privilege comes from the opponent."""
    state = Table().privilege(1, 2).give(0, white=4, black=2, pearl=1).state()
    events = play(state, 0, Buy("d2-03"))
    assert PrivilegeTaken(0, "ability", 1) in events
    assert state.players[1].privileges == 2


def test_privilege_ability_with_all_three_held_is_ignored() -> None:
    """A player holding the 3 privileges gets nothing more."""
    state = Table().privilege(0, 3).give(0, white=4, black=2, pearl=1).state()
    assert state.players[0].privileges == 3
    events = play(state, 0, Buy("d2-03"))
    assert AbilityIgnored(0, "take_privilege") in events


def test_steal_a_token_by_choice() -> None:
    """d2-02: the buyer takes one gem or pearl token of his choice from the opponent."""
    state = Table().give(0, blue=4, red=3).give(1, red=1, green=1, gold=1).state()
    play(state, 0, Buy("d2-02"))
    assert phase(state) == "steal_token"
    assert legal_actions(state, 0) == [StealToken("green"), StealToken("red")]
    assert (
        refused(state, 0, StealToken("gold")).message
        == "Gold can't be stolen: take a gem or a pearl."
    )
    assert refused(state, 0, StealToken("black")).message == "Bo holds no black token."
    events = play(state, 0, StealToken("green"))
    assert events == [TokenStolen(0, 1, "green"), TurnEnded(0, 1)]
    assert state.players[0].tokens[2] == 1 and state.players[1].tokens[2] == 0


def test_steal_with_one_kind_is_automatic_and_gold_is_never_stolen() -> None:
    """The opponent holds gold and one red: the red is taken without asking."""
    state = Table().give(0, blue=4, red=3).give(1, red=1, gold=2).state()
    events = play(state, 0, Buy("d2-02"))
    assert events[-2:] == [TokenStolen(0, 1, "red"), TurnEnded(0, 1)]


def test_steal_with_nothing_to_steal_is_ignored() -> None:
    """The opponent holds only gold: the ability is ignored."""
    state = Table().give(0, blue=4, red=3).give(1, gold=1).state()
    events = play(state, 0, Buy("d2-02"))
    assert AbilityIgnored(0, "steal_token") in events


def test_third_crown_brings_a_royal_card_of_the_players_choice() -> None:
    """Reaching 3 crowns: the player chooses one of the 4 royals."""
    state = Table().own(0, "d3-05").give(0, blue=3).state()  # 2 crowns
    play(state, 0, Buy("d1-04"))  # the 3rd crown
    assert state.players[0].crowns == 3 and phase(state) == "choose_royal"
    assert legal_actions(state, 0) == [ChooseRoyal(r) for r in ("r1", "r2", "r3", "r4")]
    assert "not available" in refused(state, 0, ChooseRoyal("r9")).message
    events = play(state, 0, ChooseRoyal("r1"))
    assert events == [RoyalTaken(0, "r1"), TurnEnded(0, 1)]
    assert state.players[0].points == 3 + 0 + 3 and state.royals == ["r2", "r3", "r4"]


def test_sixth_crown_brings_another_royal() -> None:
    """Reaching 6 crowns brings a second royal."""
    state = Table().own(0, "d3-05", "d3-07", "d2-04").give(0, blue=3).state()  # 5 crowns
    play(state, 0, Buy("d1-04"))
    assert state.players[0].crowns == 6 and phase(state) == "choose_royal"


def test_crowns_between_thresholds_bring_nothing() -> None:
    """From 3 to 5 crowns no royal comes."""
    state = Table().own(0, "d3-05", "d2-04").give(0, blue=3).state()  # 3 crowns
    events = play(state, 0, Buy("d1-04"))  # 4
    assert kinds(events) == ["CardBought", "CardDealt", "TurnEnded"]


def test_the_last_royal_is_taken_without_asking() -> None:
    """One royal left: no choice to make."""
    state = Table(royals=("r1",)).own(0, "d3-05").give(0, blue=3).state()
    events = play(state, 0, Buy("d1-04"))
    assert events[-2:] == [RoyalTaken(0, "r1"), TurnEnded(0, 1)]


def test_royal_extra_turn() -> None:
    """r2 gives an extra turn."""
    state = Table().own(0, "d3-05").give(0, blue=3).state()
    play(state, 0, Buy("d1-04"))
    events = play(state, 0, ChooseRoyal("r2"))
    assert events == [RoyalTaken(0, "r2"), TurnEnded(0, 0)]


def test_royal_privilege() -> None:
    """r3 gives a privilege by the privilege rule."""
    state = Table().own(0, "d3-05").give(0, blue=3).state()
    play(state, 0, Buy("d1-04"))
    events = play(state, 0, ChooseRoyal("r3"))
    assert events == [RoyalTaken(0, "r3"), PrivilegeTaken(0, "ability"), TurnEnded(0, 1)]


def test_royal_steal() -> None:
    """r4 steals a token from the opponent, by choice when he holds several kinds."""
    state = Table().own(0, "d3-05").give(0, blue=3).give(1, red=1, pearl=1).state()
    play(state, 0, Buy("d1-04"))
    assert play(state, 0, ChooseRoyal("r4")) == [RoyalTaken(0, "r4")]
    assert phase(state) == "steal_token"
    assert play(state, 0, StealToken("pearl")) == [TokenStolen(0, 1, "pearl"), TurnEnded(0, 1)]
