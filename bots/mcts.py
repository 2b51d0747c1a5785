"""The classic MCTS bot: single-observer information-set Monte Carlo tree search
(``ismcts.py``) over classic Splendor.

Each iteration determinizes: it deals the cards the seat can't see (decks,
opponents' blind reserves) at random from the unseen pool, giving a full state
consistent with the view (``determinize.py``); card draws during the simulation come
from the same random source, so each iteration also guesses the deck order afresh.
The root's actions are ranked by the greedy heuristic, the tree's below by the cheap
policy (``policy.py``), which also plays the rollouts; a position cut off by the depth
cap is scored by ``policy.evaluate``.

It plays the root action with the most visits. It reads nothing but its view.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any, Final

from bots import greedy, policy
from bots.budget import Budget, Clock
from bots.determinize import Determinizer
from bots.ismcts import Search
from bots.moves import moves
from bots.table import from_view, parse_legal
from events.classic import rules
from events.classic.actions import ClassicAction, ReturnTokens
from events.classic.evolve import evolve
from events.classic.state import ClassicState

DEPTH: Final = 8  # plies simulated from the root, tree and rollout together
EPSILON: Final = 0.1  # a rollout's chance to play a random legal action


def action_key(action: ClassicAction) -> Hashable:
    """A hashable name for an action (a token return holds a dict)."""
    if isinstance(action, ReturnTokens):
        return ("return_tokens", tuple(sorted(action.tokens.items())))
    return action


class Classic:
    """Classic Splendor as the search sees it (``ismcts.Game``)."""

    def seat(self, state: ClassicState) -> int:
        return state.seat

    def over(self, state: ClassicState) -> bool:
        return state.result is not None

    def apply(self, state: ClassicState, action: ClassicAction, rng: random.Random) -> None:
        for event in rules.decide(state, state.seat, action, rng):
            evolve(state, event)

    def ranked(self, state: ClassicState) -> list[ClassicAction]:
        actions = rules.legal_actions(state, state.seat)
        if len(actions) > 1:
            scores = policy.scores(state, actions)
            order = sorted(range(len(actions)), key=lambda i: -scores[i])
            actions = [actions[i] for i in order]
        return actions

    def first(self, state: ClassicState, rng: random.Random) -> ClassicAction | None:
        return policy.rollout_action(state, rng)

    def rollout(self, state: ClassicState, rng: random.Random) -> ClassicAction:
        if rng.random() >= EPSILON:
            action = policy.rollout_action(state, rng)
            if action is not None:
                return action
        actions = rules.legal_actions(state, state.seat)
        if len(actions) == 1 or rng.random() < EPSILON:
            return rng.choice(actions)
        scores = policy.scores(state, actions)
        return actions[max(range(len(actions)), key=scores.__getitem__)]

    def evaluate(self, state: ClassicState) -> Sequence[float]:
        return policy.evaluate(state)

    def key(self, action: ClassicAction) -> Hashable:
        return action_key(action)


CLASSIC: Final = Classic()


def search(
    view: dict[str, Any],
    rng: random.Random,
    *,
    seconds: float | None = None,
    iterations: int | None = None,
    clock: Clock | None = None,
    depth: int = DEPTH,
) -> tuple[int, int]:
    """The index in ``view["legal"]`` of the action to play, and the iterations run.

    Stops after ``iterations`` or ``seconds`` by the caller's ``clock``, whichever
    comes first (``bots.budget``). Without ``seconds`` the answer depends only on the
    view and ``rng``.
    """
    legal = moves(view)
    if not legal:
        raise ValueError("it is not this seat's move: the view lists no legal action")
    if len(legal) == 1:
        return 0, 0
    actions = parse_legal(legal)
    prior = greedy.Judge(from_view(view)).scores(actions)
    root_order = sorted(range(len(actions)), key=lambda i: -prior[i])
    tree = Search(CLASSIC, view["you"], [actions[i] for i in root_order])
    budget = Budget(seconds=seconds, iterations=iterations, clock=clock)
    done = tree.run(Determinizer(view).sample, rng, budget, depth)
    return root_order[tree.best()], done


def choose(
    view: dict[str, Any],
    rng: random.Random | None = None,
    *,
    seconds: float | None = None,
    iterations: int | None = None,
    clock: Clock | None = None,
    depth: int = DEPTH,
) -> dict[str, Any]:
    """One of ``view["legal"]``: the most visited action after a search."""
    index, _ = search(
        view,
        rng or random.Random(),
        seconds=seconds,
        iterations=iterations,
        clock=clock,
        depth=depth,
    )
    action: dict[str, Any] = moves(view)[index]
    return action
