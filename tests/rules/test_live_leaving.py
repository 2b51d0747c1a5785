"""Leaving a game (RULES.md part 3): resign, abort, abandon claims, and seats *out* in
3 and 4 player games (turns skipped, things kept, ranked last, the last seat in play
wins at once), for classic and Duel."""

from __future__ import annotations

import pytest

from events.base import (
    AbandonClaimed,
    Abort,
    ClaimAbandon,
    GameAborted,
    Resign,
    Resigned,
    TimeControl,
)
from events.classic.events import TurnEnded
from events.errors import GameOver, IllegalAction, NotYourTurn
from tests.live_helpers import NAMES, T0, Timed, kinds

BLITZ = TimeControl(initial=60, increment=2)


def finish_first_turns(game: Timed) -> None:
    for _ in range(game.players):
        game.turn(1)


@pytest.mark.parametrize("variant", ["classic", "duel"])
@pytest.mark.parametrize("on_move", [True, False], ids=["mover", "other"])
def test_resigning_with_two_players_the_other_wins(variant: str, on_move: bool) -> None:
    """A seat resigns on its move or not: the other seat wins, reason resign, ranks [1, 2]."""
    game = Timed(variant, 2)
    finish_first_turns(game)
    seat = game.state.seat if on_move else 1 - game.state.seat
    events = game.act(seat, Resign())
    assert kinds(events) == ["Resigned", "GameEnded"]
    result = game.view()["result"]
    assert result["winners"] == [1 - seat] and result["reason"] == "resign"
    assert result["ranks"][1 - seat] == 1 and result["ranks"][seat] == 2
    assert game.view()["players"][seat]["out"] == "resign"
    with pytest.raises(GameOver):
        game.act(1 - seat, Resign())


def test_resign_is_accepted_at_any_time_but_never_listed() -> None:
    """Resign is accepted from any live seat but never appears in legal (docs/rules.md)."""
    game = Timed("classic", 2)
    finish_first_turns(game)
    for seat in (0, 1):
        assert all(a["kind"] != "resign" for a in game.view(seat)["legal"])
        assert game.variant.decide(game.state, seat, Resign(), game.rng)


def test_a_game_not_started_is_aborted_not_resigned() -> None:
    """In an open game resign is refused (abort it instead), and a seated player may abort."""
    game = Timed("classic", 3, fill=False)
    game.join(0)
    with pytest.raises(IllegalAction, match="abort it instead"):
        game.act(0, Resign())
    assert game.view(0)["legal"] == [{"kind": "abort"}]
    assert game.act(0, Abort()) == [GameAborted("abort", 0)]
    assert game.state.status == "aborted"


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_abort_is_allowed_until_every_human_completed_a_first_turn(variant: str) -> None:
    """Any seated human may abort (on its move or not) until each human seat has ended its first turn; then abort is refused and no longer listed."""
    game = Timed(variant, 2)
    game.turn(1)
    waiting = 1 - game.state.seat
    assert {"kind": "abort"} in game.view(waiting)["legal"]
    assert {"kind": "abort"} in game.view(game.state.seat)["legal"]
    assert game.view(None)["legal"] == []
    while game.state.turn_number < 3 or any(t == 0 for t in game.state.clock.turns):
        game.turn(1)
    for seat in (0, 1):
        assert {"kind": "abort"} not in game.view(seat)["legal"]
        with pytest.raises(IllegalAction, match="aborted only until"):
            game.act(seat, Abort())
    before = Timed(variant, 2)
    assert before.act(1, Abort()) == [GameAborted("abort", 1)]
    assert before.view()["status"] == "aborted" and before.view()["result"] is None


def test_bot_seats_neither_abort_nor_count_for_the_first_turns() -> None:
    """With a bot seat, abort ends once the human's first turn is done; a bot's view never lists abort."""
    game = Timed("classic", 2, bots=[1])
    assert game.view(1)["legal"] == [] or {"kind": "abort"} not in game.view(1)["legal"]
    while game.state.clock.turns[0] == 0:
        game.turn(1)
    assert {"kind": "abort"} not in game.view(0)["legal"]


