"""The HTTP half of the Python client: PROTOCOL.md's endpoints as coroutines."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from events.reasons import Reason


class ProtocolError(Exception):
    """The server refused a request; ``code`` is PROTOCOL.md's error code, ``message``
    its sentence (in the client's ``lang``), ``reason`` what was refused: a stable key
    and its arguments (docs/reasons.md), for a program to act on or word itself."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int | None = None,
        reason: Reason | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.reason = reason

    @property
    def key(self) -> str | None:
        """The reason's key (``"take_two.supply_short"``), None if the server gave none."""
        return None if self.reason is None else self.reason.key

    @classmethod
    def of(cls, body: Any, status: int | None = None, text: str = "") -> ProtocolError:
        """The error a server's error body (HTTP or a websocket's ``error``) stands for."""
        if not isinstance(body, dict):
            return cls("error", text, status)
        found = body.get("reason")
        reason = None
        if isinstance(found, dict) and isinstance(found.get("key"), str):
            args = found.get("args")
            reason = Reason(found["key"], args if isinstance(args, dict) else {})
        return cls(str(body.get("code", "error")), str(body.get("message", text)), status, reason)


class Seat:
    """A seat taken at a table: its number and the secret that acts for it."""

    def __init__(self, game_id: str, seat: int, token: str | None) -> None:
        self.game_id = game_id
        self.seat = seat
        self.token = token

    def __repr__(self) -> str:
        return f"Seat(game_id={self.game_id!r}, seat={self.seat})"


class SplendorHTTP:
    """Create, join and query games, and send commands, over HTTP. With ``lang``
    (``pl``...) the server's messages come in that language (``?lang=`` on every
    request); without, in the account's or English."""

    def __init__(
        self, base_url: str, *, client: httpx.AsyncClient | None = None, lang: str | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._client = client or httpx.AsyncClient(timeout=30.0)
        self._owns_client = client is None
        self.lang = lang

    async def __aenter__(self) -> SplendorHTTP:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    @property
    def session_cookie(self) -> str | None:
        """The logged-in session as a ``Cookie`` header, for a socket to carry (quick
        pairing's: ``client.pairing``), or None while logged out."""
        session = self._client.cookies.get("splendor_session")
        return None if session is None else f"splendor_session={session}"

    async def _request(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json: Any = None,
        params: dict[str, Any] | None = None,
    ) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if self.lang is not None:
            params = {**(params or {}), "lang": self.lang}
        response = await self._client.request(
            method, self.base_url + path, json=json, params=params, headers=headers
        )
        body = response.json() if response.content else None
        if response.status_code >= 400:
            raise ProtocolError.of(body, response.status_code, response.text)
        return body

    async def create_game(
        self,
        variant: str = "classic",
        players: int = 2,
        seed: int | None = None,
        clock: dict[str, int] | None = None,
        rated: bool = False,
    ) -> dict[str, Any]:
        """A new game; ``clock``: ``{"initial": s, "increment": s}`` or
        ``{"per_move": s}`` (PROTOCOL.md "Live matches"), untimed without. A
        ``rated`` game needs to be logged in (``log_in``), a clock and no seed."""
        body: dict[str, Any] = {"variant": variant, "players": players}
        if seed is not None:
            body["seed"] = seed
        if clock is not None:
            body["clock"] = clock
        if rated:
            body["rated"] = True
        game: dict[str, Any] = await self._request("POST", "/api/games", json=body)
        return game

    async def join(self, game_id: str, name: str | None = None) -> Seat:
        """Take a seat under ``name`` (a guest), or without one as the account this
        client is logged in to."""
        body = {} if name is None else {"name": name}
        answer = await self._request("POST", f"/api/games/{game_id}/seats", json=body)
        return Seat(game_id, answer["seat"], answer["token"])

    # ------------------------------------------------------------------ accounts

    async def sign_up(self, username: str, password: str) -> str:
        """Make an account and log this client in to it (docs/accounts.md)."""
        body = {"username": username, "password": password}
        answer = await self._request("POST", "/api/accounts", json=body)
        return str(answer["username"])

    async def log_in(self, username: str, password: str) -> str:
        """Log this client in (its session cookie is kept by its HTTP client)."""
        body = {"username": username, "password": password}
        answer = await self._request("POST", "/api/session", json=body)
        return str(answer["username"])

    async def log_out(self, everywhere: bool = False) -> None:
        """End this session, or every session of the account."""
        await self._request("DELETE", "/api/sessions" if everywhere else "/api/session")

    async def me(self) -> dict[str, Any] | None:
        """``{"username", "ratings", "language"}`` of the account logged in, None for a
        guest."""
        try:
            answer: dict[str, Any] = await self._request("GET", "/api/me")
        except ProtocolError as e:
            if e.status == 401:
                return None
            raise
        return answer

    async def set_language(self, language: str) -> str:
        """Keep ``language`` (``en``, ``es``, ``pl``, ``el``, ``is``, ``fa``) on the
        account logged in: its messages come in it where no ``lang`` is asked for."""
        body = {"language": language}
        answer = await self._request("PUT", "/api/me/language", json=body)
        return str(answer["language"])

    # ------------------------------------------------------------------ ratings

    async def player(self, username: str) -> dict[str, Any]:
        """A player's profile: an account (any case) or a bot level (``bot:greedy``):
        ratings per variant, their history, record, newest games (docs/ratings.md)."""
        profile: dict[str, Any] = await self._request("GET", f"/api/players/{username}")
        return profile

    async def leaderboard(self, variant: str = "classic", limit: int = 100) -> list[dict[str, Any]]:
        """The best ``limit`` players of a variant, best first: username, rating,
        games, bot."""
        path = f"/api/leaderboard/{variant}"
        answer = await self._request("GET", path, params={"limit": limit})
        players: list[dict[str, Any]] = answer["players"]
        return players

    async def add_bot(self, game_id: str, level: str) -> Seat:
        answer = await self._request("POST", f"/api/games/{game_id}/seats", json={"bot": level})
        return Seat(game_id, answer["seat"], answer.get("token"))

    async def rematch(self, seat: Seat) -> Seat:
        """Play the finished game of ``seat`` again: its seat in the rematch (made by
        the first seat to ask, joined by the others; the same answer when asked
        again)."""
        path = f"/api/games/{seat.game_id}/rematch"
        answer = await self._request("POST", path, token=seat.token)
        return Seat(answer["id"], answer["seat"], answer["token"])

    async def account_seat(self, game_id: str) -> Seat:
        """The seat this client's account holds in a game (a tournament's, a quick
        pairing's), with a new token for it: the one it replaces is refused from now on."""
        answer = await self._request("POST", f"/api/games/{game_id}/seat-token")
        return Seat(game_id, answer["seat"], answer["token"])

    # ------------------------------------------------------------------ tournaments

    async def create_tournament(
        self,
        kind: str,
        variant: str,
        clock: dict[str, int],
        *,
        starts_in_s: int | None = None,
        duration_min: int | None = None,
        rounds: int | None = None,
        name: str | None = None,
    ) -> dict[str, Any]:
        """A new tournament of the account logged in (docs/http-api.md "Tournaments"):
        its summary. ``duration_min`` is an arena's, ``rounds`` a Swiss's."""
        body: dict[str, Any] = {"kind": kind, "variant": variant, "clock": clock}
        extra = {
            "starts_in_s": starts_in_s,
            "duration_min": duration_min,
            "rounds": rounds,
            "name": name,
        }
        body.update({k: v for k, v in extra.items() if v is not None})
        answer = await self._request("POST", "/api/tournaments", json=body)
        summary: dict[str, Any] = answer["tournament"]
        return summary

    async def tournaments(self) -> dict[str, list[dict[str, Any]]]:
        """The upcoming, running and finished tournaments' summaries."""
        lists: dict[str, list[dict[str, Any]]] = await self._request("GET", "/api/tournaments")
        return lists

    async def tournament(self, tournament_id: str) -> dict[str, Any]:
        """A tournament's page: summary, standings, games, podium and ``you``."""
        page: dict[str, Any] = await self._request("GET", f"/api/tournaments/{tournament_id}")
        return page

    async def tournament_action(self, tournament_id: str, action: str) -> dict[str, Any]:
        """``join``, ``pause`` or ``leave`` a tournament as the account logged in: its
        part then (``{"joined", "paused", "left", "game_id"}``)."""
        answer = await self._request("POST", f"/api/tournaments/{tournament_id}/{action}")
        you: dict[str, Any] = answer["you"]
        return you

    async def tournament_of_game(self, game_id: str) -> dict[str, Any]:
        """The summary of the tournament a game belongs to (404 for another game)."""
        answer = await self._request("GET", f"/api/tournaments/of-game/{game_id}")
        summary: dict[str, Any] = answer["tournament"]
        return summary

    async def player_tournaments(self, username: str) -> list[dict[str, Any]]:
        """A player's tournaments, newest first, with their rank and points."""
        answer = await self._request("GET", f"/api/players/{username}/tournaments")
        entries: list[dict[str, Any]] = answer["tournaments"]
        return entries

    async def games(self, status: str = "live", limit: int = 20) -> list[dict[str, Any]]:
        answer = await self._request("GET", "/api/games", params={"status": status, "limit": limit})
        games: list[dict[str, Any]] = answer["games"]
        return games

    async def game(self, game_id: str) -> dict[str, Any]:
        summary: dict[str, Any] = await self._request("GET", f"/api/games/{game_id}")
        return summary

    async def view(
        self, game_id: str, *, version: int | None = None, token: str | None = None
    ) -> dict[str, Any]:
        params = {"version": version} if version is not None else None
        answer = await self._request(
            "GET", f"/api/games/{game_id}/view", token=token, params=params
        )
        view: dict[str, Any] = answer["view"]
        return view

    async def events(
        self, game_id: str, *, after: int = 0, token: str | None = None
    ) -> list[dict[str, Any]]:
        answer = await self._request(
            "GET", f"/api/games/{game_id}/events", token=token, params={"after": after}
        )
        events: list[dict[str, Any]] = answer["events"]
        return events

    async def chat(
        self, game_id: str, room: str = "spectators", *, token: str | None = None
    ) -> list[dict[str, Any]]:
        """A chat room's kept messages, oldest first (docs/chat.md): ``players`` with a
        seat's token, ``spectators`` without (or with one once the game is over)."""
        answer = await self._request(
            "GET", f"/api/games/{game_id}/chat", token=token, params={"room": room}
        )
        messages: list[dict[str, Any]] = answer["messages"]
        return messages

    async def command(
        self,
        seat: Seat,
        action: dict[str, Any],
        *,
        command_id: str | None = None,
        expected_version: int | None = None,
    ) -> int:
        """Send one action for ``seat``; the version the game reached, or ProtocolError."""
        body: dict[str, Any] = {"command_id": command_id or uuid.uuid4().hex, "action": action}
        if expected_version is not None:
            body["expected_version"] = expected_version
        answer = await self._request(
            "POST", f"/api/games/{seat.game_id}/commands", token=seat.token, json=body
        )
        version: int = answer["version"]
        return version

    async def catalog(self, variant: str = "classic") -> dict[str, Any]:
        catalog: dict[str, Any] = await self._request("GET", f"/api/catalog/{variant}")
        return catalog
