"""POST /api/qr: a QR code of a web address as SVG, the address in the body only."""

from __future__ import annotations

import httpx
import segno

from server.web.qr_route import MAX_QR_TEXT, qr_svg

LINK = "http://127.0.0.1:8000/#/seat/abcdefghjk?token=" + "t" * 43


async def test_a_link_is_drawn_as_svg_and_not_stored(http: httpx.AsyncClient) -> None:
    """The answer is segno's SVG of the address, marked not to be stored."""
    response = await http.post("/api/qr", json={"text": LINK})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.headers["cache-control"] == "no-store"
    assert response.content == qr_svg(LINK)
    assert response.content.startswith(b"<svg")
    assert segno.make(LINK, error="m").version <= 10  # small enough for a phone's camera


async def test_anything_but_a_short_web_address_is_refused(http: httpx.AsyncClient) -> None:
    """Not a web address, too long, an unknown field, or a GET with the text in its query: refused, nothing drawn."""
    for body in (
        {"text": "javascript:alert(1)"},
        {"text": ""},
        {"text": "https://x/" + "a" * MAX_QR_TEXT},
        {"text": LINK, "size": 3},
        {"url": LINK},
    ):
        response = await http.post("/api/qr", json=body)
        assert response.status_code == 400, body
        assert response.json()["code"] == "bad_request"
    assert (await http.get("/api/qr", params={"text": LINK})).status_code in (404, 405)
