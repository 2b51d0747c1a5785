"""Arena tournaments (events/tournament/arena.py and standings.py): pairing of the
waiting players, points with streaks, pause and leave, standings."""

from __future__ import annotations

import msgspec
import pytest

from events.base import TimeControl
from events.tournament import standings as st
from events.tournament.arena import ArenaScore, Waiting, add_result, pair_waiting, score_results
from events.tournament.log import (
    GamePlayed,
    Outcome,
    Pair,
    PlayersPaired,
    TournamentError,
    TournamentEvent,
)

MINUTE = 60_000


def w(
    player: str, score: int = 0, rating: float = 1500, last: str | None = None, since: int = 0
) -> Waiting:
    return Waiting(player, score, rating, last, since)


def met(pairing: tuple[Pair, ...]) -> set[frozenset[str]]:
    return {frozenset((p.first, p.second)) for p in pairing}


def test_no_immediate_rematch_while_others_wait() -> None:
    """Two players who just met are not paired again when others wait, even when they are each other's closest."""
    paired = pair_waiting(
        [w("a", 4, 1500, "b"), w("b", 4, 1501, "a"), w("c", 4, 1700), w("d", 4, 1710)]
    )
    assert met(paired.pairs) == {frozenset("ac"), frozenset("bd")}
    assert paired.waiting == ()


def test_only_two_waiting_may_meet_again() -> None:
    """When the two who just met are the only ones waiting, they play again."""
    paired = pair_waiting([w("a", last="b", since=5), w("b", last="a", since=3)])
    assert paired.pairs == (Pair("b", "a"),)


def test_three_waiting_with_a_rematch_pair_the_newcomer() -> None:
    """Of three waiting, two who just met do not play each other: the third plays one, the other waits."""
    paired = pair_waiting([w("a", last="b", since=1), w("b", last="a", since=2), w("c", since=9)])
    assert len(paired.pairs) == 1 and "c" in (paired.pairs[0].first, paired.pairs[0].second)
    assert len(paired.waiting) == 1 and paired.waiting[0] in "ab"


def test_close_scores_come_before_close_ratings() -> None:
    """Players are paired by score first: equal ratings do not pair a 10 with a 0."""
    paired = pair_waiting([w("a", 10, 1500), w("b", 0, 1500), w("c", 10, 1000), w("d", 0, 1000)])
    assert met(paired.pairs) == {frozenset("ac"), frozenset("bd")}


def test_ratings_decide_among_equal_scores() -> None:
    """Among equal scores, the closest ratings play each other."""
    paired = pair_waiting([w("a", 6, 1200), w("b", 6, 1800), w("c", 6, 1210), w("d", 6, 1790)])
    assert met(paired.pairs) == {frozenset("ac"), frozenset("bd")}


def test_with_an_odd_number_the_latest_arrival_waits() -> None:
    """Of three waiting, the one who arrived last waits; the one who waited longer takes the first seat."""
    paired = pair_waiting([w("a", since=20), w("b", since=10), w("c", since=30)])
    assert paired.pairs == (Pair("b", "a"),)
    assert paired.waiting == ("c",)


def test_a_win_scores_two_a_shared_victory_one_a_loss_nothing() -> None:
    """Without a streak: win 2, shared victory 1, loss 0."""
    assert score_results(["win"]) == ArenaScore(2, 1)
    assert score_results(["shared"]) == ArenaScore(1, 0)
    assert score_results(["loss"]) == ArenaScore(0, 0)


def test_two_wins_in_a_row_double_the_next_wins() -> None:
    """Wins score 2, 2, then 4 and 4 on the streak that the first two started."""
    assert [s.points for s in _running(["win", "win", "win", "win"])] == [2, 4, 8, 12]
    assert score_results(["win", "win"]).on_streak
    assert not score_results(["win"]).on_streak


def test_a_loss_ends_the_streak() -> None:
    """After a loss on a streak, a win scores 2 again."""
    assert [s.points for s in _running(["win", "win", "win", "loss", "win"])] == [2, 4, 8, 8, 10]
    assert not score_results(["win", "win", "loss"]).on_streak


def test_a_shared_victory_ends_the_streak_and_is_not_doubled() -> None:
    """On a streak a shared victory still scores 1, and the streak is over."""
    assert [s.points for s in _running(["win", "win", "shared", "win"])] == [2, 4, 5, 7]
    assert add_result(ArenaScore(4, 2), "shared") == ArenaScore(5, 0)


def _running(outcomes: list[Outcome]) -> list[ArenaScore]:
    scores = [add_result(ArenaScore(), outcomes[0])]
    for o in outcomes[1:]:
        scores.append(add_result(scores[-1], o))
    return scores


