"""E-mail against a real SMTP server (aiosmtpd on 127.0.0.1) and the session's Redis
(docs/email.md): the address and its verification link, the e-mails of a
correspondence game's turns (the move, the reminder, the hour's bound), the one-click
unsubscribe, the tournament's announcement, bad input on the new routes, and nothing
at all without ``SPLENDOR_SMTP_URL``. The worker runs one turn at a time at the
``now`` each test gives it: nothing sleeps."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from events import clock as clocks
from events.base import TimeControl
from events.tournament.log import PlayerJoined, TournamentCreated
from server.common.errors import ServiceError
from server.common.settings import Settings, SettingsError
from server.mail.addresses import RESEND_MS, Addresses, EmailRecord
from server.mail.mail import (
    HOUR_MS,
    NOTICE_LEASE_MS,
    Mail,
    announce_tournament,
    now_ms,
    reminder_lead_ms,
)
from server.mail.outbox import Message
from server.mail.smtp import SmtpServer, send
from server.mail.worker import MailWorker
from server.store.availability import StoreUnavailable
from server.store.keys import MAIL_CLAIMED_KEY, MAIL_NOTICES_KEY, account_email_key
from server.tournaments.announcements import mail_announcer
from server.tournaments.record import TournamentRecord
from server.web.app import create_app
from server.web.state import running
from tests.mail_helpers import Received, Sink, free_port, smtp_server
from tests.ratings.helpers import opening_move
from tests.server.helpers import refused
from tests.server.test_metrics import samples
from tests.server.ws_helpers import live_server

PASSWORD = "Tr0ub4dor&3-quite-long"
SITE = "http://splendor.test"
DAY = 86_400
_commands = itertools.count()


@pytest.fixture
def smtp() -> Iterator[tuple[Sink, str]]:
    with smtp_server() as started:
        yield started


@pytest.fixture
def sink(smtp: tuple[Sink, str]) -> Sink:
    return smtp[0]


@asynccontextmanager
async def app_with(settings: Settings) -> AsyncIterator[Starlette]:
    application = create_app(settings, plugins=False)
    async with application.router.lifespan_context(application):
        await running(application).service.listing.ready()
        yield application


@pytest.fixture
async def app(
    redis_client: aioredis.Redis, redis_server: str, smtp: tuple[Sink, str]
) -> AsyncIterator[Starlette]:
    """The app with SPLENDOR_SMTP_URL on the test's SMTP server (no worker running:
    the tests run its turns)."""
    settings = Settings(
        redis_url=redis_server, smtp_url=smtp[1], public_url=SITE, mail_from="game@splendor.test"
    ).without_rate_limits()
    async with app_with(settings) as application:
        yield application


@pytest.fixture
def worker(app: Starlette) -> MailWorker:
    now = running(app)
    assert now.mail is not None
    return MailWorker(now.mail, now.service)


@asynccontextmanager
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the app with a cookie jar of its own (one player)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=SITE) as http:
        yield http


async def signed_up(http: httpx.AsyncClient, username: str) -> None:
    r = await http.post("/api/accounts", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text


def link_of(received: Received, path: str) -> str:
    [link] = [link for link in received.links() if urlsplit(link).path == path]
    return link


def token_of(link: str) -> str:
    return parse_qs(urlsplit(link).query)["token"][0]


async def verified(http: httpx.AsyncClient, worker: MailWorker, sink: Sink, address: str) -> None:
    """The account of ``http`` holds ``address``, verified through its e-mailed link."""
    r = await http.put("/api/me/email", json={"address": address})
    assert r.status_code == 200, r.text
    await worker.turn(now_ms())
    link = link_of(sink.to(address)[-1], "/mail/verify")
    r = await http.get(link.removeprefix(SITE))
    assert r.status_code == 200, r.text


@dataclass
class Game:
    id: str
    tokens: dict[str, str]  # username -> seat token


async def correspondence_game(players: dict[str, httpx.AsyncClient], per_move: int = DAY) -> Game:
    """A 2-player classic game at ``per_move`` seconds a move, its seats the accounts
    of ``players`` (in order), started."""
    first = next(iter(players.values()))
    body = {"variant": "classic", "players": 2, "clock": {"per_move": per_move}}
    r = await first.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    game = Game(r.json()["id"], {})
    for name, http in players.items():
        r = await http.post(f"/api/games/{game.id}/seats", json={})
        assert r.status_code == 201, r.text
        game.tokens[name] = r.json()["token"]
    return game


async def deadline_of(app: Starlette, game: Game) -> int:
    """When the player to move runs out of time (ms)."""
    repository = running(app).service.repository
    lock = repository.lock(game.id)
    async with lock:
        state = (await repository.get(game.id, lock)).state
    due = clocks.deadline(state.clock)
    assert due is not None
    return due


async def to_move(http: httpx.AsyncClient, game: Game) -> str:
    """The username whose move it is."""
    r = await http.get(f"/api/games/{game.id}/view")
    seat = r.json()["view"]["turn"]["seat"]
    return list(game.tokens)[seat]


async def play(http: httpx.AsyncClient, game: Game, username: str) -> None:
    """``username`` plays an opening move (it must be theirs)."""
    headers = {"Authorization": f"Bearer {game.tokens[username]}"}
    r = await http.get(f"/api/games/{game.id}/view", headers=headers)
    move = opening_move(r.json()["view"]["legal"])
    body = {"command_id": f"m{next(_commands)}", "action": move}
    r = await http.post(f"/api/games/{game.id}/commands", json=body, headers=headers)
    assert r.status_code == 200, r.text


ADDRESSES = {"Ana_1": "ana@example.org", "Bo_2": "bo@example.net", "Cy_3": "cy@example.com"}


@asynccontextmanager
async def players(
    app: Starlette, worker: MailWorker, sink: Sink, *names: str
) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
    """Signed-up accounts with verified addresses (``ADDRESSES``), one client each;
    the verification e-mails cleared from the sink."""
    async with contextlib_clients(app, len(names)) as https:
        held = dict(zip(names, https, strict=True))
        for name, http in held.items():
            await signed_up(http, name)
            await verified(http, worker, sink, ADDRESSES[name])
        sink.received.clear()
        yield held


@asynccontextmanager
async def contextlib_clients(app: Starlette, n: int) -> AsyncIterator[list[httpx.AsyncClient]]:
    if n == 0:
        yield []
        return
    async with client(app) as first, contextlib_clients(app, n - 1) as rest:
        yield [first, *rest]


# ---------------------------------------------------------------------- the address


async def test_an_address_is_verified_by_its_link_once(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """PUT /api/me/email queues a verification e-mail to that address; its link verifies it (GET /api/me/email says so); the link works once, a wrong one never."""
    async with client(app) as http:
        await signed_up(http, "Ana_1")
        r = await http.put("/api/me/email", json={"address": "Ana@Example.ORG"})
        assert r.status_code == 200
        assert r.json() == {
            "enabled": True,
            "address": "Ana@example.org",
            "verified": False,
            "notify": True,
        }
        assert sink.received == []  # queued, not sent: the worker sends it
        await worker.turn(now_ms())
        [mail] = sink.received
        assert mail.recipients == ["Ana@example.org"] and mail.sender == "game@splendor.test"
        assert "List-Unsubscribe" not in mail.message  # asked for: nothing to unsubscribe
        link = link_of(mail, "/mail/verify")
        assert link.startswith(f"{SITE}/mail/verify?token=ana_1.")
        page = await http.get(link.removeprefix(SITE))
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert (await http.get("/api/me/email")).json()["verified"] is True
        again = await http.get(link.removeprefix(SITE))
        assert again.status_code == 404 and 'data-code="not_found"' in again.text
        r = await http.post("/api/email/verify", json={"token": token_of(link)})
        refused(r, 404, "not_found")
        assert r.json()["reason"]["key"] == "email.link_unknown"
        r = await http.post("/api/email/verify", json={"token": "ana_1.forged"})
        refused(r, 404, "not_found")


async def test_a_link_opened_twice_says_the_address_may_be_verified_already(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """The verification link opened a second time (by its reader after a mail scanner, or twice) is refused, and its page says that a link opened once already has verified the address."""
    async with client(app) as http:
        await signed_up(http, "Ana_1")
        await verified(http, worker, sink, "ana@example.org")
        link = link_of(sink.to("ana@example.org")[-1], "/mail/verify")
        again = await http.get(link.removeprefix(SITE))
        assert again.status_code == 404 and 'data-code="not_found"' in again.text
        assert "your address is verified" in again.text
        assert (await http.get("/api/me/email")).json()["verified"] is True


async def test_an_expired_or_replaced_link_is_refused(
    app: Starlette, worker: MailWorker, sink: Sink, redis_client: aioredis.Redis
) -> None:
    """A link past its 24 hours is refused (not_found, email.link_expired) and verifies nothing; a new address makes the old link unknown; resending gives a new link and is bounded to one a minute (429)."""
    async with client(app) as http:
        await signed_up(http, "Ana_1")
        await http.put("/api/me/email", json={"address": "ana@example.org"})
        await worker.turn(now_ms())
        old = token_of(link_of(sink.received[-1], "/mail/verify"))
        # The link's time passes: its expiry is set in the past, as 24 hours would.
        await redis_client.hset(account_email_key("Ana_1"), "expires", now_ms() - 1)
        r = await http.post("/api/email/verify", json={"token": old})
        refused(r, 404, "not_found")
        assert r.json()["reason"]["key"] == "email.link_expired"
        assert (await http.get("/api/me/email")).json()["verified"] is False
        r = await http.post("/api/me/email/verification")
        refused(r, 429, "rate_limited")  # the first e-mail was just sent
        await redis_client.hset(account_email_key("Ana_1"), "sent", now_ms() - RESEND_MS)
        r = await http.post("/api/me/email/verification")
        assert r.status_code == 202, r.text
        await worker.turn(now_ms())
        new = token_of(link_of(sink.received[-1], "/mail/verify"))
        assert new != old
        await redis_client.hset(account_email_key("Ana_1"), "sent", now_ms() - RESEND_MS)
        await http.put("/api/me/email", json={"address": "ana@example.net"})
        r = await http.post("/api/email/verify", json={"token": new})  # replaced
        refused(r, 404, "not_found")
        assert r.json()["reason"]["key"] == "email.link_unknown"


async def test_verification_emails_are_one_a_minute_whatever_the_address(
    app: Starlette, worker: MailWorker, sink: Sink, redis_client: aioredis.Redis
) -> None:
    """An account's verification e-mails are at most one a minute, whichever address: a new address, or the old one after a removal, within the minute is refused (429) and sends nothing, so alternating addresses can't flood one."""
    async with client(app) as http:
        await signed_up(http, "Ana_1")
        r = await http.put("/api/me/email", json={"address": "victim@example.org"})
        assert r.status_code == 200, r.text
        refused(
            await http.put("/api/me/email", json={"address": "ana@example.net"}),
            429,
            "rate_limited",
        )
        assert (await http.delete("/api/me/email")).status_code == 204
        r = await http.put("/api/me/email", json={"address": "victim@example.org"})
        refused(r, 429, "rate_limited")
        assert int(r.headers["retry-after"]) >= 1
        await worker.turn(now_ms())
        assert [m.recipients for m in sink.received] == [["victim@example.org"]]
        await redis_client.hset(account_email_key("Ana_1"), "sent", now_ms() - RESEND_MS)
        r = await http.put("/api/me/email", json={"address": "ana@example.net"})
        assert r.status_code == 200 and r.json()["address"] == "ana@example.net"


class RacedAddresses(Addresses):
    """Addresses whose next read is followed, before its caller writes, by ``race``:
    another request of the same account landing between the two."""

    race: Callable[[], Awaitable[object]] | None = None

    async def get(self, username: str) -> EmailRecord:
        record = await super().get(username)
        race, self.race = self.race, None
        if race is not None:
            await race()
        return record


async def test_a_resent_link_never_verifies_an_address_set_meanwhile(
    app: Starlette, redis_client: aioredis.Redis
) -> None:
    """A new address set between a resend's read and its write is not given the resend's token (which goes to the old address): the resend is refused and the new address stays unverified."""
    async with client(app) as http:
        await signed_up(http, "Ana_1")
        start = now_ms()
        addresses = RacedAddresses(redis_client)
        assert await addresses.set("Ana_1", "ana@example.org", start) is not None
        later = start + RESEND_MS
        other = Addresses(redis_client)
        addresses.race = lambda: other.set("Ana_1", "victim@example.net", later)
        with pytest.raises(ServiceError) as refused:
            await addresses.renew("Ana_1", later)
        assert refused.value.code == "rate_limited"
        record = await addresses.get("Ana_1")
        assert (record.address, record.verified) == ("victim@example.net", False)


async def test_bad_requests_on_the_address_routes_change_nothing(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """Each class of bad request to the address routes gets its PROTOCOL.md code (401 logged out, 403 another site, 400 malformed, unknown field, wrong type or bad address, 409 nothing to verify or no address) and changes nothing."""
    async with client(app) as http:
        refused(await http.get("/api/me/email"), 401, "unauthorized")
        refused(await http.put("/api/me/email", json={"address": "a@b.org"}), 401, "unauthorized")
        await signed_up(http, "Ana_1")
        other_site = {"Origin": "https://evil.example"}
        for method, path in [
            ("PUT", "/api/me/email"),
            ("DELETE", "/api/me/email"),
            ("POST", "/api/me/email/verification"),
            ("PUT", "/api/me/email/notify"),
        ]:
            r = await http.request(method, path, json={"address": "a@b.org"}, headers=other_site)
            refused(r, 403, "unauthorized")
        bodies: list[Any] = [
            b"{not json",
            {"address": "ana@example.org", "cc": "x@y.org"},
            {"address": 7},
            {},
            {"address": "no-at-sign"},
            {"address": "ana@localhost"},
            {"address": "a b@example.org"},
            {"address": "ana@example.org\r\nBcc: all@example.org"},
            {"address": "<ana@example.org>"},
            {"address": "anä@example.org"},
            {"address": "a\x01b@example.org"},
            {"address": "x" * 250 + "@example.org"},
        ]
        for body in bodies:
            if isinstance(body, bytes):
                r = await http.put("/api/me/email", content=body)
            else:
                r = await http.put("/api/me/email", json=body)
            refused(r, 400, "bad_request")
        refused(await http.put("/api/me/email/notify", json={"notify": "yes"}), 400, "bad_request")
        refused(await http.post("/api/email/verify", json={"token": 5}), 400, "bad_request")
        refused(await http.post("/api/me/email/verification"), 409, "conflict")
        refused(await http.put("/api/me/email/notify", json={"notify": False}), 409, "conflict")
        assert (await http.get("/api/me/email")).json() == {
            "enabled": True,
            "address": None,
            "verified": False,
            "notify": True,
        }
        await worker.turn(now_ms())
        assert sink.received == []


async def test_the_address_is_never_shown_to_others_and_goes_with_the_account(
    app: Starlette, worker: MailWorker, sink: Sink, redis_client: aioredis.Redis
) -> None:
    """Another player's profile, a game's summary and views never hold the address; deleting the account deletes it."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        game = await correspondence_game(held)
        bo = held["Bo_2"]
        for path in [
            "/api/players/Ana_1",
            f"/api/games/{game.id}",
            f"/api/games/{game.id}/view",
            f"/api/games/{game.id}/events",
        ]:
            r = await bo.get(path)
            assert r.status_code == 200, (path, r.text)
            assert "ana@example.org" not in r.text
        assert await redis_client.exists(account_email_key("Ana_1"))
        r = await held["Ana_1"].request("DELETE", "/api/me", json={"password": PASSWORD})
        assert r.status_code == 204
        assert not await redis_client.exists(account_email_key("Ana_1"))