def test_a_seat_out_before_its_first_move_does_not_keep_abort_open() -> None:
    """A seat that resigned before its first move is not waited for: once the seats in play have moved, abort is over."""
    game = Timed("classic", 3, seed=3)
    last = (game.state.seat + 2) % 3
    game.act(last, Resign())
    game.turn(1)
    assert {"kind": "abort"} in game.view(game.state.seat)["legal"]
    game.turn(1)
    for seat in range(3):
        assert {"kind": "abort"} not in game.view(seat)["legal"]


def test_claim_abandon_needs_an_untimed_game_and_the_mover_away_60_seconds() -> None:
    """claim_abandon: listed and accepted once the seat to move has had no connection for 60 s; refused before, refused to the mover itself; the claimer wins, reason abandon."""
    game = Timed("classic", 2)
    finish_first_turns(game)
    mover = game.state.seat
    other = 1 - mover
    away = [None, None]
    away[mover] = game.now
    game.after(59.999)
    facts = game.facts(away)
    assert game.variant.leave_actions(game.state, other, facts) == []
    with pytest.raises(IllegalAction, match="1 s to go"):
        game.act(other, ClaimAbandon(), away)
    game.after(0.001)
    assert game.variant.leave_actions(game.state, other, game.facts(away)) == [ClaimAbandon()]
    assert game.variant.leave_actions(game.state, mover, game.facts(away)) == []
    with pytest.raises(IllegalAction, match="It is your move"):
        game.act(mover, ClaimAbandon(), away)
    events = game.act(other, ClaimAbandon(), away)
    assert events[0] == AbandonClaimed(other, mover)
    result = game.view()["result"]
    assert result["winners"] == [other] and result["reason"] == "abandon"
    assert game.view()["players"][mover]["out"] == "abandon"


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_a_real_time_game_is_claimed_after_30_seconds_whatever_the_clock(variant: str) -> None:
    """Real-time: the mover away 29.9 s is refused with its reason (0.1 s to go, shown as 1 s); at 30 s claim_abandon is listed and wins, though the mover's bank still holds most of its 60 s."""
    game = Timed(variant, 2, BLITZ)
    finish_first_turns(game)
    mover = game.state.seat
    other = 1 - mover
    away: list[int | None] = [None, None]
    away[mover] = game.now
    game.after(29.9)
    assert game.variant.leave_actions(game.state, other, game.facts(away)) == []
    with pytest.raises(IllegalAction) as refused:
        game.act(other, ClaimAbandon(), away)
    assert refused.value.reason.key == "claim.too_early"
    assert refused.value.reason.args == {"player": NAMES[mover], "after": 30, "wait": 1}
    game.after(0.1)
    assert game.remaining(mover) == 30_000  # 60 s bank, 30 s of it used: the clock still holds
    assert game.variant.leave_actions(game.state, other, game.facts(away)) == [ClaimAbandon()]
    events = game.act(other, ClaimAbandon(), away)
    assert events[0] == AbandonClaimed(other, mover)
    result = game.view()["result"]
    assert result["winners"] == [other] and result["reason"] == "abandon"


def test_a_correspondence_game_is_never_claimed_abandoned() -> None:
    """Correspondence: the clock decides; claim_abandon is refused (and never listed) however long the mover is away."""
    game = Timed("classic", 2, TimeControl(per_move=86_400))
    finish_first_turns(game)
    away = [T0, T0]
    game.after(3600)
    assert game.variant.leave_actions(game.state, 1 - game.state.seat, game.facts(away)) == []
    with pytest.raises(IllegalAction, match="clock decides") as refused:
        game.act(1 - game.state.seat, ClaimAbandon(), away)
    assert refused.value.reason.key == "claim.correspondence"


def test_a_real_time_first_turn_is_aborted_by_its_window_not_claimed() -> None:
    """Real-time: a mover away on its first turn is not claimed (no result from a game never begun); its 30 s window aborts the game instead."""
    game = Timed("classic", 2, BLITZ)
    mover = game.state.seat
    away: list[int | None] = [None, None]
    away[mover] = T0
    game.after(29.999)
    with pytest.raises(IllegalAction) as refused:
        game.act(1 - mover, ClaimAbandon(), away)
    assert refused.value.reason.key == "claim.first_move"
    game.after(0.001)
    assert game.variant.leave_actions(game.state, 1 - mover, game.facts(away)) == [Abort()]
    assert kinds(game.expire()) == ["GameAborted"]


