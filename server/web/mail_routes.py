"""The pages the links of e-mails open (docs/email.md): a short HTML page each, in the
request's language, since a person opens them from a mail program.

- ``GET /mail/verify?token=``: verifies the address (the token is single use);
- ``GET /mail/unsubscribe?token=``: a page with one button, which POSTs to
- ``POST /mail/unsubscribe?token=``: the e-mails of games and tournaments are off.
  This is the one-click URL of ``List-Unsubscribe`` (RFC 8058): a mail program POSTs
  ``List-Unsubscribe=One-Click`` to it. A GET changes nothing, since mail scanners
  open links by themselves. The signed token is the authority: no session and no
  ``Origin`` check (the POST comes from a mail provider's server, or from the page).

A refused token answers the protocol's status (404 ``not_found``) with the same
page, its code in ``data-code`` and its sentence in the reader's language.
"""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from catalogs import text_direction, translations
from server.common.errors import ServiceError
from server.mail.mail import Mail, verify_token
from server.web.languages import request_language
from server.web.request_parts import read_body
from server.web.state import running

__all__ = ["mail_routes"]


def _page(lang: str, heading: str, text: str, status: int = 200, *, code: str = "",
          form: str = "") -> Response:  # fmt: skip
    _ = translations(lang, "server").gettext
    # A call inside an f-string is not seen by the catalogs' extraction: words first.
    home = _("Go to Splendor")
    body = (
        f'<!doctype html><html lang="{lang}" dir="{text_direction(lang)}"><head>'
        '<meta charset="utf-8"><meta name="viewport" content="width=device-width">'
        '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'
        '<link rel="stylesheet" href="/style.css">'
        f"<title>{escape(heading)}</title></head><body>"
        f'<main class="mail-page" data-code="{escape(code)}"><section class="panel">'
        f"<h1>{escape(heading)}</h1><p>{escape(text)}</p>{form}"
        f'<p><a class="btn" href="/">{escape(home)}</a></p></section></main></body></html>'
    )
    response = HTMLResponse(body, status)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"  # the token stays in its URL
    return response


def _refused(lang: str, error: ServiceError, hint: str = "") -> Response:
    _ = translations(lang, "server").gettext
    message = error.to_wire(lang)["message"]
    form = f'<p class="hint">{escape(hint)}</p>' if hint else ""
    return _page(
        lang, _("This link does not work"), message, error.status, code=error.code, form=form
    )


def _mail(request: Request) -> Mail:
    mail = running(request).mail
    if mail is None:
        raise ServiceError("not_found", "email.off")
    return mail


async def verify_page(request: Request) -> Response:
    """``GET /mail/verify?token=``: the address verified, or why not."""
    lang = await request_language(request)
    _ = translations(lang, "server").gettext
    try:
        await verify_token(_mail(request), request.query_params.get("token", ""))
    except ServiceError as e:
        # A used link is most often one opened twice, or first by the mail provider's
        # link scanner: the address is then verified already.
        used = e.reason.key == "email.link_unknown"
        hint = _(
            "If this link was opened once already, your address is verified: the E-mail item of your account's menu says so."
        )
        return _refused(lang, e, hint if used else "")
    return _page(
        lang,
        _("Your e-mail address is verified"),
        _("You will get an e-mail when it is your move in a correspondence game."),
    )


async def unsubscribe_page(request: Request) -> Response:
    """``GET /mail/unsubscribe?token=``: the button that turns the e-mails off."""
    lang = await request_language(request)
    _ = translations(lang, "server").gettext
    token = request.query_params.get("token", "")
    try:
        if await _mail(request).unsubscribed_account(token) is None:
            raise ServiceError("not_found", "email.unsubscribe_unknown")
    except ServiceError as e:
        return _refused(lang, e)
    button = _("Turn off the e-mails")
    form = (
        f'<form method="post" action="/mail/unsubscribe?token={escape(token)}">'
        '<button type="submit" class="btn btn-primary" name="List-Unsubscribe"'
        f' value="One-Click">{escape(button)}</button></form>'
    )
    return _page(
        lang,
        _("Turn off the e-mails of games?"),
        _("You will get no more e-mails of your games and tournaments."),
        form=form,
    )


async def unsubscribe(request: Request) -> Response:
    """``POST /mail/unsubscribe?token=``: the e-mails of games and tournaments off."""
    lang = await request_language(request)
    _ = translations(lang, "server").gettext
    try:
        # "List-Unsubscribe=One-Click" (RFC 8058), or the page's form: read within
        # the server's limit, since anyone may POST here without a session.
        await read_body(request)
        mail = _mail(request)
        ident = await mail.unsubscribed_account(request.query_params.get("token", ""))
        if ident is None:
            raise ServiceError("not_found", "email.unsubscribe_unknown")
        if (await mail.addresses.get(ident)).address is not None:
            await mail.addresses.set_notify(ident, False)
    except ServiceError as e:
        return _refused(lang, e)
    return _page(
        lang,
        _("The e-mails are off"),
        _("You will get no more e-mails of your games. Turn them on again in your account's menu."),
    )


def mail_routes() -> list[BaseRoute]:
    """The routes of the links in e-mails."""
    return [
        Route("/mail/verify", verify_page, methods=["GET"]),
        Route("/mail/unsubscribe", unsubscribe_page, methods=["GET"]),
        Route("/mail/unsubscribe", unsubscribe, methods=["POST"]),
    ]
