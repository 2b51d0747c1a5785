"""A whole game played over websockets, watched by players and spectators."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from server.common.settings import Settings
from tests.server.ws_helpers import (
    Watcher,
    connect,
    http_view,
    live_server,
    live_view_at,
    new_table,
)


def hidden_until(events: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Blind-reserved cards: card -> (owner, first version at which anyone may see it)."""
    end = next(e["version"] for e in events if e["type"] == "GameEnded")
    blind = {
        e["card"]: (e["seat"], e["version"])
        for e in events
        if e["type"] == "CardReserved" and e["blind"]
    }
    revealed: dict[str, tuple[int, int]] = {}
    for card, (owner, reserved_at) in blind.items():
        bought = [
            e["version"]
            for e in events
            if e["type"] == "CardBought" and e["card"] == card and e["version"] > reserved_at
        ]
        revealed[card] = (owner, bought[0] if bought else end)
    return revealed


def leaks(watcher: Watcher, secrets: dict[str, tuple[int, int]], seat: int | None) -> list[str]:
    """Messages of ``watcher`` that show a blind-reserved card before it is public."""
    found = []
    for text, message in zip(watcher.texts, watcher.messages, strict=True):
        version = message.get("version")
        if version is None:
            continue
        for card, (owner, public_at) in secrets.items():
            if owner != seat and version < public_at and f'"{card}"' in text:
                found.append(f"{watcher.name} v{version}: {card}")
    return found


async def wait_for_version(watcher: Watcher, version: int) -> None:
    while watcher.version is None or watcher.version < version:
        watcher.updated.clear()
        await asyncio.wait_for(watcher.updated.wait(), 20)


async def test_two_players_three_spectators_rebuild_every_view(
    redis_client: Any, redis_server: str
) -> None:
    """Each socket's view rebuilt from its snapshot and diffs equals GET view at every version of a whole game; no spectator or opponent ever sees a blind reserve."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=11)
        players = [
            Watcher(f"p{seat}", await connect(server.ws_url(table.id, token)), seed=11, play=True)
            for seat, token in enumerate(table.tokens)
        ]
        spectators = [Watcher(f"s{i}", await connect(server.ws_url(table.id))) for i in range(3)]
        everyone = players + spectators
        classes: list[tuple[int | None, str | None, list[Watcher]]] = [
            (0, table.tokens[0], [players[0]]),
            (1, table.tokens[1], [players[1]]),
            (None, None, spectators),
        ]
        checked = 0
        checking = asyncio.Lock()

        async def check_live_views(version: int) -> None:
            # Before each move: every version so far, on every socket, against GET view
            # while the game is live (once over, its past views are all public).
            nonlocal checked
            async with checking:
                for v in range(max(checked + 1, min(players[0].views)), version + 1):
                    for watcher in everyone:
                        await wait_for_version(watcher, v)
                    expected = [await http_view(http, table.id, t, v) for _, t, _ in classes]
                    live = (await http.get(f"/api/games/{table.id}")).json()["status"] == "live"
                    if not live:
                        return  # the last move's versions are checked after the game
                    for (_, _, watchers), view in zip(classes, expected, strict=True):
                        for watcher in watchers:
                            assert watcher.views[v] == view, (watcher.name, v)
                    checked = v

        for player in players:
            player.before_acting = check_live_views
        await asyncio.wait_for(asyncio.gather(*(w.run() for w in everyone)), 240)
        await asyncio.wait_for(asyncio.gather(*(p.drain() for p in players)), 30)

        summary = (await http.get(f"/api/games/{table.id}")).json()
        assert summary["status"] == "finished"
        final = summary["version"]
        for watcher in everyone:
            assert watcher.messages[0]["type"] == "snapshot"
            assert watcher.snapshots == [watcher.snapshots[0]], "one snapshot, then diffs"
            assert watcher.version == final
        assert checked > final - 10

        # The last move's versions: the final one as GET shows it; those before it as
        # the view of the log folded to there (GET now shows that past all public).
        events = (await http.get(f"/api/games/{table.id}/events")).json()["events"]
        for seat, token, watchers in classes:
            expected = await http_view(http, table.id, token, final)
            assert all(w.views[final] == expected for w in watchers)
            for v in range(checked + 1, final):
                folded = live_view_at(events, v, seat)
                assert all(w.views[v] == folded for w in watchers), v

        # Every command a player sent was answered: an ack, or a stale-version refusal.
        for player in players:
            assert len(player.acks) + len(player.errors) == player.sent
            assert {e["code"] for e in player.errors} <= {"conflict"}, player.errors
        assert sum(len(p.acks) for p in players) > 20

        # Blind reserves happened, and nobody but their owner saw them before the end.
        secrets = hidden_until(events)
        assert secrets, "the seeded game should include blind reserves"
        for watcher in spectators:
            assert leaks(watcher, secrets, None) == []
        for seat, player in enumerate(players):
            assert leaks(player, secrets, seat) == []
        for watcher in everyone:
            await watcher.conn.close()


async def test_a_duel_game_over_websockets(redis_client: Any, redis_server: str) -> None:
    """Splendor Duel through the same sockets: every version each socket rebuilt is the view of the log folded to there, for both players and a spectator."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=4, variant="duel")
        players = [
            Watcher(f"p{seat}", await connect(server.ws_url(table.id, token)), seed=4, play=True)
            for seat, token in enumerate(table.tokens)
        ]
        spectator = Watcher("s", await connect(server.ws_url(table.id)))
        everyone = [*players, spectator]
        await asyncio.wait_for(asyncio.gather(*(w.run() for w in everyone)), 240)
        await asyncio.wait_for(asyncio.gather(*(p.drain() for p in players)), 30)
        summary = (await http.get(f"/api/games/{table.id}")).json()
        assert summary["status"] == "finished"
        events = (await http.get(f"/api/games/{table.id}/events")).json()["events"]
        for watcher, seat in [(players[0], 0), (players[1], 1), (spectator, None)]:
            assert watcher.snapshots == [watcher.snapshots[0]]
            assert watcher.version == summary["version"]
            for version in range(watcher.snapshots[0], summary["version"]):
                expected = live_view_at(events, version, seat, "duel")
                assert watcher.views[version] == expected, (watcher.name, version)
            token = None if seat is None else table.tokens[seat]
            assert watcher.view == await http_view(http, table.id, token)
        for player in players:
            assert {e["code"] for e in player.errors} <= {"conflict"}, player.errors
        for watcher in everyone:
            await watcher.conn.close()
