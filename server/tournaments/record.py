"""A tournament as the server reads it: the core's fold (``events.tournament.
standings.evolve``) with what the server adds on top of the same events: its version,
its meta (name, creator), its games with their ids, and each player's game in play.

A tournament game's id is derived from the tournament, the version of its
``PlayersPaired`` and the pair's index (``game_id_of``): every process names the
game of a pair the same, so the game is created once (server/tournaments/games.py)
and a game id leads back to its tournament (``tournament_of_game``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Literal

from events.tournament.log import GamePlayed, PlayersPaired, TournamentEvent
from events.tournament.standings import Tournament, evolve
from server.games.repository import TOURNAMENT_ID_MAX, tournament_game_id, tournament_of_game
from server.store.event_store import StoredEvent
from server.tournaments.store import decode_event

__all__ = [
    "GameEntry",
    "TournamentRecord",
    "game_id_of",
    "is_tournament_id",
    "tournament_of_game",
]

MAX_ID: Final = TOURNAMENT_ID_MAX
_ID: Final = re.compile(rf"[A-Za-z0-9_]{{1,{MAX_ID}}}")


def is_tournament_id(text: str) -> bool:
    """Letters, digits and ``_`` (no ``-``: it separates a game id's parts)."""
    return _ID.fullmatch(text) is not None


game_id_of = tournament_game_id  # the game layer owns the form of game ids


@dataclass
class GameEntry:
    """One game of the tournament: who plays whom in which round, and its result once
    recorded (``winner`` None while live, or for a shared victory)."""

    game_id: str
    first: str
    second: str
    round: int
    version: int  # of its PlayersPaired
    status: Literal["live", "over"] = "live"
    winner: str | None = None


@dataclass
class TournamentRecord:
    """The fold of a tournament's log, kept up to date by ``apply``."""

    id: str
    meta: dict[str, str]
    state: Tournament | None = None
    version: int = 0
    games: list[GameEntry] = field(default_factory=list)
    # Each player's game in play (its entry), by player.
    playing: dict[str, GameEntry] = field(default_factory=dict)
    ended_ms: int | None = None
    # The version up to which every pairing's games exist (read from the meta).
    made: int = 0
    # The version of the last PlayersPaired.
    last_paired: int = 0
    # A Swiss's byes: the player and the version of the round's PlayersPaired, by round.
    byes: dict[int, tuple[str, int]] = field(default_factory=dict)

    @property
    def tournament(self) -> Tournament:
        assert self.state is not None, "a record is read once it has its first event"
        return self.state

    def apply(self, stored: StoredEvent) -> None:
        """Fold the next event of the log (its version must follow)."""
        if stored.version != self.version + 1:
            raise ValueError(f"{self.id}: event {stored.version} after {self.version}")
        self.apply_event(decode_event(stored.data), stored.version)

    def apply_event(self, event: TournamentEvent, version: int) -> None:
        self.state = evolve(self.state, event)
        self.version = version
        if isinstance(event, PlayersPaired):
            self.last_paired = version
            if event.bye is not None:
                self.byes[event.round] = (event.bye, version)
            for i, pair in enumerate(event.pairs):
                entry = GameEntry(
                    game_id_of(self.id, version, i), pair.first, pair.second, event.round, version
                )
                self.games.append(entry)
                self.playing[pair.first] = entry
                self.playing[pair.second] = entry
        elif isinstance(event, GamePlayed):
            played = self.playing.get(event.first)
            if played is not None and played.second == event.second:
                played.status = "over"
                played.winner = event.winner
                del self.playing[event.first]
                self.playing.pop(event.second, None)
        elif self.state.ended and self.ended_ms is None:
            self.ended_ms = getattr(event, "at_ms", None)

    def in_play(self) -> list[GameEntry]:
        """The games whose result the tournament waits for, oldest first."""
        unique = {entry.game_id: entry for entry in self.playing.values()}
        return sorted(unique.values(), key=lambda e: tournament_of_game(e.game_id) or ("", 0, 0))

    def shown(self, entry: GameEntry) -> bool:
        """Whether the entry's game exists (the director made it after its pairing)."""
        return self.shown_version(entry.version)

    def shown_version(self, version: int) -> bool:
        """Whether the games of the pairing appended at ``version`` exist."""
        return version <= self.made

    def entry_of(self, game_id: str) -> GameEntry | None:
        return next((g for g in self.games if g.game_id == game_id), None)
