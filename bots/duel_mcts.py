"""The Duel MCTS bot: single-observer information-set Monte Carlo tree search
(``ismcts.py``, as the classic bot) over Splendor Duel.

Each iteration determinizes (``duel_determinize.py``): the opponent's hidden reserves
are dealt from the unseen pool of their level, the rest of the pool is the decks; the
decks' order and the bag's draws come from the iteration's random source when the
engine deals a card or lays tokens, so each iteration guesses them afresh.

The root's actions are ranked by Duel greedy (``duel_greedy.weigh``: the mandatory
actions, and the one use of privileges greedy would consider); below the root every
seat plays as greedy scores the engine's actions in the determinization
(``duel_policy``), the tree offering them best first, the rollouts playing the best
(or, one time in ten, any); a position cut off by the depth cap is scored by
``duel_policy.evaluate``. It plays the root action with the most visits (``bots.choose``
answers ``moves(view)[search(...)[0]]``). It reads nothing but its view.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any, Final

from bots import duel_greedy, duel_policy
from bots.budget import Budget, Clock
from bots.duel_arena import to_action
from bots.duel_determinize import DuelDeterminizer
from bots.ismcts import Search
from bots.moves import moves
from events.duel.actions import DiscardTokens, DuelAction
from events.duel.evolve import evolve
from events.duel.rules import decide
from events.duel.state import DuelState

DEPTH: Final = 4  # plies simulated from the root, tree and rollout together
EXPLORATION: Final = 0.7  # UCT's constant


def action_key(action: DuelAction) -> Hashable:
    """A hashable name for an action (a discard holds a dict)."""
    if isinstance(action, DiscardTokens):
        return ("discard_tokens", tuple(sorted(action.tokens.items())))
    return action


class Duel:
    """Splendor Duel as the search sees it (``ismcts.Game``)."""

    def seat(self, state: DuelState) -> int:
        return state.seat

    def over(self, state: DuelState) -> bool:
        return state.result is not None

    def apply(self, state: DuelState, action: DuelAction, rng: random.Random) -> None:
        for event in decide(state, state.seat, action, rng):
            evolve(state, event)

    def ranked(self, state: DuelState) -> list[DuelAction]:
        return duel_policy.ranked(state)

    def first(self, state: DuelState, rng: random.Random) -> DuelAction | None:
        return duel_policy.best(state)

    def rollout(self, state: DuelState, rng: random.Random) -> DuelAction:
        return duel_policy.rollout_action(state, rng)

    def evaluate(self, state: DuelState) -> Sequence[float]:
        return duel_policy.evaluate(state)

    def key(self, action: DuelAction) -> Hashable:
        return action_key(action)


DUEL: Final = Duel()


def root_order(view: dict[str, Any], legal: list[dict[str, Any]]) -> list[int]:
    """Indexes into ``legal`` of the actions the root offers, greedy's best first."""
    scored = duel_greedy.weigh(view, legal)
    if scored is None:  # a take_bonus_token (every cell the same colour), a forced replenish
        return [0]
    position = {id(action): i for i, action in enumerate(legal)}
    ranked = sorted(range(len(scored)), key=lambda k: -scored[k][0])
    return [position[id(scored[k][1])] for k in ranked]


def search(
    view: dict[str, Any],
    rng: random.Random,
    *,
    seconds: float | None = None,
    iterations: int | None = None,
    clock: Clock | None = None,
    depth: int = DEPTH,
    exploration: float = EXPLORATION,
) -> tuple[int, int]:
    """The index in ``moves(view)`` of the action to play, and the iterations run.

    Stops after ``iterations`` or ``seconds`` by the caller's ``clock``, whichever
    comes first (``bots.budget``). Without ``seconds`` the answer depends only on the
    view and ``rng``.
    """
    legal = moves(view)
    if not legal:
        raise ValueError("it is not this seat's move: the view lists no legal action")
    order = root_order(view, legal)
    if len(order) == 1:
        return order[0], 0
    tree = Search(DUEL, view["you"], [to_action(legal[i]) for i in order], exploration)
    budget = Budget(seconds=seconds, iterations=iterations, clock=clock)
    done = tree.run(DuelDeterminizer(view).sample, rng, budget, depth)
    return order[tree.best()], done
