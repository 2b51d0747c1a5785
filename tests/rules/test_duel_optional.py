"""The optional actions: use privileges, then replenish the board; and the forced
replenish when no mandatory action is possible.

FULL_BOARD, row 0 at the top:
    w b g r k
    y w b g r
    k p y p k
    r g b w y
    k r g b w
"""

from __future__ import annotations

from events.catalog import duel_spiral
from events.duel.actions import Replenish, TakeTokens, UsePrivileges
from events.duel.checks import phase
from events.duel.events import BoardReplenished, PrivilegesUsed, PrivilegeTaken
from events.duel.legal import legal_actions
from events.duel.view import view
from tests.duel_helpers import EMPTY_BOARD, Table, at, kinds, play, refused

HALF_BOARD = """
w b g r k
y w b g r
k p y . .
. . . . .
. . . . .
"""


def test_a_privilege_takes_any_gem_or_pearl_token() -> None:
    """Using a privilege returns it to the supply and takes a token anywhere on the board."""
    state = Table().state(mover=1)  # Bo holds the second player's privilege
    events = play(state, 1, UsePrivileges(((4, 4),)))
    assert events == [PrivilegesUsed(1, ((4, 4),), ("white",))]
    assert state.players[1].privileges == 0 and state.privileges == 3
    assert state.players[1].tokens[0] == 1 and at(state, 4, 4) is None
    assert phase(state) == "main" and state.seat == 1  # the mandatory action still to come


def test_several_privileges_take_scattered_tokens() -> None:
    """Each privilege takes one token; they need not be adjacent."""
    state = Table().privilege(1, 2).state(mover=1)
    play(state, 1, UsePrivileges(((0, 0), (4, 4), (2, 1))))
    assert state.players[1].privileges == 0
    assert state.players[1].tokens == [2, 0, 0, 0, 0, 0, 1]


def test_privileges_may_be_used_one_at_a_time() -> None:
    """Privileges used one by one before the mandatory action are the same optional action."""
    state = Table().privilege(1, 1).state(mover=1)
    play(state, 1, UsePrivileges(((0, 0),)))
    play(state, 1, UsePrivileges(((0, 1),)))
    assert state.players[1].privileges == 0 and state.players[1].tokens[:2] == [1, 1]


def test_a_privilege_never_takes_gold() -> None:
    """Gold can't be taken with a privilege."""
    problem = refused(Table().state(mover=1), 1, UsePrivileges(((1, 0),)))
    assert "holds gold, which a privilege can't take" in problem.message


def test_no_more_cells_than_privileges() -> None:
    """One token per privilege held."""
    problem = refused(Table().state(mover=1), 1, UsePrivileges(((0, 0), (0, 1))))
    assert "You hold 1 privilege: you can take at most 1 token" in problem.message
    problem = refused(Table().state(mover=0), 0, UsePrivileges(((0, 0),)))
    assert problem.message == "You hold no privilege."


def test_privileges_come_before_the_replenish() -> None:
    """Once the board is replenished, privileges can't be used this turn."""
    state = Table(HALF_BOARD).state(mover=1)
    play(state, 1, Replenish())
    problem = refused(state, 1, UsePrivileges(((0, 0),)))
    assert problem.message == "Privileges are used before replenishing the board, not after."


def test_replenish_lays_the_bag_along_the_spiral_and_gives_a_privilege() -> None:
    """Bag tokens fill the empty cells in spiral order; the opponent takes a privilege."""
    state = Table(HALF_BOARD).state(mover=0)
    in_bag = sum(state.bag)
    empty = [cell for cell in duel_spiral() if state.board[cell] is None]
    events = play(state, 0, Replenish(), seed=7)
    assert kinds(events) == ["BoardReplenished", "PrivilegeTaken"]
    placed = events[0].placed  # type: ignore[union-attr]
    assert [5 * p.cell[0] + p.cell[1] for p in placed] == empty[:in_bag]
    assert events[0].forced is False  # type: ignore[union-attr]
    assert events[1] == PrivilegeTaken(1, "replenish")
    assert state.bag == [0] * 7 and None not in state.board
    assert phase(state) == "main" and state.seat == 0


def test_replenish_needs_tokens_in_the_bag() -> None:
    """With an empty bag there is nothing to replenish with."""
    problem = refused(Table().state(), 0, Replenish())
    assert problem.message == "The bag is empty: there is nothing to replenish the board with."
    assert Replenish() not in legal_actions(Table().state(), 0)


