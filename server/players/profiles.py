"""Players' profiles, read models of the log: each player's finished games (rated or
not) and won/played counts, beside the ratings (``server.players.ratings``); and
``Profiles.game_finished``, what the service calls once when it appends a game's last
event. Finished rated games are listed with whether they moved ratings
(``with_decisions``), read from the ratings when they are listed.

A player is an account (its lowercase username) or a bot level (``bot:<level>``);
guests have no profile. Per player, under its own hash tag (one player's keys share a
cluster slot, written by one script):

- ``player:{<id>}:games``: sorted set game id -> its end (ms), newest last;
- ``player:{<id>}:seats``: hash game id -> the player's seat in it;
- ``player:{<id>}:summaries``: hash game id -> the game's summary when it ended, as
  JSON (the lobby keeps only the newest finished games; a profile lists a player's
  own, whatever their age, without folding them);
- ``player:{<id>}:record``: hash ``games``, ``wins`` (finished games, won ones).

Adding a game is idempotent (``ZADD NX`` decides), so a game indexed twice counts once.
"""

from __future__ import annotations

import logging
from typing import Any, Final, cast

import msgspec

from server.games.projection import Game
from server.players.rating_model import NEW, VARIANTS
from server.players.ratings import GameChanges, Ratings, player_id, rated_game, seated
from server.store.clients import RedisClient
from server.store.keys import (
    player_games_key,
    player_record_key,
    player_seats_key,
    player_summaries_key,
)

log = logging.getLogger(__name__)

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(dict[str, Any])

# KEYS: games, seats, record, summaries. ARGV: game id, end (ms), seat, won (1/0),
# summary JSON.
_ADD_LUA: Final = """
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
redis.call('HINCRBY', KEYS[3], 'games', 1)
if ARGV[4] == '1' then redis.call('HINCRBY', KEYS[3], 'wins', 1) end
return 1
"""


