"""The e-mails' words and headers (docs/email.md): each in its reader's language (the
account's, else English), through the ``server`` catalog; plain text, UTF-8.

Every e-mail of games and tournaments ends with a one-click unsubscribe link and
carries it in ``List-Unsubscribe`` with ``List-Unsubscribe-Post:
List-Unsubscribe=One-Click`` (RFC 8058), so that a mail program's own button turns
them off with one POST. The verification e-mail has neither: it is sent once, because
its reader asked for it.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formatdate, make_msgid

from catalogs import LANGUAGES, Translations, translations

__all__ = ["Letter", "MadeUp", "Turn", "moves_letter", "tournament_letter", "verification_letter"]


@dataclass(frozen=True)
class Letter:
    """An e-mail before its envelope: subject, body and extra headers."""

    subject: str
    body: str
    unsubscribe: str | None = None  # the one-click link, when the e-mail has one

    def render(self, sender: str, recipient: str) -> str:
        """The whole message (RFC 5322 with CRLF lines), ASCII: a UTF-8 body and
        subject are encoded by the ``email`` package."""
        message = EmailMessage(policy=SMTP)
        message["From"] = sender
        message["To"] = recipient
        message["Subject"] = self.subject
        message["Date"] = formatdate(usegmt=True)
        domain = sender.rpartition("@")[2] or "localhost"
        message["Message-ID"] = make_msgid(secrets.token_hex(8), domain=domain)
        if self.unsubscribe is not None:
            message["List-Unsubscribe"] = f"<{self.unsubscribe}>"
            message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        message.set_content(self.body, charset="utf-8")
        return message.as_bytes(policy=SMTP).decode("ascii")


@dataclass(frozen=True)
class Turn:
    """A game where it is the reader's move: its id, its table's link, its deadline
    (ms), whether this is the reminder (little time left), and whom it is against."""

    game: str
    link: str
    deadline_ms: int
    reminder: bool
    against: str = ""  # the other players' names, "Bo, Cy"


@dataclass(frozen=True)
class MadeUp:
    """What names a tournament without a name (one given none, and every scheduled
    one): its variant, clock ("3+2") and kind, written in the reader's words."""

    variant: str
    clock: str
    kind: str


def _words(lang: str) -> Translations:
    return translations(lang if lang in LANGUAGES else "en", "server")


def _when(at_ms: int) -> str:
    """A moment as every language reads it in an e-mail: ISO-like, in UTC."""
    return datetime.fromtimestamp(at_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _footer(words: Translations, name: str, unsubscribe: str) -> str:
    _ = words.gettext
    return "\n\n-- \n" + _(
        "You get this e-mail because e-mails of games are on for your account {name}. "
        "Turn them off with one click: {link}"
    ).format(name=name, link=unsubscribe)


def verification_letter(lang: str, name: str, link: str) -> Letter:
    """The link that verifies an address, for the account ``name``."""
    words = _words(lang)
    _ = words.gettext
    body = _(
        "Hello {name},\n\nFollow this link to confirm that this address is yours:\n{link}\n\n"
        "The link works for 24 hours, once. If you did not ask for it, ignore this e-mail: "
        "nothing will be sent to you."
    ).format(name=name, link=link)
    return Letter(_("Confirm your e-mail address for Splendor"), body)


def moves_letter(lang: str, name: str, turns: Sequence[Turn], unsubscribe: str) -> Letter:
    """Your move: one game (a move passed to you, or the reminder), or several folded
    into one e-mail (the hour's bound: docs/email.md)."""
    words = _words(lang)
    _ = words.gettext
    if len(turns) == 1:
        turn = turns[0]
        values = {
            "game": turn.game,
            "players": turn.against,
            "link": turn.link,
            "deadline": _when(turn.deadline_ms),
        }
        if turn.reminder:
            subject = _("Reminder: your move against {players} in game {game}").format(**values)
            body = _(
                "Your time to move against {players} in game {game} runs out at {deadline}.\n\n"
                "Play your move: {link}"
            ).format(**values)
        else:
            subject = _("Your move against {players} in game {game}").format(**values)
            body = _(
                "It is your move against {players} in game {game}. You have until {deadline}.\n\n"
                "Play your move: {link}"
            ).format(**values)
    else:
        n = len(turns)
        subject = words.ngettext("Your move in {n} game", "Your move in {n} games", n).format(n=n)
        lines = [
            _("Game {game} against {players}, until {deadline}: {link}").format(
                game=t.game, players=t.against, deadline=_when(t.deadline_ms), link=t.link
            )
            for t in sorted(turns, key=lambda t: t.deadline_ms)
        ]
        body = _("It is your move in these games:") + "\n\n" + "\n".join(lines)
    return Letter(subject, body + _footer(words, name, unsubscribe), unsubscribe)


def tournament_letter(
    lang: str,
    name: str,
    tournament: str,
    starts_ms: int,
    link: str,
    unsubscribe: str,
    made_up: MadeUp | None = None,
) -> Letter:
    """The tournament ``tournament`` the account joined starts at ``starts_ms``; a
    tournament without a name (``made_up``) is named in the reader's words."""
    words = _words(lang)
    _ = words.gettext
    if made_up is not None:
        game = "Splendor Duel" if made_up.variant == "duel" else "Splendor"
        named = _("{game} {clock} Swiss") if made_up.kind == "swiss" else _("{game} {clock} Arena")
        tournament = named.format(game=game, clock=made_up.clock)
    values = {"tournament": tournament, "start": _when(starts_ms), "link": link}
    subject = _("The tournament {tournament} starts").format(**values)
    body = _("The tournament {tournament} you joined starts at {start}.\n\nGo to it: {link}")
    return Letter(subject, body.format(**values) + _footer(words, name, unsubscribe), unsubscribe)