def test_replenish_into_a_board_with_more_holes_than_tokens() -> None:
    """Every bag token is laid; cells beyond the last one stay empty."""
    table = Table(HALF_BOARD).give(1, white=2, blue=2)  # 4 bag tokens to Bo
    state = table.state(mover=0)
    play(state, 0, Replenish())
    assert state.bag == [0] * 7
    assert state.board.count(None) == 4


def test_forced_replenish_when_no_mandatory_action_is_possible() -> None:
    """No token on the board and nothing affordable: the only action is to replenish."""
    state = Table(EMPTY_BOARD).state()
    assert phase(state) == "replenish"
    assert legal_actions(state, 0) == [Replenish()]
    assert view(state, 0)["turn"]["phase"] == "replenish"
    problem = refused(state, 0, TakeTokens(((2, 2),)))
    assert "you must replenish the board first" in problem.message
    events = play(state, 0, Replenish())
    assert isinstance(events[0], BoardReplenished) and events[0].forced
    assert len(events[0].placed) == 25
    assert events[1] == PrivilegeTaken(1, "replenish")
    assert phase(state) == "main" and any(
        isinstance(a, TakeTokens) for a in legal_actions(state, 0)
    )


NO_PYRAMID = ((None,) * 5, (None,) * 4, (None,) * 3)
RESERVES = ("d3-11", "d3-12", "d3-13")  # 8 black, 8 red, 8 white: out of reach below


def _three_reserves(table: Table, golds: tuple[tuple[int, int], ...]) -> Table:
    """Ana reserves RESERVES with the board's gold, which then goes back on ``golds``."""
    for card in RESERVES:
        table.reserve(0, card)
    return table.discard(0, gold=3).lay(*((cell, "gold") for cell in golds))


def test_forced_replenish_with_only_gold_and_three_reserves() -> None:
    """Gold alone on the board and 3 reserved cards: no take, no reserve, no buy."""
    golds = ((0, 0), (2, 2), (4, 4))
    board = """
    y . . . .
    . . . . .
    . . y . .
    . . . . .
    . . . . y
    """
    state = _three_reserves(Table(board, pyramid=NO_PYRAMID), golds).state(mover=0)
    assert state.players[0].reserved == list(RESERVES) and state.board.count("gold") == 3
    assert phase(state) == "replenish"
    assert legal_actions(state, 0) == [Replenish()]


def _stuck() -> Table:
    """Ana: 3 reserves out of reach, 10 tokens, 2 privileges; Bo: 10 tokens; the board:
    a red and a blue among 3 gold; the bag empty."""
    board = """
    r . y . .
    . . . . .
    . . y . .
    . . . . .
    y . . . b
    """
    table = _three_reserves(Table(board, pyramid=NO_PYRAMID), ((0, 2), (2, 2), (4, 0)))
    table.give(0, white=4, green=4, pearl=2).give(1, red=3, blue=3, black=4)
    return table.privilege(0, 2)


def test_privileges_may_not_leave_no_mandatory_action() -> None:
    """Taking the last gems with privileges, with 3 reserves out of reach and an empty bag, would leave no mandatory action: refused. Taking fewer is fine."""
    state = _stuck().state(mover=0)
    assert state.bag == [0] * 7 and state.players[0].privileges == 2
    problem = refused(state, 0, UsePrivileges(((0, 0), (4, 4))))
    assert "would leave you no mandatory action" in problem.message
    uses = [a for a in legal_actions(state, 0) if isinstance(a, UsePrivileges)]
    assert uses == [UsePrivileges(((0, 0),)), UsePrivileges(((4, 4),))]
    play(state, 0, UsePrivileges(((0, 0),)))
    assert phase(state) == "main"


def test_optional_actions_come_before_the_mandatory_one() -> None:
    """After the mandatory action (here, waiting for a discard) neither optional action is allowed."""
    state = Table().give(0, white=3, blue=3, green=3).privilege(0).state()
    play(state, 0, TakeTokens(((0, 4), (1, 4), (2, 4))))
    assert phase(state) == "discard_tokens"
    problem = refused(state, 0, UsePrivileges(((4, 0),)))
    assert (
        problem.message
        == "Privileges are used at the start of a turn, before its mandatory action."
    )
    problem = refused(state, 0, Replenish())
    assert problem.message.startswith("The board is replenished at the start of a turn")
