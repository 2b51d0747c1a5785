"""take_tokens: 1-3 gem or pearl tokens in one unbroken straight line, and the
opponent's privilege for 3 of a colour or both pearls.

FULL_BOARD, row 0 at the top:
    w b g r k
    y w b g r
    k p y p k
    r g b w y
    k r g b w
"""

from __future__ import annotations

from events.duel.actions import TakeTokens
from events.duel.events import PrivilegeTaken, TokensTaken, TurnEnded
from events.duel.legal import legal_actions
from tests.duel_helpers import Table, at, kinds, play, refused

RED_ROW = """
r r r k .
y w b g .
k p p y k
. g b w y
k . g b w
"""


def test_take_three_in_a_row() -> None:
    """Three adjacent tokens of a row move to the player; the turn passes."""
    state = Table().state()
    events = play(state, 0, TakeTokens(((0, 0), (0, 1), (0, 2))))
    assert events == [
        TokensTaken(0, ((0, 0), (0, 1), (0, 2)), ("white", "blue", "green")),
        TurnEnded(0, 1),
    ]
    assert state.players[0].tokens == [1, 1, 1, 0, 0, 0, 0]
    assert at(state, 0, 0) is None and at(state, 0, 2) is None
    assert state.seat == 1


def test_take_a_column() -> None:
    """A column is a straight line: blue, white, pearl down column 1."""
    state = Table().state()
    events = play(state, 0, TakeTokens(((0, 1), (1, 1), (2, 1))))
    assert events[0] == TokensTaken(0, ((0, 1), (1, 1), (2, 1)), ("blue", "white", "pearl"))


def test_take_a_diagonal_either_way() -> None:
    """Both diagonals are straight lines, whatever order the cells are named in."""
    state = Table().state()
    events = play(state, 0, TakeTokens(((2, 3), (0, 1), (1, 2))))
    assert kinds(events) == ["TokensTaken", "TurnEnded"]
    state = Table().state()
    events = play(state, 0, TakeTokens(((0, 3), (1, 2), (2, 1))))
    assert events[0].tokens == ("red", "blue", "pearl")  # type: ignore[union-attr]


def test_take_one_or_two() -> None:
    """A player may take only 2 adjacent tokens, or 1."""
    state = Table().state()
    assert kinds(play(state, 0, TakeTokens(((4, 4),)))) == ["TokensTaken", "TurnEnded"]
    state = Table().state()
    assert kinds(play(state, 0, TakeTokens(((3, 0), (4, 1))))) == ["TokensTaken", "TurnEnded"]


def test_a_gap_is_refused() -> None:
    """Tokens with a token left out between them are not adjacent."""
    problem = refused(Table().state(), 0, TakeTokens(((0, 0), (0, 2))))
    assert problem.message == (
        "The tokens must be adjacent, with no gap: [0, 1] lies between them "
        "and holds a blue token you did not name."
    )


def test_an_empty_cell_between_is_a_gap() -> None:
    """An empty cell between two tokens breaks the line."""
    board = Table().give(1, blue=1).now()  # the blue at [0, 1] leaves the board
    assert at(board, 0, 1) is None
    table = Table().give(1, blue=1)
    problem = refused(table.state(), 0, TakeTokens(((0, 0), (0, 2))))
    assert "[0, 1] lies between them and is empty" in problem.message


def test_gold_in_the_middle_is_a_gap() -> None:
    """Gold breaks a line: it can't be skipped and can't be taken."""
    state = Table().state()
    problem = refused(state, 0, TakeTokens(((2, 1), (2, 3))))
    assert "[2, 2] lies between them and holds gold" in problem.message
    problem = refused(state, 0, TakeTokens(((2, 1), (2, 2), (2, 3))))
    assert problem.message.startswith("Cell [2, 2] holds gold")


def test_gold_is_never_taken() -> None:
    """take_tokens never takes gold, even alone."""
    problem = refused(Table().state(), 0, TakeTokens(((1, 0),)))
    assert "gold comes only with a reserve" in problem.message


