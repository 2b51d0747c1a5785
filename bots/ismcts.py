"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS; Cowling, Powley
& Whitehouse 2012), for any game that can say a few things about its states
(``Game``). The classic bot (``mcts.py``) and the Duel bot (``duel_mcts.py``) both
search with it; each brings its determinizations, its cheap policy and its evaluation.

Each iteration starts from a fresh determinization (a full state the seat's view
can't tell from the real one) and:
1. selects down one tree shared by all determinizations, with UCT over the actions
   offered in this determinization, counting a child's chances only when it was
   available (the ISMCTS "availability" count); every seat's moves are in the tree,
   each node scored for the seat who moved into it, so opponents maximize their own
   chances;
2. widens a node progressively: it offers its best-ranked actions only, one more
   each time its visit count passes the next square (the root's ranking is the
   caller's, a new node offers just the cheap policy's move), so a few hundred
   iterations go to sensible moves instead of every legal one;
3. plays the rest out with the cheap policy up to a depth cap (plies from the root,
   tree and rollout together), then scores the position (the game's result if it
   ended, else the game's estimate of each seat's chance to win) and backs the
   scores up the path.
The answer is the root action with the most visits (ties: the caller's ranking).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Final, Generic, Protocol, TypeVar

from bots.budget import Budget

EXPLORATION: Final = 0.7  # UCT's constant, for rewards in [0, 1]

S = TypeVar("S")
A = TypeVar("A")
S_in = TypeVar("S_in", contravariant=True)


class Game(Protocol[S_in, A]):
    """What the search asks of a game's (determinized) states."""

    def seat(self, state: S_in) -> int:
        """Who moves now."""
        ...

    def over(self, state: S_in) -> bool: ...

    def apply(self, state: S_in, action: A, rng: random.Random) -> None:
        """Play ``action`` on ``state`` in place (chance drawn from ``rng``)."""
        ...

    def ranked(self, state: S_in) -> list[A]:
        """The legal actions, the most promising first."""
        ...

    def first(self, state: S_in, rng: random.Random) -> A | None:
        """The one action a new node offers (the cheap policy's), if it has one."""
        ...

    def rollout(self, state: S_in, rng: random.Random) -> A:
        """The cheap policy's action in a rollout."""
        ...

    def evaluate(self, state: S_in) -> Sequence[float]:
        """Each seat's chance of winning from ``state``, in [0, 1]."""
        ...

    def key(self, action: A) -> Hashable:
        """A hashable name for ``action``."""
        ...


class Node:
    """A node of the information-set tree: reached by an action of ``seat``."""

    __slots__ = ("avail", "children", "seat", "value", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who moved into this node; its value is that seat's
        self.children: dict[Hashable, Node] = {}
        self.visits = 0
        self.avail = 0
        self.value = 0.0


def widen(visits: int) -> int:
    """How many of a node's best-ranked actions it offers after ``visits`` visits."""
    return 1 + math.isqrt(visits)


class Search(Generic[S, A]):
    """One search from one seat's root: ``iterate`` as the budget allows, then ``best``."""

    def __init__(
        self,
        game: Game[S, A],
        seat: int,
        root_actions: Sequence[A] | None,
        exploration: float = EXPLORATION,
    ) -> None:
        """``root_actions``: the caller's ranking of the root's actions, best first; None
        when they depend on the determinization (an analysis from the public position,
        where the mover's reserves are guesses too): the root then offers the game's
        ranking in each, as any node does."""
        self.game = game
        self.exploration = exploration
        self.root = Node(seat)
        self.root_actions = None if root_actions is None else list(root_actions)
        self._root_keys = [game.key(a) for a in self.root_actions or ()]
        self._root_seen: dict[Hashable, A] = {}  # each root child's action
        self.totals: list[float] = []  # the rewards backed up, summed per seat
        self.runs = 0

    def best(self) -> int:
        """The index in ``root_actions`` of the most visited (ties: the best ranked)."""
        rank = {key: i for i, key in reversed(list(enumerate(self._root_keys)))}
        key, _ = max(self.root.children.items(), key=lambda item: (item[1].visits, -rank[item[0]]))
        return rank[key]

    def most_visited(self) -> A:
        """The root action visited most (ties: the first tried)."""
        key = max(self.root.children, key=lambda k: self.root.children[k].visits)
        return self._root_seen[key]

    def chances(self) -> list[float]:
        """Each seat's mean reward over the iterations: its chance to win from the root."""
        return [total / self.runs for total in self.totals]

    def visits(self) -> list[int]:
        """Each root action's visits, in ``root_actions`` order."""
        children = self.root.children
        return [children[k].visits if k in children else 0 for k in self._root_keys]

    def run(
        self, deal: Callable[[random.Random], S], rng: random.Random, budget: Budget, depth: int
    ) -> int:
        """Iterate on fresh determinizations (``deal``) while ``budget`` allows; returns
        the iterations run."""
        done = 0
        while budget.allows(done):
            self.iterate(deal(rng), rng, depth)
            done += 1
        return done

    def iterate(self, state: S, rng: random.Random, depth: int) -> Sequence[float]:
        """One iteration on ``state`` (a fresh determinization, played on in place);
        returns the scores it backed up."""
        game = self.game
        root = self.root
        exploration = self.exploration
        node = root
        path = [root]
        plies = 0
        # Selection and expansion.
        while not game.over(state) and plies < depth:
            if node is root and self.root_actions is not None:
                offered = self.root_actions[: widen(node.visits)]
            elif node is root:
                offered = game.ranked(state)[: widen(node.visits)]
            elif node.visits == 0:
                # A new node offers one action, the cheap policy's: build just that one.
                first = game.first(state, rng)
                offered = [first] if first is not None else game.ranked(state)[:1]
            else:
                offered = game.ranked(state)[: widen(node.visits)]
            chosen: A | None = None
            child: Node | None = None
            for action in offered:
                key = game.key(action)
                if key not in node.children:
                    chosen, child = action, Node(game.seat(state))
                    node.children[key] = child
                    if node is root:
                        self._root_seen[key] = action
                    break
            expanded = child is not None
            if not expanded:
                available: list[tuple[A, Node]] = []
                for action in offered:
                    c = node.children[game.key(action)]
                    c.avail += 1
                    available.append((action, c))
                best_score = -1.0
                for action, c in available:
                    score = c.value / c.visits + exploration * math.sqrt(
                        math.log(c.avail) / c.visits
                    )
                    if score > best_score:
                        best_score, chosen, child = score, action, c
            assert chosen is not None and child is not None
            if expanded:
                child.avail += 1
            game.apply(state, chosen, rng)
            plies += 1
            node = child
            path.append(child)
            if expanded:
                break
        # Rollout.
        while not game.over(state) and plies < depth:
            game.apply(state, game.rollout(state, rng), rng)
            plies += 1
        rewards = game.evaluate(state)
        if self.runs == 0:
            self.totals = [0.0] * len(rewards)
        self.runs += 1
        for i, reward in enumerate(rewards):
            self.totals[i] += reward
        root.visits += 1
        for n in path[1:]:
            n.visits += 1
            n.value += rewards[n.seat]
        return rewards
