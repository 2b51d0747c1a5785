"""No seat token in the server's log: ``splendor serve`` at info level, access log on,
games played with tokens over HTTP (Bearer) and websockets (``?token=``), and two
guests paired by quick pairing (a ``?ticket=`` in the URL), then every token and
ticket issued (and the wrong tokens tried) searched for in everything it wrote."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from pathlib import Path
from typing import Any

import httpx
import websockets

from tests.multiprocess.servers import served
from tests.server.helpers import Table, auth
from tests.server.helpers import new_table as http_table
from tests.server.ws_helpers import Watcher, connect


def ws_url(base: str, game_id: str, token: str, since: int | None = None) -> str:
    url = base.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}"
    return url if since is None else f"{url}&since={since}"


async def play_over_websockets(base: str, http: httpx.AsyncClient, tokens: list[str]) -> list[str]:
    """A 2-player game played to its end by sockets with ``?token=``, then its rematch
    (tokens of its own) joined over HTTP and watched by its seats; the tokens seen."""
    table = await http_table(http, players=2, seed=5)
    tokens += table.tokens
    players = [
        Watcher(f"p{seat}", await connect(ws_url(base, table.id, token)), seed=5, play=True)
        for seat, token in enumerate(table.tokens)
    ]
    await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), 120)
    assert all(p.view is not None and p.view["status"] == "finished" for p in players)
    rematch_tokens = []
    for token in table.tokens:
        r = await http.post(f"/api/games/{table.id}/rematch", headers=auth(token))
        assert r.status_code == 201, r.text
        rematch_tokens.append(r.json()["token"])
        rematch = r.json()["id"]
    tokens += rematch_tokens
    for token in rematch_tokens:  # resuming from version 0: the page's reconnection
        socket = await connect(ws_url(base, rematch, token, since=0))
        await socket.send('{"type": "ping"}')
        while '"pong"' not in await socket.recv():
            pass
        await socket.close()
    for player in players:
        await player.conn.close()
    return tokens


async def play_over_http(http: httpx.AsyncClient, tokens: list[str]) -> None:
    """A 3-player game's moves sent with Bearer tokens, views and events read with them."""
    table: Table = await http_table(http, players=3, seed=8)
    tokens += table.tokens
    await table.play(random.Random(8), 12)
    for token in table.tokens:
        assert (await http.get(f"/api/games/{table.id}/events", headers=auth(token))).is_success


async def try_wrong_tokens(base: str, http: httpx.AsyncClient, game_id: str) -> list[str]:
    """Tokens of no seat, sent every way a token can be: refused, and not logged either."""
    wrong = [secrets.token_urlsafe(32) for _ in range(4)]
    r = await http.get(f"/api/games/{game_id}/view", headers=auth(wrong[0]))
    assert r.status_code == 403
    r = await http.post(f"/api/games/{game_id}/commands", headers=auth(wrong[1]), json={})
    assert r.status_code == 403
    with_token = base.replace("http://", "ws://") + f"/ws/games/{game_id}?token={wrong[2]}"
    socket = await connect(with_token)
    await socket.recv()  # the error, then the close 4403
    await socket.wait_closed()
    assert socket.close_code == 4403
    # On an HTTP URL, where no token belongs: still not written down.
    await http.get(f"/api/games/{game_id}/view?token={wrong[3]}")
    return wrong


async def pair_over_websockets(base: str) -> list[str]:
    """Two guests paired by quick pairing, one of them back with its ticket in the URL
    after a dropped socket (as the page comes back): the tickets and seat tokens seen."""
    url = base.replace("http://", "ws://") + "/ws/pairing?variant=duel&clock=3%2B2&name="
    first = await connect(url + "Ana")
    ticket = json.loads(await first.recv())["ticket"]
    await first.close()
    again = await connect(f"{url}Ana&ticket={ticket}")
    assert json.loads(await again.recv())["type"] == "waiting"
    other = await connect(url + "Bo")
    other_ticket = json.loads(await other.recv())["ticket"]
    paired = [json.loads(await conn.recv()) for conn in (again, other)]
    assert [p["type"] for p in paired] == ["paired", "paired"]
    for conn in (again, other):
        await conn.close()
    return [ticket, other_ticket, *(p["token"] for p in paired)]


async def test_no_seat_token_reaches_the_log(
    redis_client: Any, redis_server: str, tmp_path: Path
) -> None:
    """Every token issued in games played over HTTP and websockets (and rematches), and every wrong token tried, is absent from splendor serve's whole output at info level, where its websocket access lines are (with the token redacted)."""
    log = tmp_path / "serve.log"
    tokens: list[str] = []
    async with (
        served(redis_server, log_level="info", log=log) as server,
        httpx.AsyncClient(base_url=server.base) as http,
    ):
        base = server.base
        await play_over_websockets(base, http, tokens)
        await play_over_http(http, tokens)
        game = (await http.post("/api/games", json={"variant": "classic"})).json()["id"]
        tokens += await try_wrong_tokens(base, http, game)
        tokens += await pair_over_websockets(base)
        # A client that leaves mid-game: the server logs the socket's end too.
        socket = await websockets.connect(ws_url(base, game, tokens[0]), open_timeout=10)
        await socket.close()
    output = log.read_text()
    assert len(tokens) == 2 + 2 + 3 + 4 + 4 and len(set(tokens)) == len(tokens)
    assert "&ticket=[redacted]" in output  # the resumed pairing socket's line
    assert '"WebSocket /ws/games/' in output and "?token=[redacted]&since=0" in output
    assert '?token=[redacted]" [accepted]' in output
    assert "Bearer" not in output
    leaked = [token for token in tokens if token in output]
    assert leaked == [], f"{len(leaked)} of {len(tokens)} tokens in the log"
