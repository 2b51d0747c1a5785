"""Where a replay's turns end, read from a game's events (the test's own reading of
TurnEnded, independent of the page's turns.js)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.pages import wait_version


def turn_ends(events: list[dict[str, Any]]) -> list[int]:
    """The version at which each turn is over: every TurnEnded, the last one moved to
    the game's end when only the end follows it."""
    ends = [e["version"] for e in events if e["type"] == "TurnEnded"]
    last = events[-1]["version"]
    after = [e["type"] for e in events if e["version"] > (ends[-1] if ends else 0)]
    if ends and after and set(after) <= {"GameEnded", "GameAborted"}:
        ends[-1] = last
    elif after:
        ends.append(last)
    return ends


def shows_turn(page: Page, turn: int, of: int, version: int) -> None:
    """The replay rests after turn ``turn`` (of ``of``) at ``version``, its line in the
    move list highlighted."""
    wait_version(page, version)
    expect(page.locator("#table")).to_have_attribute("data-version", str(version))
    expect(page.locator("#replay-position")).to_have_text(f"Turn {turn} of {of}")
    expect(page.locator(".move.current")).to_have_attribute("data-turn", str(turn))
    assert page.url.endswith(f"/{version}")
