"""``splendor watch`` and ``splendor bot``: a terminal spectator and an outside bot,
both plain clients of the wire protocol (``client.http``, ``client.live``)."""

from __future__ import annotations

import asyncio
import random
import re
import sys
import time
from typing import Any, TextIO

from bots import choose
from bots.moves import moves
from catalogs import SOURCE
from client.http import ProtocolError, SplendorHTTP
from client.live import LiveGame, clock_ticking
from client.terminal import render
from events.turns import bot_name

_GAME_IN_URL = re.compile(r"(?:#/(?:watch|play|join|replay)/|/api/games/|/ws/games/)([\w-]+)")

OVER = ("finished", "aborted")  # a game that takes no more moves


def split_game_url(url: str, game: str | None = None) -> tuple[str, str]:
    """The server's base URL and the game id, from a page address such as
    ``http://host:8000/#/watch/abc123`` (or a base URL and ``game``)."""
    match = _GAME_IN_URL.search(url)
    if match:
        return url[: match.start()].rstrip("/#") or url, match.group(1)
    if game:
        return url.rstrip("/"), game
    raise ValueError(f"no game id in {url!r}: give a game page's address or --game")


async def watch(
    url: str,
    game: str | None = None,
    *,
    token: str | None = None,
    out: TextIO = sys.stdout,
    clear: bool = True,
    until_finished: bool = True,
    lang: str = SOURCE,
) -> int:
    """Follow a game, redrawing the table on each move (its words in ``lang``), until
    it ends."""
    base, game_id = split_game_url(url, game)
    async with SplendorHTTP(base, lang=lang) as http:
        summary = await http.game(game_id)
        catalog = await http.catalog(summary["variant"])
    async with LiveGame(base, game_id, token=token, lang=lang) as live:
        seen = -1
        while True:
            # Drawn again at each change (a move, someone coming or leaving, a
            # rematch), and every second while a clock runs.
            ticking = live.view is not None and clock_ticking(live.view)
            try:
                view = await live.wait_for(
                    lambda v, seen=seen: live.revision > seen, timeout=1.0 if ticking else None
                )
            except TimeoutError:
                view = live.view or {}
            seen = live.revision
            if clear:
                out.write("\x1b[2J\x1b[H")
            # Clocks tick from when they arrived, by this computer's monotonic time.
            now_ms = live.server_now_ms()
            out.write(render(view, catalog, live.presence, live.rematch, now_ms, lang) + "\n")
            out.flush()
            if until_finished and view["status"] in OVER:
                return 0


async def play_bot(url: str, game: str | None, level: str, name: str | None = None) -> int:
    """Join a seat of a game as a bot and play it to the end over the websocket."""
    base, game_id = split_game_url(url, game)
    async with SplendorHTTP(base) as http:
        seat = await http.join(game_id, name or bot_name(level))
    rng = random.Random()
    async with LiveGame(base, game_id, token=seat.token) as live:
        while True:
            view = await live.wait_for(_my_move_or_end, timeout=None)
            if view["status"] in OVER:
                return 0
            action = await asyncio.to_thread(_think, level, view, rng)
            try:
                await live.send(action, expected_version=view["version"])
            except ProtocolError as refusal:
                # Stale (someone moved meanwhile): think again on the newer view.
                if refusal.code not in ("conflict", "not_your_turn"):
                    raise
                await live.wait_for(lambda v, seen=view["version"]: v["version"] > seen)


def _my_move_or_end(view: dict[str, Any]) -> bool:
    return view["status"] in OVER or bool(moves(view))


def _think(level: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return choose(level, view, rng, seconds=1.0, clock=time.perf_counter)