def test_a_bent_line_is_refused() -> None:
    """Cells must lie in one row, column or diagonal."""
    state = Table().state()
    for cells in (((0, 0), (0, 1), (1, 1)), ((0, 0), (1, 2)), ((3, 0), (4, 2), (2, 1))):
        problem = refused(state, 0, TakeTokens(cells))
        assert "one row, column or diagonal" in problem.message


def test_more_than_three_or_none_is_refused() -> None:
    """A take is of 1, 2 or 3 tokens."""
    state = Table().state()
    problem = refused(state, 0, TakeTokens(((3, 0), (3, 1), (3, 2), (3, 3))))
    assert problem.message == "take_tokens takes 1 to 3 tokens, not 4."
    assert "not 0" in refused(state, 0, TakeTokens(())).message


def test_bad_cells_are_refused() -> None:
    """Cells off the board, named twice or empty are refused with the reason."""
    state = Table().give(1, blue=1).state()
    assert "off the board" in refused(state, 0, TakeTokens(((5, 0),))).message
    assert "named twice" in refused(state, 0, TakeTokens(((0, 0), (0, 0)))).message
    assert refused(state, 0, TakeTokens(((0, 1),))).message == "Cell [0, 1] is empty."


def test_three_of_a_colour_gives_the_opponent_a_privilege() -> None:
    """Taking 3 tokens of one colour gives the opponent a privilege from the supply."""
    state = Table(RED_ROW).state()
    events = play(state, 0, TakeTokens(((0, 0), (0, 1), (0, 2))))
    assert kinds(events) == ["TokensTaken", "PrivilegeTaken", "TurnEnded"]
    assert events[1] == PrivilegeTaken(1, "take")
    assert state.players[1].privileges == 2 and state.privileges == 1


def test_two_of_a_colour_gives_nothing() -> None:
    """Only 3 of one colour (or both pearls) gives a privilege."""
    state = Table(RED_ROW).state()
    assert kinds(play(state, 0, TakeTokens(((0, 1), (0, 2), (0, 3))))) == [
        "TokensTaken",
        "TurnEnded",
    ]


def test_both_pearls_give_the_opponent_a_privilege() -> None:
    """Taking both pearls in one take gives the opponent a privilege."""
    state = Table(RED_ROW).state()
    events = play(state, 0, TakeTokens(((2, 0), (2, 1), (2, 2))))
    assert events[0].tokens == ("black", "pearl", "pearl")  # type: ignore[union-attr]
    assert events[1] == PrivilegeTaken(1, "take")


def test_privilege_comes_from_the_opponent_when_the_supply_is_empty() -> None:
    """Supply empty: the privilege is taken from the player who took the tokens."""
    state = Table(RED_ROW).privilege(0, 2).state()
    assert state.privileges == 0 and state.players[0].privileges == 2
    events = play(state, 0, TakeTokens(((0, 0), (0, 1), (0, 2))))
    assert events[1] == PrivilegeTaken(1, "take", 0)
    assert state.players[0].privileges == 1 and state.players[1].privileges == 2


def test_nothing_happens_when_the_opponent_holds_all_three() -> None:
    """A player who already holds the 3 privileges gets nothing more."""
    state = Table(RED_ROW).privilege(1, 2).state()
    assert state.players[1].privileges == 3
    events = play(state, 0, TakeTokens(((0, 0), (0, 1), (0, 2))))
    assert kinds(events) == ["TokensTaken", "TurnEnded"]
    assert state.players[1].privileges == 3


def test_legal_takes_are_exactly_the_unbroken_lines() -> None:
    """legal_actions lists every straight run of 1-3 gem/pearl cells and nothing else."""
    state = Table().state()
    takes = {a.cells for a in legal_actions(state, 0) if isinstance(a, TakeTokens)}
    assert ((0, 0), (0, 1), (0, 2)) in takes
    assert ((0, 3), (1, 2), (2, 1)) in takes
    assert not any((1, 0) in cells or (2, 2) in cells or (3, 4) in cells for cells in takes)
    assert len(takes) == 22 + sum(1 for cells in takes if len(cells) > 1)
