"""Players' profiles and leaderboards over HTTP: shapes, bad input, a bot's record."""

from __future__ import annotations

import httpx

from tests.server.helpers import auth, command_id, refused


async def test_leaderboard_bad_input(http: httpx.AsyncClient) -> None:
    """An unknown variant is 404, a limit out of 1..100 or not a number is 400."""
    refused(await http.get("/api/leaderboard/chess"), 404, "not_found")
    refused(await http.get("/api/leaderboard/classic?limit=0"), 400, "bad_request")
    refused(await http.get("/api/leaderboard/classic?limit=101"), 400, "bad_request")
    refused(await http.get("/api/leaderboard/duel?limit=x"), 400, "bad_request")
    r = await http.get("/api/leaderboard/duel")
    assert r.status_code == 200 and r.json() == {"players": []}


async def test_unknown_players_are_404(http: httpx.AsyncClient) -> None:
    """A name nobody played under, an unknown bot level, a malformed name: 404."""
    for name in ("nobody", "bot:grandmaster", "a%20b", "x" * 41):
        refused(await http.get(f"/api/players/{name}"), 404, "not_found")


async def test_a_bot_profile_lists_its_games(http: httpx.AsyncClient) -> None:
    """A bot's profile: starting ratings with no rated game (never provisional), its
    finished (casual) game with its seat, and its record, after a guest resigned
    against it."""
    r = await http.post("/api/games", json={"variant": "duel", "players": 2})
    game = r.json()["id"]
    assert (await http.post(f"/api/games/{game}/seats", json={"bot": "greedy"})).status_code == 201
    r = await http.post(f"/api/games/{game}/seats", json={"name": "Ann"})
    token = r.json()["token"]
    body = {"command_id": command_id(), "action": {"kind": "resign"}}
    r = await http.post(f"/api/games/{game}/commands", json=body, headers=auth(token))
    assert r.status_code == 200, r.text
    r = await http.get("/api/players/bot:greedy")
    assert r.status_code == 200, r.text
    profile = r.json()
    assert profile["username"] == "bot:greedy" and profile["bot"] is True
    start = {"rating": 1500, "games": 0, "opponents": 0, "provisional": False}
    assert profile["ratings"] == {"classic": start, "duel": start}
    assert profile["record"] == {"games": 1, "wins": 1}
    [summary] = profile["games"]
    assert (summary["id"], summary["seat"], summary["status"]) == (game, 0, "finished")
    refused(await http.get("/api/players/ann"), 404, "not_found")  # a guest has no profile
    # The lobby's lists give the bot's rating beside its name, none for the guest.
    [listed] = (await http.get("/api/games?status=finished")).json()["games"]
    assert [s.get("rating") for s in listed["seats"]] == [1500, None]


async def test_a_new_account_has_a_profile_at_the_start(http: httpx.AsyncClient) -> None:
    """An account that has played nothing: 200, its name as typed at sign-up (asked in
    any case), 1500, no games and provisional in each variant, an empty history."""
    r = await http.post("/api/accounts", json={"username": "NewKid", "password": "long enough pw"})
    assert r.status_code == 201, r.text
    r = await http.get("/api/players/newkid")
    assert r.status_code == 200, r.text
    profile = r.json()
    assert (profile["username"], profile["bot"], profile["games"]) == ("NewKid", False, [])
    start = {"rating": 1500, "games": 0, "opponents": 0, "provisional": True}
    assert profile["ratings"] == {"classic": start, "duel": start}
    assert profile["history"] == {"classic": [], "duel": []}
    assert profile["record"] == {"games": 0, "wins": 0}
