"""The Python client of quick pairing (client/pairing.py) against a live server: paired guests, rated accounts, cancel."""

from __future__ import annotations

import asyncio

from client.http import SplendorHTTP
from client.live import LiveGame
from client.pairing import QuickPairing
from server.common.settings import Settings
from tests.server.ws_helpers import live_server


async def test_two_guests_are_paired_and_play_through_live_game(settings: Settings) -> None:
    """Two QuickPairing waits in Duel 3+2 return the same game, different seats; each token opens its seat in a LiveGame."""
    async with live_server(settings) as server:
        ana = QuickPairing(server.http_url, "duel", "3+2", name="Ana")
        bo = QuickPairing(server.http_url, "duel", "3+2", name="Bo")
        first, second = await asyncio.wait_for(asyncio.gather(ana.wait(), bo.wait()), 20)
        assert first is not None and second is not None
        assert first.game == second.game and {first.seat, second.seat} == {0, 1}
        assert first.opponent == "Bo" and not first.rated and first.opponent_rating is None
        assert ana.waiting is not None and ana.waiting["pool"] == "duel-3+2-casual"
        live = LiveGame(server.http_url, first.game, token=first.token)
        async with live:
            view = await live.wait_for(lambda v: v is not None)
            assert view["you"] == first.seat


async def test_accounts_wait_in_the_rated_pool_and_cancel_leaves(settings: Settings) -> None:
    """Two logged-in clients are paired into a rated game; a third, cancelling, gets None."""
    async with live_server(settings) as server:
        cookies = []
        for name in ("Cara", "Dan"):
            async with SplendorHTTP(server.http_url) as http:
                await http.sign_up(name, "a-long-enough-password")
                cookies.append(http.session_cookie)
        waits = [QuickPairing(server.http_url, "classic", "10+5", cookie=c) for c in cookies]
        told = await asyncio.wait_for(asyncio.gather(*(w.wait() for w in waits)), 20)
        assert all(t is not None and t.rated and t.opponent_rating == 1500 for t in told)
        alone = QuickPairing(server.http_url, "classic", "10+5", name="Eve")
        waiting = asyncio.ensure_future(alone.wait())
        while alone.waiting is None:
            await asyncio.sleep(0.01)
        await alone.cancel()
        assert await asyncio.wait_for(waiting, 10) is None
