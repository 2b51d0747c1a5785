"""A game as the server holds it in memory: its variant, its secret seed, its event
log decoded, and the state folded from that log. Thrown away freely (principle 5):
it is loaded from the store and caught up by reading the events after its version.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import msgspec

from events.base import GameCreated
from events.game import VARIANTS, Variant
from server.store.event_store import StoredEvent

_ENCODER = msgspec.json.Encoder()
_CREATED = msgspec.json.Decoder(GameCreated)
_EVENT_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {}

OVER: Final = ("finished", "aborted")
"""The statuses of a game over: its log has its last event."""


class LoggedEvent(NamedTuple):
    """One event of a game's log, decoded, with its version and time."""

    version: int
    at_ms: int
    event: Any


def encode_event(event: Any) -> bytes:
    """An event as the store keeps it: msgspec JSON with its ``type`` tag."""
    return _ENCODER.encode(event)


def decode_event(variant: Variant, data: bytes) -> Any:
    decoder = _EVENT_DECODERS.get(variant.name)
    if decoder is None:
        decoder = _EVENT_DECODERS[variant.name] = variant.event_decoder()
    return decoder.decode(data)


def decode_created(data: bytes) -> GameCreated:
    """The first event of every game, whatever its variant."""
    return _CREATED.decode(data)


def token_digest(token: str) -> str:
    """What the server keeps of a seat token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class _SeededOnDraw(random.Random):
    """``random.Random(seed)``, seeded at its first draw rather than when made.

    Most commands draw nothing (only a card dealt or a game set up does), and seeding
    a Mersenne Twister costs a third of deciding a move. The draws are those of
    ``random.Random(seed)``: every method of ``random.Random`` draws through
    ``random()`` or ``getrandbits()``, and both seed first.
    """

    def __init__(self, seed: str) -> None:  # no super().__init__(): it would seed now
        self._pending: str | None = seed
        self.gauss_next = None

    def _seed_now(self) -> None:
        seed, self._pending = self._pending, None
        super().seed(seed)

    def seed(self, a: Any = None, version: int = 2) -> None:
        self._pending = None
        super().seed(a, version)

    def random(self) -> float:
        if self._pending is not None:
            self._seed_now()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        if self._pending is not None:
            self._seed_now()
        return super().getrandbits(k)

    def getstate(self) -> tuple[Any, ...]:
        if self._pending is not None:
            self._seed_now()
        return super().getstate()

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._pending = None  # the state given replaces the seed still to come
        super().setstate(state)


@dataclass(eq=False)
class Game:
    """The in-memory projection of one game. Change it only while holding ``lock``."""

    id: str
    variant: Variant
    seed: int
    created_ms: int
    lock: asyncio.Lock
    state: Any = None
    log: list[LoggedEvent] = field(default_factory=list)
    seat_digests: dict[int, str] = field(default_factory=dict)
    listed: tuple[Any, ...] | None = None  # what the lobby last listed of it (service)
    rematch: str | None = (
        None  # the id of its rematch, once one is made (server.games.rematch_plan)
    )
    rematch_of: str | None = None  # the game it is the rematch of
    scheduled: int | None = -1  # the deadline last written for it (service; -1: none yet)
    archived: bool = (
        False  # read from its archive (server/store/archive_format.py): its seats are final
    )

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = self.variant.new_state()

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def status(self) -> str:
        status: str = self.state.status
        return status

    def apply(self, stored: StoredEvent) -> None:
        """Fold one stored event, which must be the next one."""
        if stored.version != self.version + 1:
            raise GapError(self.id, self.version, stored.version)
        self.apply_event(decode_event(self.variant, stored.data), stored.at_ms)

    def apply_event(self, event: Any, at_ms: int) -> None:
        self.variant.evolve(self.state, event, at_ms)
        self.log.append(LoggedEvent(len(self.log) + 1, at_ms, event))

    def rng(self) -> random.Random:
        """The generator a command decided at this version draws from: distinct for
        every version of every game, and reproducible from the seed alone."""
        return _SeededOnDraw(f"{self.seed}:{self.version}")

    def seat_of(self, token: str) -> int | None:
        """The seat this token belongs to, compared in constant time, or None."""
        digest = token_digest(token)
        found = None
        for seat, known in self.seat_digests.items():
            if hmac.compare_digest(digest, known):
                found = seat
        return found

    def state_at(self, version: int) -> Any:
        """A new state folded from the first ``version`` events."""
        return self.variant.fold_timed((e.at_ms, e.event) for e in self.log[:version])


class GapError(RuntimeError):
    """A stored event is not the next one of a cached log: the cache must be reloaded."""

    def __init__(self, game_id: str, have: int, got: int) -> None:
        super().__init__(f"game {game_id}: cached at version {have}, next stored is {got}")


def variant_named(name: str) -> Variant | None:
    return VARIANTS.get(name)
