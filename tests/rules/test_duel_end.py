"""The end of a turn: discarding down to 10 into the bag, then the three victory
conditions of the player whose turn ends; and what a finished game refuses."""

from __future__ import annotations

from events.base import GameCreated
from events.duel.actions import Buy, ChooseRoyal, DiscardTokens, TakeTokens
from events.duel.checks import phase
from events.duel.events import GameEnded, TokensDiscarded, TurnEnded
from events.duel.evolve import fold
from events.duel.legal import legal_actions
from events.duel.view import view
from tests.duel_helpers import Table, kinds, play, refused

WILDS = (
    ("d1-20", "d1-27", "d1-28", "d1-29", "d1-30"),
    ("d2-01", "d2-02", "d2-03", "d2-04"),
    ("d3-01", "d3-02", "d3-03"),
)


def test_more_than_ten_tokens_are_discarded_into_the_bag() -> None:
    """12 tokens after a take: the player puts 2 back into the bag before the turn ends."""
    state = Table().give(0, white=3, blue=3, green=3).state()
    events = play(state, 0, TakeTokens(((0, 4), (1, 4), (2, 4))))  # black, red, black
    assert kinds(events) == ["TokensTaken"]
    assert phase(state) == "discard_tokens" and sum(state.players[0].tokens) == 12
    options = legal_actions(state, 0)
    assert DiscardTokens({"white": 2}) in options and DiscardTokens({"pearl": 1}) not in options
    assert all(sum(o.tokens.values()) == 2 for o in options)  # type: ignore[union-attr]
    problem = refused(state, 0, DiscardTokens({"white": 1}))
    assert problem.message == "You hold 12 tokens: discard exactly 2 to keep 10, not 1."
    assert "hold only 0" in refused(state, 0, DiscardTokens({"gold": 2})).message
    assert "put 2 back into the bag" in refused(state, 0, TakeTokens(((0, 0),))).message
    events = play(state, 0, DiscardTokens({"white": 1, "black": 1}))
    assert events == [TokensDiscarded(0, {"white": 1, "black": 1}), TurnEnded(0, 1)]
    assert state.bag == [1, 0, 0, 0, 1, 0, 0] and sum(state.players[0].tokens) == 10


def test_discard_only_above_ten() -> None:
    """discard_tokens is refused when nothing is to be discarded."""
    problem = refused(Table().state(), 0, DiscardTokens({"white": 1}))
    assert "more than 10" in problem.message


def test_twenty_prestige_wins() -> None:
    """19 prestige, then a 1-point card: the game ends, won on prestige."""
    state = Table().own(0, "d3-13", "d2-24", "d3-02", "d3-04").give(0, green=2, red=3).state()
    assert state.players[0].points == 19
    events = play(state, 0, Buy("d1-05"))
    assert events[-2:] == [TurnEnded(0, 1), GameEnded((0,), "prestige", (1, 2))]
    assert state.status == "finished"
    assert view(state, None)["result"] == {"winners": [0], "reason": "prestige", "ranks": [1, 2]}


def test_royal_prestige_counts() -> None:
    """18 prestige and a 3rd crown: the 3-point royal brings the win once chosen."""
    state = Table().own(0, "d3-05", "d3-13", "d2-24", "d3-02").give(0, blue=3).state()
    events = play(state, 0, Buy("d1-04"))
    assert "GameEnded" not in kinds(events)  # the royal is chosen first
    events = play(state, 0, ChooseRoyal("r1"))
    assert events[-1] == GameEnded((0,), "prestige", (1, 2)) and state.players[0].points == 21


def test_ten_crowns_win() -> None:
    """9 crowns, then a crown card: won on crowns."""
    state = Table().own(0, "d3-01", "d3-03", "d3-05", "d3-07", "d2-04").give(0, blue=3).state()
    assert state.players[0].crowns == 9 and state.players[0].points < 20
    events = play(state, 0, Buy("d1-04"))
    assert events[-1] == GameEnded((0,), "crowns", (1, 2))


def test_ten_prestige_in_one_colour_wins() -> None:
    """9 red prestige, then a 1-point red card: won on a single colour."""
    state = Table(pyramid=WILDS).own(0, "d3-08", "d3-07", "d2-15").give(0, white=2, blue=3)
    state = state.state()
    assert state.players[0].colour_points[3] == 9
    events = play(state, 0, Buy("d1-20"))
    assert events[-1] == GameEnded((0,), "colour", (1, 2))


def test_a_wild_card_counts_as_the_colour_it_was_placed_on() -> None:
    """9 red prestige, then the 1-point wild card placed on a red card: won on colour."""
    state = Table(pyramid=WILDS).own(0, "d3-08", "d3-07", "d2-15").give(0, black=4, pearl=1)
    state = state.state()
    events = play(state, 0, Buy("d1-27", wild_on="d3-08"))
    assert events[-1] == GameEnded((0,), "colour", (1, 2))


def test_prestige_spread_over_colours_does_not_win() -> None:
    """10 prestige over several colours is not a colour victory."""
    state = Table().own(0, "d3-02", "d3-04").give(0, green=2, red=3).state()  # 4 white, 4 blue
    events = play(state, 0, Buy("d1-05"))  # 1 white: 9 total, 5 white
    assert "GameEnded" not in kinds(events)


def test_only_the_player_whose_turn_ends_is_checked() -> None:
    """The opponent's conditions are checked at the end of his own turn, not now."""
    state = Table().own(1, "d3-13", "d2-24", "d3-02", "d3-04", "d3-06").state(mover=0)
    assert state.players[1].points >= 20
    events = play(state, 0, TakeTokens(((0, 0),)))
    assert kinds(events) == ["TokensTaken", "TurnEnded"]


def test_a_finished_game_refuses_every_action() -> None:
    """After the end: game_over, and nobody has a legal action."""
    state = Table().own(0, "d3-13", "d2-24", "d3-02", "d3-04").give(0, green=2, red=3).state()
    play(state, 0, Buy("d1-05"))
    problem = refused(state, 1, TakeTokens(((0, 0),)))
    assert problem.code == "game_over"
    assert legal_actions(state, 0) == [] and legal_actions(state, 1) == []
    assert view(state, 1)["legal"] == [] and view(state, 1)["turn"]["phase"] is None


def test_not_your_turn() -> None:
    """The seat not on turn gets not_your_turn."""
    problem = refused(Table().state(), 1, TakeTokens(((0, 0),)))
    assert problem.code == "not_your_turn"
    assert problem.message == "It is Ana's turn, not yours."


def test_an_open_game_refuses_actions() -> None:
    """Before both seats are filled nothing can be played."""
    state = fold([GameCreated("g", "duel", 2)])
    problem = refused(state, 0, TakeTokens(((0, 0),)))
    assert problem.message == "The game has not started: it is waiting for players."
