"""A whole game over HTTP, and the events it serves folding into the views it serves."""

from __future__ import annotations

import random
from typing import Any

import httpx
import msgspec

from bots.moves import moves as game_moves
from events.game import CLASSIC
from tests.server.helpers import auth, choose, new_table

MAX_MOVES = 2000


def fold_views(events: list[dict[str, Any]], viewer: int | None) -> list[dict[str, Any]]:
    """The views of ``viewer`` after each event of a finished game, folded here from
    the wire events (as JSON: the view's tuples are lists once sent). The game being
    over, every reserved card is shown: each player's as its owner saw it."""
    state = CLASSIC.new_state()
    views = []
    for wire in events:
        CLASSIC.evolve(state, msgspec.convert(wire, CLASSIC.event_type))
        view = CLASSIC.view(state, viewer)
        for seat, player in enumerate(view["players"]):
            player["reserved"] = CLASSIC.view(state, seat)["players"][seat]["reserved"]
        views.append(msgspec.json.decode(msgspec.json.encode(view)))
    return views


async def test_two_players_play_a_whole_game_and_every_version_matches_the_fold(
    http: httpx.AsyncClient,
) -> None:
    """A seeded 2-player game is played to its end over HTTP; /events folded equals /view?version=N for both seats and a spectator at every version (blind reserves included, now public)."""
    table = await new_table(http, players=2, seed=2024)
    rng = random.Random(1)
    blind = 0
    for _ in range(MAX_MOVES):
        spectator = await table.view(None)
        if spectator["status"] == "finished":
            break
        seat = spectator["turn"]["seat"]
        view = await table.view(seat)
        assert game_moves(view), "the mover always has a legal action"
        other = await table.view(1 - seat)
        assert game_moves(other) == []
        action = choose(game_moves(view), rng)
        blind += action["kind"] == "reserve" and "level" in action
        r = await table.command(seat, action, expected_version=view["version"])
        assert r.status_code == 200, r.text
        assert r.json()["version"] > view["version"]
    else:
        raise AssertionError("the game did not end")
    assert blind, "the seeded game has a blind reserve, so the reveal is tested"

    final = await table.view(None)
    assert final["result"] is not None and final["result"]["winners"]
    summary = (await http.get(f"/api/games/{table.id}")).json()
    assert summary["status"] == "finished"
    assert summary["version"] == final["version"]
    assert summary["result"] == final["result"]
    assert [s["name"] for s in summary["seats"]] == ["P0", "P1"]

    r = await http.get(f"/api/games/{table.id}/events")
    events = r.json()["events"]
    assert [e["version"] for e in events] == list(range(1, final["version"] + 1))
    assert all(e["at"].endswith("Z") for e in events)
    for viewer in (0, 1, None):
        token = None if viewer is None else table.tokens[viewer]
        folded = fold_views(events, viewer)
        for version, expected in enumerate(folded, start=1):
            r = await http.get(
                f"/api/games/{table.id}/view", params={"version": version}, headers=auth(token)
            )
            assert r.status_code == 200, r.text
            assert r.json() == {"version": version, "view": expected}, (viewer, version)


async def test_a_blind_reserve_is_hidden_from_the_other_seat_until_the_end(
    http: httpx.AsyncClient,
) -> None:
    """A blind reserve's card is in the owner's events only; the others see its level."""
    table = await new_table(http, players=2, seed=5)
    seat = await table.mover()
    r = await table.command(seat, {"kind": "reserve", "level": 2})
    assert r.status_code == 200, r.text
    version = r.json()["version"]

    def reserved_event(events: list[dict[str, Any]]) -> dict[str, Any]:
        return next(e for e in events if e["type"] == "CardReserved")

    mine = await http.get(f"/api/games/{table.id}/events", headers=auth(table.tokens[seat]))
    theirs = await http.get(f"/api/games/{table.id}/events", headers=auth(table.tokens[1 - seat]))
    spectator = await http.get(f"/api/games/{table.id}/events", params={"after": 3})
    assert reserved_event(mine.json()["events"])["card"] is not None
    assert reserved_event(theirs.json()["events"])["card"] is None
    assert reserved_event(spectator.json()["events"])["card"] is None
    assert reserved_event(spectator.json()["events"])["level"] == 2
    assert all(e["version"] > 3 for e in spectator.json()["events"])
    others_view = await table.view(1 - seat, version)
    assert others_view["players"][seat]["reserved"] == [{"level": 2}]
    own_view = await table.view(seat, version)
    assert "card" in own_view["players"][seat]["reserved"][0]
