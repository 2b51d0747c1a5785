"""The MCTS bot: single-observer information-set Monte Carlo tree search (SO-ISMCTS).

Each iteration:
1. determinizes: deals the cards the seat can't see (decks, opponents' blind
   reserves) at random from the unseen pool, giving a full state consistent with the
   view (``determinize.py``); card draws during the simulation come from the same
   random source, so each iteration also guesses the deck order afresh;
2. selects down one tree shared by all determinizations, with UCT over the actions
   legal in this determinization, counting a child's chances only when it was
   available (the ISMCTS "availability" count); every seat's moves are in the tree,
   each node scored for the seat who moved into it;
3. widens a node progressively: it offers its best-ranked actions first (the greedy
   heuristic's order at the root, the cheap policy's order below) and one more each
   time its visit count passes the next square, so a few hundred iterations go to
   the sensible moves instead of thirty untried ones;
4. plays the rest out with the cheap policy up to a depth cap, then scores the
   position (the game's result if it ended, else a static estimate of each seat's
   chance to win) and backs the scores up the path.

It plays the root action with the most visits. It reads nothing but its view.
"""

from __future__ import annotations

import math
import random
from typing import Any, Final

from bots import greedy, policy
from bots.budget import Budget, Clock
from bots.determinize import Determinizer
from bots.moves import moves
from bots.table import from_view, parse_legal
from events.classic import rules
from events.classic.actions import ClassicAction, ReturnTokens
from events.classic.evolve import evolve
from events.classic.state import ClassicState

DEPTH: Final = 8  # plies simulated from the root, tree and rollout together
EXPLORATION: Final = 0.7  # UCT's constant, for rewards in [0, 1]
EPSILON: Final = 0.1  # a rollout's chance to play a random legal action


def action_key(action: ClassicAction) -> object:
    """A hashable name for an action (a token return holds a dict)."""
    if isinstance(action, ReturnTokens):
        return ("return_tokens", tuple(sorted(action.tokens.items())))
    return action


class Node:
    """A node of the information-set tree: reached by ``action`` of ``seat``."""

    __slots__ = ("avail", "children", "seat", "value", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who moved into this node; its value is that seat's
        self.children: dict[object, Node] = {}
        self.visits = 0
        self.avail = 0
        self.value = 0.0


def _widen(visits: int) -> int:
    """How many of a node's best-ranked actions it offers after ``visits`` visits."""
    return 1 + math.isqrt(visits)


def _apply(state: ClassicState, action: ClassicAction, rng: random.Random) -> None:
    for event in rules.decide(state, state.seat, action, rng):
        evolve(state, event)


def _ranked(state: ClassicState) -> list[ClassicAction]:
    actions = rules.legal_actions(state, state.seat)
    if len(actions) > 1:
        scores = policy.scores(state, actions)
        order = sorted(range(len(actions)), key=lambda i: -scores[i])
        actions = [actions[i] for i in order]
    return actions


def _rollout_action(state: ClassicState, rng: random.Random) -> ClassicAction:
    if rng.random() >= EPSILON:
        action = policy.rollout_action(state, rng)
        if action is not None:
            return action
    actions = rules.legal_actions(state, state.seat)
    if len(actions) == 1 or rng.random() < EPSILON:
        return rng.choice(actions)
    scores = policy.scores(state, actions)
    return actions[max(range(len(actions)), key=scores.__getitem__)]


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
    root_actions = [actions[i] for i in root_order]
    determinizer = Determinizer(view)
    root = Node(view["you"])
    budget = Budget(seconds=seconds, iterations=iterations, clock=clock)
    done = 0
    while budget.allows(done):
        _iterate(root, root_actions, determinizer.sample(rng), rng, depth)
        done += 1
    key_index = {action_key(a): i for i, a in zip(root_order, root_actions, strict=True)}
    best = max(
        root.children.items(),
        key=lambda item: (item[1].visits, -root_order.index(key_index[item[0]])),
    )
    return key_index[best[0]], done


def _iterate(
    root: Node,
    root_actions: list[ClassicAction],
    state: ClassicState,
    rng: random.Random,
    depth: int,
) -> None:
    node = root
    path = [root]
    plies = 0
    # Selection and expansion.
    while state.result is None and plies < depth:
        if node is root:
            offered = root_actions[: _widen(node.visits)]
        elif node.visits == 0:
            # A new node offers one action, the cheap policy's: build just that one.
            first = policy.rollout_action(state, rng)
            offered = [first] if first is not None else _ranked(state)[:1]
        else:
            offered = _ranked(state)[: _widen(node.visits)]
        chosen: ClassicAction | None = None
        child: Node | None = None
        for action in offered:
            key = action_key(action)
            if key not in node.children:
                chosen, child = action, Node(state.seat)
                node.children[key] = child
                break
        expanded = child is not None
        if not expanded:
            log_avail_owner: list[tuple[ClassicAction, Node]] = []
            for action in offered:
                c = node.children[action_key(action)]
                c.avail += 1
                log_avail_owner.append((action, c))
            best_score = -1.0
            for action, c in log_avail_owner:
                score = c.value / c.visits + EXPLORATION * math.sqrt(math.log(c.avail) / c.visits)
                if score > best_score:
                    best_score, chosen, child = score, action, c
        assert chosen is not None and child is not None
        if expanded:
            child.avail += 1
        _apply(state, chosen, rng)
        plies += 1
        node = child
        path.append(child)
        if expanded:
            break
    # Rollout.
    while state.result is None and plies < depth:
        _apply(state, _rollout_action(state, rng), rng)
        plies += 1
    rewards = policy.evaluate(state)
    root.visits += 1
    for n in path[1:]:
        n.visits += 1
        n.value += rewards[n.seat]


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
