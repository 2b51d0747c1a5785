"""The 5x5 token board: cells, the spiral tokens are laid along, and the straight
lines a take may use.

A cell is ``(row, col)`` on the wire, row 0 at the top (``data/duel_spiral.csv``);
internally it is the index ``5 * row + col``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from events.catalog import duel_spiral
from events.duel.constants import MAX_TAKE

SIZE: Final = 5
CELLS: Final = SIZE * SIZE

Cell = tuple[int, int]

SPIRAL: Final = duel_spiral()

# Down-right steps that make a straight line: along a row, down a column, and the two
# diagonals. Every line is written from its top (then leftmost) cell.
_DIRECTIONS: Final = ((0, 1), (1, 0), (1, 1), (1, -1))


def index(cell: Cell) -> int:
    return cell[0] * SIZE + cell[1]


def cell_of(i: int) -> Cell:
    return (i // SIZE, i % SIZE)


def on_board(cell: Sequence[int]) -> bool:
    return len(cell) == 2 and 0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE


def _lines() -> tuple[tuple[int, ...], ...]:
    """Every run of 1 to 3 adjacent cells in one straight line, each once."""
    out: list[tuple[int, ...]] = [(i,) for i in range(CELLS)]
    for length in range(2, MAX_TAKE + 1):
        for row in range(SIZE):
            for col in range(SIZE):
                for dr, dc in _DIRECTIONS:
                    cells = [(row + k * dr, col + k * dc) for k in range(length)]
                    if all(on_board(c) for c in cells):
                        out.append(tuple(index(c) for c in cells))
    return tuple(out)


LINES: Final = _lines()


def line_gap(cells: Sequence[Cell]) -> tuple[Literal["not_a_line", "gap"], Cell | None] | None:
    """Why distinct on-board ``cells`` are not one unbroken straight line, or None:
    ``not_a_line``, or a ``gap`` and the first cell between them that was left out."""
    if len(cells) <= 1:
        return None
    ordered = sorted(cells)
    (r0, c0), (r1, c1) = ordered[0], ordered[-1]
    dr, dc = r1 - r0, c1 - c0
    if not (dr == 0 or dc == 0 or abs(dr) == abs(dc)):
        return ("not_a_line", None)
    span = max(abs(dr), abs(dc))
    step = (_sign(dr), _sign(dc))
    between = [(r0 + k * step[0], c0 + k * step[1]) for k in range(span + 1)]
    if any(c not in between for c in ordered):
        return ("not_a_line", None)
    missing = [c for c in between if c not in ordered]
    if missing:
        return ("gap", missing[0])
    return None


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)
