"""Games nobody attends (RULES.md part 3): an open game whose seated people all left
expires after 2 minutes, a live untimed game no human attended for a day ends (bots
ranked above the humans, or aborted when only humans sat), and the lobby lists a game
only while someone attends it. Presence comes in as facts with explicit times."""

from __future__ import annotations

import pytest

from events.base import AbandonClaimed, GameAborted, TimeControl
from events.clock import IDLE_MS, LIST_GRACE_MS, LIVE_QUIET_MS, OPEN_AWAY_MS
from events.leaving import listed
from tests.live_helpers import T0, Timed, kinds

DAY_S = IDLE_MS / 1000


def test_an_open_game_whose_seated_people_all_left_expires_after_two_minutes() -> None:
    """An open game of 3: both seated people away 1:59.9 keeps it open; at 2:00 it expires (GameAborted expired, no seat); one of them connected keeps it open however long the other is away."""
    game = Timed("classic", 3, fill=False)
    game.join(0)
    game.join(1)
    left = game.now
    game.after(119.9)
    assert game.variant.expire(game.state, game.facts([left, left])) == []
    game.after(0.1)
    assert game.variant.expire(game.state, game.facts([left, None])) == []
    assert game.variant.expire(game.state, game.facts([left, left])) == [GameAborted("expired")]
    game.apply([GameAborted("expired")])
    assert game.view()["status"] == "aborted"


def test_an_open_game_nobody_sat_at_and_bots_alone_wait_for_their_thirty_minutes() -> None:
    """No person seated (nobody left it): the 2 minutes do not apply, only the 30-minute expiry; a bot's seat is never away."""
    game = Timed("classic", 3, bots=[0], fill=False)
    game.join(0)
    game.after(29 * 60)
    assert game.variant.expire(game.state, game.facts([T0, T0, T0])) == []
    game.after(60)
    assert kinds(game.expire()) == ["GameAborted"]


def test_without_presence_facts_nothing_expires_for_absence() -> None:
    """The timekeeper's facts carry no away times: everyone counts as connected, so an open game waits and an untimed game never idles."""
    game = Timed("classic", 2, fill=False)
    game.join(0)
    game.after(20 * 60)
    assert game.expire() == []
    humans = Timed("classic", 2)
    humans.after(2 * DAY_S)
    assert humans.expire() == []


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_an_untimed_game_of_humans_only_idle_a_day_is_aborted(variant: str) -> None:
    """Humans only: every human seat away 23:59:59.9 changes nothing; a day: GameAborted idle (no result). One seat connected keeps it going."""
    game = Timed(variant, 2)
    game.turn()
    left = game.now
    game.after(DAY_S - 0.1)
    assert game.variant.expire(game.state, game.facts([left, left])) == []
    game.after(0.1)
    assert game.variant.expire(game.state, game.facts([left, None])) == []
    assert game.variant.expire(game.state, game.facts([left, left])) == [GameAborted("idle")]


def test_a_timed_game_never_idles() -> None:
    """Real-time and correspondence games are settled by their clocks, not by the idle rule."""
    for control in (TimeControl(initial=600, increment=5), TimeControl(per_move=86_400 * 3)):
        game = Timed("classic", 2, control)
        game.turn()
        game.turn()
        away = game.now
        game.after(DAY_S + 1)
        events = game.variant.expire(game.state, game.facts([away, away]))
        assert GameAborted("idle") not in events and not any(
            isinstance(e, AbandonClaimed) for e in events
        )


def test_an_idle_classic_game_with_bots_ranks_the_bots_above_the_humans() -> None:
    """Four seats, humans 0 and 2, bots 1 and 3: after a day with no human connected both humans are out (abandon, AbandonClaimed with nobody claiming), the bots win or rank by points then fewest cards, the humans below them."""
    game = Timed("classic", 4, bots=[1, 3], seed=7)
    for _ in range(12):
        game.turn(random_moves=True)
    assert game.state.status == "live"
    left = game.now
    game.after(DAY_S)
    events = game.apply(game.variant.expire(game.state, game.facts([left, None, left, None])))
    assert kinds(events) == ["AbandonClaimed", "AbandonClaimed", "GameEnded"]
    assert events[0] == AbandonClaimed(0, 0) and events[1] == AbandonClaimed(2, 2)
    view = game.view()
    assert view["status"] == "finished"
    assert [p["out"] for p in view["players"]] == ["abandon", None, "abandon", None]
    result = view["result"]
    assert result["reason"] == "abandon"
    points = [p["points"] for p in view["players"]]
    cards = [len(p["cards"]) for p in view["players"]]
    order = sorted((1, 3), key=lambda s: (-points[s], cards[s]))
    best = order[0]
    assert best in result["winners"] and set(result["winners"]) <= {1, 3}
    assert result["ranks"][best] == 1 and {result["ranks"][0], result["ranks"][2]} == {3, 4}
    assert result["ranks"][2] == 3  # the humans went out in seat order: the last out ranks higher


def test_an_idle_duel_against_a_bot_is_won_by_the_bot() -> None:
    """Duel, a human against a bot: a day without the human, the human is out (abandon) and the bot wins, ranks [2, 1]."""
    game = Timed("duel", 2, bots=[1])
    game.after(DAY_S)
    events = game.apply(game.variant.expire(game.state, game.facts([T0, None])))
    assert kinds(events) == ["AbandonClaimed", "GameEnded"]
    result = game.view()["result"]
    assert result["winners"] == [1] and result["reason"] == "abandon"
    assert result["ranks"] == [2, 1]


def test_the_lobby_lists_an_open_game_only_while_a_seated_person_is_there() -> None:
    """Open: listed with a seated person connected (0 ms away) or away under 10 s (a reload), or with nobody seated yet; not once all are away 10 s."""
    assert listed("open", [0, 600_000], 0)
    assert listed("open", [LIST_GRACE_MS - 1], 0)
    assert listed("open", [], 3_600_000)
    assert not listed("open", [LIST_GRACE_MS, OPEN_AWAY_MS], 0)


def test_the_lobby_lists_a_live_game_while_attended_or_moving() -> None:
    """Live: listed while a human seat is connected, or within 10 minutes of its last event; a game nobody attends that has not moved for 10 minutes is not; bots alone are listed while they move."""
    day = IDLE_MS
    assert listed("live", [0, day], day)
    assert listed("live", [day, day], LIVE_QUIET_MS - 1)
    assert not listed("live", [day, day], LIVE_QUIET_MS)
    assert listed("live", [], 1000)
    assert not listed("live", [], LIVE_QUIET_MS)
    assert listed("finished", [day], day)
