"""``POST /api/qr``: a QR code of an address, as SVG, drawn by ``segno``.

The page shows one for "continue on another device": an address of this server whose
fragment carries a seat token. The address comes in the POST body, never in a request
line (a query string is written to access logs and proxies' logs), and the answer is
not to be stored (``Cache-Control: no-store``). Only web addresses of a bounded length
are drawn: this is not a general QR service.
"""

from __future__ import annotations

import io
from typing import Final

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from server.common import wire
from server.common.errors import bad_request
from server.web.request_parts import read_body

__all__ = ["MAX_QR_TEXT", "qr_code", "qr_svg"]

MAX_QR_TEXT: Final = 512


class QrRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/qr``: the address to draw."""

    text: str


def qr_svg(text: str) -> bytes:
    """``text`` as a QR code in SVG: dark modules on white, with the quiet zone the
    standard asks for (4 modules), so that it scans on the page's dark theme too."""
    # Imported on first use: a server (or a tree whose environment predates this
    # dependency) starts and serves games without it.
    import segno

    code = segno.make(text, error="m")
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=4,
        border=4,
        dark="#000",
        light="#fff",
        xmldecl=False,
        title="QR code",
    )
    return out.getvalue()


async def qr_code(request: Request) -> Response:
    body: QrRequest = wire.decode(await read_body(request), QrRequest)
    text = body.text
    if not 0 < len(text) <= MAX_QR_TEXT or not text.startswith(("http://", "https://")):
        raise bad_request("request.qr_text", most=MAX_QR_TEXT)
    return Response(
        qr_svg(text),
        media_type="image/svg+xml",
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
    )