def _arena(*players: tuple[str, float]) -> st.Tournament:
    t = st.replay(
        st.create("t", "arena", "classic", TimeControl(180, 2), 0, duration_ms=60 * MINUTE)
    )
    for name, rating in players:
        t = _apply(t, st.join(t, name, rating, 0))
    return t


def _apply(t: st.Tournament, events: list[st.TournamentEvent]) -> st.Tournament:
    for e in events:
        t = st.evolve(t, e)
    return t


def test_an_arena_pairs_again_at_once_and_ranks_by_points() -> None:
    """Finishers are paired again with the waiting; the standings rank by points with the streak shown."""
    t = _arena(("a", 1500), ("b", 1500), ("c", 1400), ("d", 1400))
    first = st.pair_arena(t, MINUTE)
    assert isinstance(first[0], PlayersPaired) and len(first[0].pairs) == 2
    t = _apply(t, first)
    assert st.pair_arena(t, MINUTE) == []  # Nobody waits: all four play.
    for pair in first[0].pairs:
        t = _apply(t, st.record(t, pair.first, pair.second, pair.first, 2 * MINUTE))
    again = st.pair_arena(t, 2 * MINUTE)
    assert isinstance(again[0], PlayersPaired)
    assert met(again[0].pairs).isdisjoint(met(first[0].pairs))
    lines = st.standings(t)
    assert [line.points for line in lines] == [2, 2, 0, 0]
    assert [line.rank for line in lines] == [1, 2, 3, 4]


def test_paused_and_gone_players_are_not_paired() -> None:
    """A paused player is not paired until they come back; one who left never again and cannot rejoin."""
    t = _arena(("a", 1500), ("b", 1500), ("c", 1500))
    t = _apply(t, st.pause(t, "a", MINUTE))
    t = _apply(t, st.leave(t, "b", MINUTE))
    assert st.pair_arena(t, MINUTE) == []
    t = _apply(t, st.join(t, "a", 1510, 2 * MINUTE))
    assert st.pair_arena(t, 2 * MINUTE) == [PlayersPaired((Pair("c", "a"),), 2 * MINUTE)]
    with pytest.raises(TournamentError) as refused:
        st.join(t, "b", 1500, 2 * MINUTE)
    assert refused.value.code == "left_tournament"
    assert [line.player for line in st.standings(t)] == ["a", "b", "c"]


def test_no_pairing_or_result_after_the_end() -> None:
    """At the end time nobody is paired, a game still in play does not count, and the arena ends."""
    t = _arena(("a", 1500), ("b", 1500))
    t = _apply(t, st.pair_arena(t, MINUTE))
    end = 60 * MINUTE
    with pytest.raises(TournamentError):
        st.end(t, end - 1)
    with pytest.raises(TournamentError):
        st.record(t, "a", "b", "a", end)
    t = _apply(t, st.end(t, end))
    assert t.ended and all(line.points == 0 for line in st.standings(t))


def test_a_result_must_be_of_a_game_in_play() -> None:
    """A result of players who have no game together, or a winner who did not play, is refused."""
    t = _arena(("a", 1500), ("b", 1500), ("c", 1500), ("d", 1500))
    t = _apply(t, st.pair_arena(t, MINUTE))
    pair = t.in_play[0]
    with pytest.raises(TournamentError):
        st.record(t, pair.second, pair.first, None, MINUTE)
    with pytest.raises(TournamentError):
        st.record(t, pair.first, pair.second, t.in_play[1].first, MINUTE)
    assert st.record(t, pair.first, pair.second, None, MINUTE) == [
        GamePlayed(pair.first, pair.second, None, MINUTE)
    ]


def test_the_log_round_trips_through_json_to_the_same_standings() -> None:
    """A tournament's events encode to JSON and decode as TournamentEvent to the same state."""
    log = st.create("t", "arena", "duel", TimeControl(180, 2), 0, duration_ms=60 * MINUTE)
    t = st.replay(log)
    for name in "abc":
        log += st.join(t, name, 1500, 0)
        t = st.replay(log)
    log += st.pair_arena(t, MINUTE)
    t = st.replay(log)
    pair = t.in_play[0]
    log += st.record(t, pair.first, pair.second, None, 2 * MINUTE)
    log += st.pause(st.replay(log), "a", 3 * MINUTE)
    data = msgspec.json.encode(log)
    decoded = msgspec.json.decode(data, type=list[TournamentEvent])
    assert decoded == log
    assert st.standings(st.replay(decoded)) == st.standings(st.replay(log))
