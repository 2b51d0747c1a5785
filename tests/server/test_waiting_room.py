"""An open game's waiting room over HTTP: a seated player fills seats with bots or
cancels the game (the abort action: GameAborted, reason "abort"), which leaves the
open list; a spectator can do neither of the seated player's acts."""

from __future__ import annotations

import httpx

from tests.server.helpers import auth, command_id


async def test_the_creator_fills_a_seat_with_a_bot_then_cancels_the_game(
    http: httpx.AsyncClient,
) -> None:
    """Seat 0 (the creator) is offered abort while the game is open; a bot takes a seat; abort makes the game aborted with GameAborted{reason: "abort", seat: 0}; it leaves the open list, and nothing more can be done in it."""
    game_id = (await http.post("/api/games", json={"variant": "classic", "players": 3})).json()[
        "id"
    ]
    token = (await http.post(f"/api/games/{game_id}/seats", json={"name": "Ana"})).json()["token"]
    base = f"/api/games/{game_id}"
    mine = (await http.get(f"{base}/view", headers=auth(token))).json()["view"]
    assert mine["status"] == "open" and {"kind": "abort"} in mine["legal"]
    assert (await http.get(f"{base}/view")).json()["view"]["legal"] == []

    bot = await http.post(f"{base}/seats", json={"bot": "random"})
    assert bot.status_code == 201 and bot.json()["seat"] == 1 and bot.json()["token"] is None
    listed = (await http.get("/api/games", params={"status": "open"})).json()["games"]
    assert game_id in [g["id"] for g in listed]

    cancel = {"command_id": command_id(), "action": {"kind": "abort"}}
    refused = await http.post(f"{base}/commands", json=cancel)
    assert refused.status_code == 401  # a spectator (no token) cannot cancel
    answer = await http.post(f"{base}/commands", json=cancel, headers=auth(token))
    assert answer.status_code == 200, answer.text

    summary = (await http.get(base)).json()
    assert summary["status"] == "aborted" and summary["result"] is None
    last = (await http.get(f"{base}/events")).json()["events"][-1]
    assert (last["type"], last["reason"], last["seat"]) == ("GameAborted", "abort", 0)
    open_now = (await http.get("/api/games", params={"status": "open"})).json()["games"]
    assert game_id not in [g["id"] for g in open_now]
    late = await http.post(f"{base}/seats", json={"name": "Ben"})
    assert late.status_code in (409, 422) and late.json()["code"] in ("game_over", "illegal_action")