def test_three_players_an_out_seat_is_skipped_and_keeps_its_things() -> None:
    """With 3 players a seat that resigns is out: its turns are skipped, its tokens stay with it, and play goes on."""
    game = Timed("classic", 3, seed=4)
    finish_first_turns(game)
    mover = game.state.seat
    nxt = (mover + 1) % 3
    tokens = list(game.state.players[nxt].tokens)
    assert game.act(nxt, Resign()) == [Resigned(nxt)]
    assert game.state.status == "live"
    events = game.turn(1)
    assert events[-1] == TurnEnded(mover, (mover + 2) % 3)
    assert game.state.players[nxt].tokens == tokens
    with pytest.raises(IllegalAction, match="out of this game"):
        game.act(nxt, Resign())
    with pytest.raises(NotYourTurn):
        game.act(nxt, game.variant.legal_actions(game.state, game.state.seat)[0])


def test_three_players_the_mover_out_ends_its_turn() -> None:
    """When the seat to move goes out (here on time), its turn ends there and the next seat in play moves."""
    game = Timed("classic", 3, BLITZ, seed=2)
    finish_first_turns(game)
    mover = game.state.seat
    game.after(60)
    events = game.expire()
    assert kinds(events) == ["TimeRanOut", "TurnEnded"]
    assert game.state.seat == (mover + 1) % 3 and game.state.status == "live"
    assert game.view()["players"][mover]["out"] == "time"
    assert game.view()["clock"]["remaining"][mover] == 0
    assert game.state.clock.banks_ms[mover] == 0  # no increment for a turn ended out


def test_three_players_the_last_seat_in_play_wins_at_once() -> None:
    """When two of three seats are out, the last in play wins at once; the seats out rank below it, the last to go out first."""
    game = Timed("classic", 3, seed=7)
    finish_first_turns(game)
    a, b = game.state.seat, (game.state.seat + 1) % 3
    c = (a + 2) % 3
    game.act(b, Resign())
    events = game.act(a, Resign())
    assert kinds(events)[-1] == "GameEnded"
    result = game.view()["result"]
    assert result["winners"] == [c] and result["reason"] == "resign"
    ranks = result["ranks"]
    assert (ranks[c], ranks[a], ranks[b]) == (1, 2, 3)


def test_four_players_the_game_goes_on_to_its_normal_end_among_those_in_play() -> None:
    """With 4 players and one out, the game ends as usual (points) among the three in play; the out seat cannot win and ranks last."""
    game = Timed("classic", 4, seed=11)
    finish_first_turns(game)
    gone = (game.state.seat + 2) % 4
    game.act(gone, Resign())
    for _ in range(2000):
        if game.state.status != "live":
            break
        assert game.state.seat != gone
        game.turn(1, random_moves=True)
    result = game.view()["result"]
    assert result["reason"] == "points"
    assert gone not in result["winners"]
    assert result["ranks"][gone] == 4
    assert sorted(result["ranks"])[0] == 1


def test_duel_out_of_time_the_other_wins() -> None:
    """Duel: a seat whose bank runs out loses on time."""
    game = Timed("duel", 2, BLITZ)
    finish_first_turns(game)
    mover = game.state.seat
    game.after(60)
    assert kinds(game.expire()) == ["TimeRanOut", "GameEnded"]
    assert game.view()["result"] == {
        "winners": [1 - mover],
        "reason": "time",
        "ranks": game.view()["result"]["ranks"],
    }
    assert game.view()["result"]["ranks"][mover] == 2


def test_an_aborted_game_takes_no_more_actions() -> None:
    """After an abort every action, move or leave, is refused as game over."""
    game = Timed("duel", 2)
    game.act(0, Abort())
    for action in (Resign(), Abort(), game_move(game)):
        with pytest.raises(GameOver):
            game.act(game.state.seat, action)


def game_move(game: Timed) -> object:
    fresh = Timed("duel", 2)
    return fresh.variant.legal_actions(fresh.state, fresh.state.seat)[0]