# ---------------------------------------------------------------------- the turns


async def test_the_player_to_move_gets_one_email_with_the_tables_link(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """In a correspondence game, the player the move passes to gets one e-mail (in their language) naming whom they play against, with the table's link and RFC 8058's unsubscribe headers; the other gets none; the next turn goes to the other player's address."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        r = await held["Bo_2"].put("/api/me/language", json={"language": "es"})
        assert r.status_code == 200
        game = await correspondence_game(held)
        mover = await to_move(held["Ana_1"], game)
        other = "Bo_2" if mover == "Ana_1" else "Ana_1"
        await worker.turn(now_ms())
        await worker.turn(now_ms())  # nothing more: one e-mail a turn
        [mail] = sink.received
        assert mail.recipients == [ADDRESSES[mover]]
        assert f"{SITE}/#/play/{game.id}" in mail.links()
        assert mail.subject == f"Your move against {other} in game {game.id}" or (
            mail.subject == f"Te toca mover contra {other} en la partida {game.id}"
        )
        unsubscribe = mail.message["List-Unsubscribe"]
        assert unsubscribe.startswith(f"<{SITE}/mail/unsubscribe?token=")
        assert mail.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        await play(held[mover], game, mover)
        await worker.turn(now_ms())
        assert [m.recipients for m in sink.received] == [[ADDRESSES[mover]], [ADDRESSES[other]]]
        spanish = sink.received[-1] if other == "Bo_2" else sink.received[0]
        assert spanish.subject.startswith("Te toca")


async def test_a_reminder_comes_before_the_time_runs_out(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """A reminder is sent once, when 3 hours of a day's move are left (not before), and none once the move is played."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        game = await correspondence_game(held)
        mover = await to_move(held["Ana_1"], game)
        await worker.turn(now_ms())
        assert len(sink.received) == 1
        deadline = await deadline_of(app, game)
        lead = reminder_lead_ms(DAY * 1000)
        assert lead == 3 * HOUR_MS
        await worker.turn(deadline - lead - 1)  # not yet
        assert len(sink.received) == 1
        await worker.turn(deadline - lead)
        [_, reminder] = sink.received
        assert reminder.recipients == [ADDRESSES[mover]]
        assert reminder.subject.startswith("Reminder: your move")
        await worker.turn(deadline - lead + 60_000)
        assert len(sink.received) == 2
        # The move played, the turns go on: the other's reminder is dropped when it
        # falls due (the turn is over), the mover's next one comes.
        other = "Bo_2" if mover == "Ana_1" else "Ana_1"
        await play(held[mover], game, mover)
        await worker.turn(now_ms())
        await play(held[other], game, other)
        await worker.turn(now_ms())
        assert [m.recipients for m in sink.received[2:]] == [[ADDRESSES[other]], [ADDRESSES[mover]]]
        assert not sink.received[3].subject.startswith("Reminder")
        await worker.turn(await deadline_of(app, game) - lead)
        assert [m.recipients for m in sink.received[4:]] == [[ADDRESSES[mover]]]
        assert sink.received[4].subject.startswith("Reminder")


async def test_a_notice_whose_taker_died_is_emailed_after_its_lease_once(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """Notices taken by a process that died before queueing their e-mail come due again when their lease runs out: the player gets the move's e-mail then, once."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        game = await correspondence_game(held)
        mover = await to_move(held["Ana_1"], game)
        mail = running(app).mail
        assert mail is not None
        start = now_ms()
        # What the process that died did: it took the notices due, and queued nothing.
        elsewhere = Mail(mail.client, mail.settings, mail.accounts)
        [taken] = await elsewhere._take(keys=[MAIL_NOTICES_KEY], args=[start, 100, NOTICE_LEASE_MS])
        assert game.id in (taken.decode() if isinstance(taken, bytes) else taken)
        await worker.turn(start + NOTICE_LEASE_MS - 1)  # still its
        assert sink.received == []
        await worker.turn(start + NOTICE_LEASE_MS)
        [move] = sink.received
        assert move.recipients == [ADDRESSES[mover]] and game.id in move.subject
        await worker.turn(start + 2 * NOTICE_LEASE_MS)
        await worker.turn(start + 3 * NOTICE_LEASE_MS)
        assert len(sink.received) == 1


async def test_an_account_gets_at_most_one_email_an_hour_the_rest_folded(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """With the move in three games at once, a player gets one e-mail now, none within the hour, and one at the hour's end folding the other two games."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        games = [await correspondence_game(held) for _ in range(3)]
        for game in games:  # Bo to move in each
            if await to_move(held["Ana_1"], game) == "Ana_1":
                await play(held["Ana_1"], game, "Ana_1")
        await worker.turn(now_ms())
        sink.received.clear()
        start = now_ms() + 2 * HOUR_MS  # any hour of the setup's e-mails is over
        await play(held["Bo_2"], games[0], "Bo_2")
        await worker.turn(start)
        assert len(sink.to(ADDRESSES["Ana_1"])) == 1
        await play(held["Bo_2"], games[1], "Bo_2")
        await worker.turn(start + 10 * 60_000)
        await play(held["Bo_2"], games[2], "Bo_2")
        await worker.turn(start + 20 * 60_000)
        await worker.turn(start + HOUR_MS - 1)
        assert len(sink.to(ADDRESSES["Ana_1"])) == 1
        await worker.turn(start + HOUR_MS)
        first, folded = sink.to(ADDRESSES["Ana_1"])
        assert games[0].id in first.subject
        assert folded.subject == "Your move in 2 games"
        assert games[1].id in folded.body and games[2].id in folded.body
        assert f"Game {games[1].id} against Bo_2, until" in folded.body
        assert games[0].id not in folded.body
        await worker.turn(start + 2 * HOUR_MS)
        assert len(sink.to(ADDRESSES["Ana_1"])) == 2


async def test_a_notice_written_again_elsewhere_drops_no_other_games_email(
    app: Starlette, worker: MailWorker, sink: Sink, redis_client: aioredis.Redis
) -> None:
    """A turn's notice written again by another process (its hook after another append of the turn), once e-mailed, is folded out: the other game's e-mail waiting with it at the hour's end is still sent."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        x, y = [await correspondence_game(held) for _ in range(2)]
        for game in (x, y):  # Bo to move in each
            if await to_move(held["Ana_1"], game) == "Ana_1":
                await play(held["Ana_1"], game, "Ana_1")
        await worker.turn(now_ms())
        sink.received.clear()
        start = now_ms() + 2 * HOUR_MS  # any hour of the setup's e-mails is over
        await play(held["Bo_2"], x, "Bo_2")
        await play(held["Ana_1"], x, "Ana_1")
        await worker.turn(start)
        [first] = sink.to(ADDRESSES["Bo_2"])
        assert x.id in first.subject
        # Another process's hook sees the same turn of x and writes its notices again.
        now = running(app)
        assert now.mail is not None
        elsewhere = Mail(now.redis, now.mail.settings, now.accounts)
        repository = now.service.repository
        lock = repository.lock(x.id)
        async with lock:
            await elsewhere.turn_passed(await repository.get(x.id, lock))
        await worker.turn(start + 60_000)
        await play(held["Bo_2"], y, "Bo_2")
        await play(held["Ana_1"], y, "Ana_1")
        await worker.turn(start + 10 * 60_000)
        assert len(sink.to(ADDRESSES["Bo_2"])) == 1
        await worker.turn(start + HOUR_MS)
        [_, folded] = sink.to(ADDRESSES["Bo_2"])
        assert y.id in folded.subject and x.id not in folded.body


class ZaddFailsOnce:
    """A Redis client whose first ZADD fails as an unreachable Redis does."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def zadd(self, *args: Any, **kwargs: Any) -> Any:
        if not self.failed:
            self.failed = True
            raise StoreUnavailable("Redis went away")
        return await self._client.zadd(*args, **kwargs)


async def test_a_turns_notices_not_written_are_written_at_its_next_append(
    app: Starlette, worker: MailWorker, sink: Sink, redis_client: aioredis.Redis
) -> None:
    """A process whose write of a turn's notices failed writes them at the turn's next append (it does not count the turn as noted), so the player is still e-mailed."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        game = await correspondence_game(held)
        await redis_client.delete(MAIL_NOTICES_KEY)  # as if no process had written them
        now = running(app)
        assert now.mail is not None
        elsewhere = Mail(now.redis, now.mail.settings, now.accounts)
        elsewhere.client = ZaddFailsOnce(now.redis)  # type: ignore[assignment]
        repository = now.service.repository
        lock = repository.lock(game.id)
        async with lock:
            record = await repository.get(game.id, lock)
        with pytest.raises(StoreUnavailable):
            await elsewhere.turn_passed(record)
        await elsewhere.turn_passed(record)  # the turn's next append
        assert await redis_client.zcard(MAIL_NOTICES_KEY) == 2
        await worker.turn(now_ms())
        assert len(sink.received) == 1


async def test_the_unsubscribe_link_turns_the_emails_off(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """The unsubscribe link's GET only shows a button; its one-click POST (RFC 8058) turns the e-mails off: no e-mail at the next turns; a forged token is refused; the account menu turns them on again."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        game = await correspondence_game(held)
        mover = await to_move(held["Ana_1"], game)
        await worker.turn(now_ms())
        [mail] = sink.received
        url = mail.message["List-Unsubscribe"].strip("<>")
        assert url in mail.links()
        path = url.removeprefix(SITE)
        async with client(app) as stranger:  # a mail program: no session
            page = await stranger.get(path)
            assert page.status_code == 200 and "<form" in page.text
            assert (await held[mover].get("/api/me/email")).json()["notify"] is True
            forged = path[:-4] + "0000"
            r = await stranger.post(forged, content=b"List-Unsubscribe=One-Click")
            assert r.status_code == 404 and 'data-code="not_found"' in r.text
            r = await stranger.post(
                path,
                content=b"List-Unsubscribe=One-Click",
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
            assert r.status_code == 200
        assert (await held[mover].get("/api/me/email")).json()["notify"] is False
        other = "Bo_2" if mover == "Ana_1" else "Ana_1"
        await play(held[mover], game, mover)
        await play(held[other], game, other)
        await worker.turn(now_ms() + 2 * HOUR_MS)
        assert sink.to(ADDRESSES[mover]) == [mail]
        r = await held[mover].put("/api/me/email/notify", json={"notify": True})
        assert r.status_code == 200 and r.json()["notify"] is True


async def test_an_unsubscribe_token_that_is_not_ascii_is_refused(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """An unsubscribe link whose signature holds a character that is not ASCII is a wrong token (404 not_found), on its GET and its POST, and changes nothing."""
    async with players(app, worker, sink, "Ana_1") as held, client(app) as stranger:
        path = "/mail/unsubscribe?token=ana_1.%C3%A9t%C3%A9"
        for method in ("GET", "POST"):
            r = await stranger.request(method, path, content=b"List-Unsubscribe=One-Click")
            assert r.status_code == 404 and 'data-code="not_found"' in r.text
        assert (await held["Ana_1"].get("/api/me/email")).json()["notify"] is True


async def test_an_unsubscribe_post_past_the_body_limit_is_refused_unread(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """The one-click unsubscribe POST, which takes no session, refuses a body past the server's limit (400 bad_request) and changes nothing, as every other route does."""
    async with players(app, worker, sink, "Ana_1") as held:
        mail = running(app).mail
        assert mail is not None
        path = f"/mail/unsubscribe?token={await mail.unsubscribe_token('Ana_1')}"
        limit = mail.settings.max_body_bytes
        async with client(app) as stranger:
            r = await stranger.post(path, content=b"x" * (limit + 1))
            assert r.status_code == 400 and 'data-code="bad_request"' in r.text
        assert (await held["Ana_1"].get("/api/me/email")).json()["notify"] is True


async def test_the_pages_of_the_links_are_in_the_readers_language_and_styled(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """The unsubscribe page's button and every link page's way home are in the reader's language (here Spanish), and each page takes the site's stylesheet."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        game = await correspondence_game(held)
        await to_move(held["Ana_1"], game)
        await worker.turn(now_ms())
        url = sink.received[-1].message["List-Unsubscribe"].strip("<>")
        async with client(app) as stranger:
            spanish = {"Accept-Language": "es"}
            asking = await stranger.get(url.removeprefix(SITE), headers=spanish)
            refused_link = await stranger.get("/mail/verify?token=ana_1.x", headers=spanish)
            done = await stranger.post(
                url.removeprefix(SITE), content=b"List-Unsubscribe=One-Click", headers=spanish
            )
        for page in (asking, refused_link, done):
            assert 'lang="es"' in page.text
            assert ">Ir a Splendor</a>" in page.text
            assert '<link rel="stylesheet" href="/style.css">' in page.text
        assert ">Desactivar los correos</button>" in asking.text


async def test_a_tournaments_start_is_announced_once_to_verified_players(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """announce_tournament queues one e-mail to each joined account with a verified address and e-mails on, never twice for one tournament and account."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held, client(app) as cy:
        await signed_up(cy, "Cy_3")
        await cy.put("/api/me/email", json={"address": ADDRESSES["Cy_3"]})  # not verified
        await held["Bo_2"].put("/api/me/email/notify", json={"notify": False})
        await worker.turn(now_ms())
        sink.received.clear()
        mail = running(app).mail
        assert mail is not None
        starts = now_ms() + HOUR_MS
        joined = ["Ana_1", "Bo_2", "Cy_3", "Nobody_9"]
        name = "Friday\r\nBcc: x@y.org Duel"
        queued = await announce_tournament(
            mail, tournament_id="t7", name=name, starts_ms=starts, accounts=joined
        )
        assert queued == 1
        again = await announce_tournament(
            mail, tournament_id="t7", name=name, starts_ms=starts, accounts=joined
        )
        assert again == 0
        await worker.turn(now_ms())
        [announced] = sink.received
        assert announced.recipients == [ADDRESSES["Ana_1"]]
        assert announced.subject == "The tournament Friday Bcc: x@y.org Duel starts"
        assert f"{SITE}/#/tournament/t7" in announced.links()


async def test_a_made_up_tournament_name_is_announced_in_the_readers_words(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """A tournament without a name (given none, or scheduled) is announced under a name in the reader's words ("Arena Splendor Duel 3+2" in Spanish); a name a player gave is kept as given."""
    async with players(app, worker, sink, "Ana_1", "Bo_2") as held:
        r = await held["Bo_2"].put("/api/me/language", json={"language": "es"})
        assert r.status_code == 200, r.text
        mail = running(app).mail
        assert mail is not None
        announce = mail_announcer(mail)
        starts = now_ms() + HOUR_MS
        clock = TimeControl(initial=180, increment=2)
        for tid, name in (("t8", ""), ("t9", "Friday duels")):
            record = TournamentRecord(tid, {"name": name})
            created = TournamentCreated(tid, "arena", "duel", clock, starts, duration_ms=600_000)
            record.apply_event(created, 1)
            for version, player in enumerate(("Ana_1", "Bo_2"), start=2):
                record.apply_event(PlayerJoined(player, 1500.0, starts - 1), version)
            await announce(record)
        await worker.turn(now_ms())
        subjects = sorted(m.subject for m in sink.received)
        assert subjects == [
            "Empieza el torneo Arena Splendor Duel 3+2",
            "Empieza el torneo Friday duels",
            "The tournament Friday duels starts",
            "The tournament Splendor Duel 3+2 Arena starts",
        ]


# ---------------------------------------------------------------------- sending


async def test_a_refused_data_is_retried_with_backoff_and_a_permanent_one_dropped(
    app: Starlette, worker: MailWorker, sink: Sink
) -> None:
    """A 451 reply to DATA queues the message again for 30 s later, then it is sent once; a 550 reply settles it failed, never retried."""
    async with client(app) as http:
        await signed_up(http, "Ana_1")
        sink.refuse("451 4.3.0 try again later")
        await http.put("/api/me/email", json={"address": "ana@example.org"})
        start = now_ms()
        await worker.turn(start)
        assert sink.received == [] and sink.data_seen == 1
        await worker.turn(start + 29_000)
        assert sink.received == []
        await worker.turn(start + 30_000)
        assert len(sink.received) == 1
        await worker.turn(start + 3_600_000)
        assert len(sink.received) == 1
        mail = running(app).mail
        assert mail is not None
        sink.refuse("550 5.1.1 no such user")
        async with client(app) as other:
            await signed_up(other, "Bo_2")
            await other.put("/api/me/email", json={"address": "bo@example.org"})
        await worker.turn(now_ms())
        await worker.turn(now_ms() + 3_600_000)
        assert len(sink.received) == 1
        states = sorted(s["s"] for s in (await mail.outbox.states()).values())
        assert states == ["failed", "sent"]


def connections_to(port: int) -> int:
    """How many TCP connections to ``port`` are still open on this side (established,
    or closed by the server only): /proc/net/tcp's states 01 and 08."""
    count = 0
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            remote_port = int(fields[2].split(":")[1], 16)
            count += remote_port == port and fields[3] in ("01", "08")
    return count


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads /proc/net/tcp")
async def test_a_mark_that_fails_on_redis_closes_the_smtp_connection(
    smtp: tuple[Sink, str],
) -> None:
    """When the outbox's mark before DATA fails (Redis unreachable), the send raises it and leaves no SMTP connection open (the reaper gives the message back)."""

    async def fails() -> bool:
        assert connections_to(server.port) == 1  # the connection the send holds
        raise StoreUnavailable("Redis went away")

    server = SmtpServer.of(smtp[1])
    with pytest.raises(StoreUnavailable):
        await send(server, "site@example.org", "ana@example.org", b"x", fails)
    await asyncio.sleep(0)  # the loop closes the transport's socket
    assert connections_to(server.port) == 0


async def test_a_lease_runs_from_its_claim_not_from_the_turns_start(
    app: Starlette, sink: Sink, redis_client: aioredis.Redis
) -> None:
    """When a worker turn's earlier work took longer than a lease (slow sends), the message it claims next is leased from the claim: another process reaping at that moment does not take it back."""
    now = running(app)
    mail = now.mail
    assert mail is not None
    ticks = itertools.count()
    # Each read of the worker's clock is 200 s after the last: the turn's work before
    # the claim took longer than the 120 s lease.
    slow = MailWorker(mail, now.service, monotonic=lambda: next(ticks) * 200.0)
    start = now_ms()
    await mail.outbox.put(
        Message(mail.sender, "ana@example.org", "Subject: x\r\n\r\nx\r\n", "verify"), start
    )
    sink.stall()
    turn = asyncio.ensure_future(slow.turn(start))
    try:
        assert await asyncio.to_thread(sink.arrived.wait, 30)
        [(ident, state)] = (await mail.outbox.states()).items()
        assert state["s"] == "data"
        lease_end = await redis_client.zscore(MAIL_CLAIMED_KEY, ident)
        assert lease_end is not None and lease_end >= start + 200_000 + slow.lease_ms
    finally:
        sink.release()
        await turn


async def test_nothing_is_sent_or_asked_without_the_smtp_url(
    redis_client: aioredis.Redis, redis_server: str, sink: Sink
) -> None:
    """Without SPLENDOR_SMTP_URL GET /api/me/email says e-mail is off and the other address routes answer not_found, no notice of a correspondence game's turns is written, and the SMTP server gets nothing."""
    settings = Settings(redis_url=redis_server).without_rate_limits()
    async with (
        app_with(settings) as application,
        client(application) as ana,
        client(application) as bo,
    ):
        assert running(application).mail is None
        assert running(application).service.hooks.turns is None
        await signed_up(ana, "Ana_1")
        await signed_up(bo, "Bo_2")
        off = {"enabled": False, "address": None, "verified": False, "notify": False}
        assert (await ana.get("/api/me/email")).json() == off
        refused(await ana.put("/api/me/email", json={"address": "a@b.org"}), 404, "not_found")
        page = await ana.get("/mail/verify?token=ana_1.x")
        assert page.status_code == 404
        game = await correspondence_game({"Ana_1": ana, "Bo_2": bo})
        mover = await to_move(ana, game)
        await play({"Ana_1": ana, "Bo_2": bo}[mover], game, mover)
        assert not await redis_client.exists(MAIL_NOTICES_KEY)
    assert sink.received == [] and sink.data_seen == 0


async def test_an_unreachable_smtp_server_leaves_the_message_for_later(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """With nothing listening at SPLENDOR_SMTP_URL, the verification e-mail is queued again for 30 s later, not dropped and not marked in DATA."""
    settings = Settings(
        redis_url=redis_server, smtp_url=f"smtp://127.0.0.1:{free_port()}"
    ).without_rate_limits()
    async with app_with(settings) as application, client(application) as http:
        await signed_up(http, "Ana_1")
        await http.put("/api/me/email", json={"address": "ana@example.org"})
        now = running(application)
        assert now.mail is not None
        start = now_ms()
        assert await MailWorker(now.mail, now.service).turn(start) == start + 30_000
        [state] = (await now.mail.outbox.states()).values()
        assert state == {"s": "queued", "attempts": 1}


def test_the_smtp_url_and_its_settings() -> None:
    """SPLENDOR_SMTP_URL gives the host, port (25, or 465 for smtps), TLS, STARTTLS and percent-decoded credentials; another scheme is refused; the settings' repr shows no password; the reminder's lead is 20% or 3 hours, the shorter."""
    plain = SmtpServer.of("smtp://mail.example.org")
    assert (plain.host, plain.port, plain.implicit_tls, plain.starttls) == (
        "mail.example.org", 25, False, False)  # fmt: skip
    tls = SmtpServer.of("smtps://u%40x:p%3Ass@mail.example.org")
    assert (tls.port, tls.implicit_tls, tls.username, tls.password) == (
        465, True, "u@x", "p:ss")  # fmt: skip
    assert SmtpServer.of("smtp://h:587?starttls=1").starttls
    assert "p:ss" not in repr(tls) and "p%3Ass" not in repr(tls)
    env = {"SPLENDOR_SMTP_URL": "smtp://u:secret@h:2525", "SPLENDOR_PUBLIC_URL": "https://s.org/"}
    settings = Settings.from_env(env)
    assert settings.smtp_url == "smtp://u:secret@h:2525" and "secret" not in repr(settings)
    assert settings.public_url == "https://s.org"
    with pytest.raises(SettingsError):
        Settings.from_env({"SPLENDOR_SMTP_URL": "http://h"})
    assert reminder_lead_ms(DAY * 1000) == 3 * HOUR_MS
    assert reminder_lead_ms(8 * HOUR_MS) == 96 * 60_000


async def test_metrics_show_the_mail_queue_and_how_sends_ended(
    redis_client: aioredis.Redis, redis_server: str, smtp: tuple[Sink, str]
) -> None:
    """On a served app with e-mail on, its own worker sends a verification e-mail that the SMTP server refuses for now (451): the metrics show that send as a retry and the e-mail still queued; a second address's e-mail, accepted, shows as sent."""
    settings = Settings(
        redis_url=redis_server,
        smtp_url=smtp[1],
        public_url=SITE,
        mail_from="game@splendor.test",
        metrics_token=METRICS_TOKEN,
    ).without_rate_limits()
    sink = smtp[0]
    sink.refuse("451 4.3.0 try again later")
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        await signed_up(http, "Met_1")
        assert (await http.put("/api/me/email", json={"address": "m1@example.org"})).is_success
        got = await scraped_until(http, ("splendor_mail_sends_total", (("outcome", "retry"),)))
        assert got[("splendor_mail_queue", ())] == 1  # queued again, for later
        async with httpx.AsyncClient(base_url=server.http_url) as other:
            await signed_up(other, "Met_2")
            assert (await other.put("/api/me/email", json={"address": "m2@example.org"})).is_success
        got = await scraped_until(http, ("splendor_mail_sends_total", (("outcome", "sent"),)))
    assert [r.recipients for r in sink.received] == [["m2@example.org"]]
    assert got[("splendor_mail_queue", ())] == 1  # the refused one, waiting for its retry
    assert got[("splendor_mail_sends_total", (("outcome", "retry"),))] == 1


METRICS_TOKEN = "scrape-the-mail-9c1"


async def scraped_until(
    http: httpx.AsyncClient, counted: tuple[str, tuple[tuple[str, str], ...]]
) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The app's metrics once ``counted`` is 1 (the worker runs on its own)."""
    while True:
        r = await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert r.status_code == 200, r.text
        got = samples(r.text)
        if got.get(counted) == 1:
            return got
        await asyncio.sleep(0.05)