class Profiles:
    """Players' finished games and records, and their ratings, over one Redis client."""

    def __init__(self, client: RedisClient, ratings: Ratings | None = None) -> None:
        self._r = client
        self.ratings = Ratings(client) if ratings is None else ratings
        self._add = client.register_script(_ADD_LUA)

    async def game_finished(self, game: Game, summary: dict[str, Any]) -> None:
        """Index a finished game for its players and count it in the ratings if it is
        rated. A failure is logged, not raised (whatever it is: the move that ended the
        game is appended already and must be answered as applied); the end stays the
        truth, and the next start (``mend_recent``) or ``splendor ratings rebuild``
        counts the game."""
        try:
            await self.add_game(game, summary)
            rated = rated_game(game)
            if rated is not None:
                await self.ratings.count(rated)
        except Exception:
            log.exception("ratings and profiles of finished game %s not updated", game.id)

    async def add_game(self, game: Game, summary: dict[str, Any]) -> None:
        """List a finished game (its ``summary``) on each of its players' profiles
        (guests have none)."""
        result = game.state.result
        winners = set(result.winners) if result is not None else set()
        ended_ms = game.log[-1].at_ms
        encoded = _ENCODER.encode(summary)
        for seat, player, _ in seated(game):
            if player is None:
                continue
            keys = [player_games_key(player), player_seats_key(player), player_record_key(player)]
            await self._add(
                keys=[*keys, player_summaries_key(player)],
                args=[game.id, ended_ms, seat, int(seat in winners), encoded],
            )

    async def games(self, player: str, limit: int) -> list[dict[str, Any]]:
        """The player's newest ``limit`` finished games: each game's summary as it
        ended, with the player's ``seat``."""
        members = cast(list[bytes], await self._r.zrevrange(player_games_key(player), 0, limit - 1))
        ids = [_text(g) for g in members]
        if not ids:
            return []
        seats = await self._r.hmget(player_seats_key(player), ids)
        summaries = await self._r.hmget(player_summaries_key(player), ids)
        games = []
        for seat, raw in zip(seats, summaries, strict=True):
            if raw is not None:
                games.append({**_DECODER.decode(raw), "seat": int(seat or 0)})
        return await self.with_decisions(games)

    async def with_decisions(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Finished rated game summaries with whether the game moved ratings:
        ``counted`` (a bool) and, when false, ``not_counted``: ``early_end`` (it ended
        before every human seat completed two turns), ``daily_limit`` (two of its
        accounts had had their 3 counted games that UTC day), or ``pending`` (not
        decided yet). A counted game's rated seats get their ``rating`` after that game
        and its change, ``delta``. Other summaries are left as they are. Two reads per
        variant."""
        wanted: dict[str, list[str]] = {}
        for summary in summaries:
            if _decided_by_ratings(summary):
                wanted.setdefault(summary["variant"], []).append(summary["id"])
        for variant, ids in wanted.items():
            decided = await self.ratings.decisions(variant, ids)
            changed = await self.ratings.changes(
                variant, [g for g in ids if decided[g] == "counted"]
            )
            for summary in summaries:
                if summary["variant"] == variant and _decided_by_ratings(summary):
                    decision = decided[summary["id"]]
                    summary["counted"] = decision == "counted"
                    if decision != "counted":
                        summary["not_counted"] = decision
                    _put_changes(summary, changed.get(summary["id"], {}))
        return summaries

    async def ratings_of(self, player: str) -> dict[str, dict[str, Any]]:
        """``{variant: {"rating", "games", "opponents", "provisional"}}`` of a player id
        (an account's username in any case), every variant; one without games shows
        the start (1500, 0, provisional). ``opponents``: the different players met in
        counted games; ``provisional``: not listed on the leaderboard yet (never a
        bot). What ``GET /api/players/{name}`` and ``GET /api/me`` give."""
        ratings = {}
        for variant in VARIANTS:
            standing = await self.ratings.standing(variant, player.lower())
            skill = NEW if standing.skill is None else standing.skill
            ratings[variant] = {
                "rating": skill.rating,
                "games": skill.games,
                "opponents": standing.opponents,
                "provisional": not standing.listed,
            }
        return ratings

    async def with_ratings(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Game summaries with each account's and bot's rating in the game's variant
        (``seat["rating"]``), read now, and ``seat["provisional"]``: true for an
        account not on the leaderboard yet (the page writes "1500?"); then
        ``with_decisions`` (a counted game's seats show their rating after it and its
        change). The lobby and the game's page show them beside the names."""
        wanted: dict[str, set[str]] = {}
        for summary in summaries:
            for seat in summary.get("seats") or ():
                player = player_id(seat.get("account"), seat.get("bot"))
                if player is not None:
                    wanted.setdefault(summary["variant"], set()).add(player)
        for variant, players in wanted.items():
            skills = await self.ratings.skills(variant, sorted(players))
            listed = await self.ratings.listed(variant, sorted(players))
            for summary in summaries:
                if summary["variant"] != variant:
                    continue
                for seat in summary.get("seats") or ():
                    player = player_id(seat.get("account"), seat.get("bot"))
                    if player is not None:
                        seat["rating"] = skills.get(player, NEW).rating
                        seat["provisional"] = player not in listed
        return await self.with_decisions(summaries)

    async def record(self, player: str) -> tuple[int, int]:
        """How many finished games the player played, and won."""
        raw = await self._r.hmget(player_record_key(player), ["games", "wins"])
        return int(raw[0] or 0), int(raw[1] or 0)


def _put_changes(summary: dict[str, Any], changes: GameChanges) -> None:
    """Each rated seat's rating after a counted game and its change, from the game's
    ``…:changes`` record."""
    for seat in summary.get("seats") or ():
        player = player_id(seat.get("account"), seat.get("bot"))
        change = changes.get(player) if player is not None else None
        if change is not None:
            seat["rating"], seat["delta"] = change


def _decided_by_ratings(summary: dict[str, Any]) -> bool:
    """A finished rated game: one the ratings counted or say why they did not."""
    return bool(
        summary.get("status") == "finished"
        and summary.get("rated")
        and not summary.get("seeded")
        and summary.get("variant") in VARIANTS
    )


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
