"""``LiveGame``'s clocks: read from the view's clock and this computer's monotonic
time since that clock arrived, never its wall clock."""

from __future__ import annotations

from client.http import SplendorHTTP
from client.live import LiveGame
from server.common.settings import Settings
from tests.server.ws_helpers import live_server


async def test_live_clocks_tick_from_when_the_clock_arrived(settings: Settings) -> None:
    """In a 3+2 game the first mover's window read 2.5 s (of local monotonic time) after its clock arrived is the snapshot's first_move less 2.5 s, the other seat's bank stands; server_now_ms is the clock's now plus that time; an untimed game reads None."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game = await http.create_game("classic", 2, clock={"initial": 180, "increment": 2})
        for name in ("Ana", "Ben"):
            await http.join(game["id"], name)
        async with LiveGame(server.http_url, game["id"]) as live:
            assert live.view is not None
            clock = live.view["clock"]
            mover = live.view["turn"]["seat"]
            later = live.clock_arrived + 2.5
            assert live.clock_left(mover, later) == clock["first_move"] - 2_500
            assert live.clock_left(1 - mover, later) == 180_000
            assert live.clock_left(mover, live.clock_arrived + 999) == 0
            now = live.server_now_ms(later)
            assert now is not None and live.server_now_ms(live.clock_arrived) == now - 2_500
        untimed = await http.create_game("classic", 2)
        async with LiveGame(server.http_url, untimed["id"]) as live:
            assert live.clock_left(0) is None and live.server_now_ms() is None
