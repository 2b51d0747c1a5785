"""A tournament's start announced by e-mail to those who joined it (docs/email.md,
"Tournaments"): the director calls the announcer once a process at the start, and
the mail layer sends it once a tournament and account whoever calls it again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from server.mail.letters import MadeUp
from server.mail.mail import Mail, announce_tournament
from server.tournaments.record import TournamentRecord
from server.tournaments.requests import clock_text

__all__ = ["Announce", "mail_announcer"]

Announce = Callable[[TournamentRecord], Awaitable[None]]
"""``announce(record)``: the tournament of ``record`` starts now."""


def mail_announcer(mail: Mail) -> Announce:
    """The announcer that e-mails the players who joined and have not left."""

    async def announce(record: TournamentRecord) -> None:
        t = record.tournament
        name = record.meta.get("name", "")
        made_up = not name  # unnamed: each e-mail names it in its reader's words
        await announce_tournament(
            mail,
            tournament_id=record.id,
            name=name,
            starts_ms=t.starts_ms,
            accounts=[p.player for p in t.players.values() if not p.left],
            made_up=MadeUp(t.variant, clock_text(t.clock), t.kind) if made_up else None,
        )

    return announce
