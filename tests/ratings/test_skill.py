"""The rating model, pure: openskill's amounts, the display scale, the book's fold, the
daily limit of a pair and the leaderboard's threshold."""

from __future__ import annotations

from openskill.models import PlackettLuce

from server.players.rating_model import (
    NEW,
    RatedGame,
    RatingBook,
    Skill,
    competition_ranks,
    end_order,
    listed,
    pair_fields,
    rate,
    utc_day,
)

DAY_MS = 86_400_000


def game(gid: str, players: tuple[str, ...], ranks: tuple[int, ...], at: int = 0) -> RatedGame:
    return RatedGame(gid, "classic", at, players, players, ranks)


def test_a_newcomer_shows_1500() -> None:
    """mu 25, sigma 25/3: the conservative ordinal 0 is shown as 1500."""
    assert NEW.rating == 1500
    assert Skill(25.0 + 1.0, 25.0 / 3, 3).rating == 1530


def test_rate_gives_the_library_amounts() -> None:
    """A 2-player result moves mu and sigma exactly as PlackettLuce().rate does."""
    before = {"ada": Skill(27.0, 6.0, 4)}
    after = rate(game("g1", ("ada", "bob"), (2, 1)), before)
    model = PlackettLuce()
    [[a], [b]] = model.rate([[model.rating(27.0, 6.0)], [model.rating()]], ranks=[2, 1])
    assert (after["ada"].mu, after["ada"].sigma, after["ada"].games) == (a.mu, a.sigma, 5)
    assert (after["bob"].mu, after["bob"].sigma, after["bob"].games) == (b.mu, b.sigma, 1)


def test_competition_ranks_keep_order_and_ties() -> None:
    """Ranks of the rated seats only, renumbered 1, 1, 3 in their order."""
    assert competition_ranks([2, 4]) == (1, 2)
    assert competition_ranks([3, 1, 3, 4]) == (2, 1, 2, 4)


def test_book_counts_a_game_once_and_keeps_history() -> None:
    """A game counted twice changes nothing the second time; each player gets a point."""
    book = RatingBook("classic")
    assert book.count(game("g1", ("ada", "bob"), (1, 2), at=5))
    assert not book.count(game("g1", ("ada", "bob"), (1, 2), at=5))
    assert book.skills["ada"].games == 1
    [point] = book.history["ada"]
    assert (point.game, point.at, point.rank, point.of) == ("g1", 5, 1, 2)
    assert point.delta == point.rating - 1500 > 0


def test_end_order_is_time_then_id() -> None:
    """The rebuild counts by end time, ties by game id."""
    games = [game("b", ("x", "y"), (1, 2), 2), game("c", ("x", "y"), (1, 2), 1)]
    games.append(game("a", ("x", "y"), (1, 2), 2))
    assert [g.id for g in end_order(games)] == ["c", "a", "b"]


def test_a_day_is_the_utc_day_of_the_end() -> None:
    """The last millisecond of a UTC day and the first of the next are two days."""
    assert utc_day(DAY_MS - 1) == "1970-01-01" and utc_day(DAY_MS) == "1970-01-02"
    assert utc_day(1_740_873_599_999) == "2025-03-01"


def test_pairs_are_of_players_with_an_account_in_order() -> None:
    """A game's daily counters: every pair of its players with an account in it, sorted; an account and a bot level are a pair (so nobody lifts a bot without bound for others to farm), two bots are none."""
    played = game("g", ("cy", "bot:greedy", "ada", "bo"), (1, 2, 3, 4), at=DAY_MS)
    assert pair_fields(played) == [
        "1970-01-02 ada bo",
        "1970-01-02 ada bot:greedy",
        "1970-01-02 ada cy",
        "1970-01-02 bo bot:greedy",
        "1970-01-02 bo cy",
        "1970-01-02 bot:greedy cy",
    ]
    assert pair_fields(game("h", ("ada", "bot:mcts"), (1, 2))) == ["1970-01-01 ada bot:mcts"]
    assert pair_fields(game("i", ("bot:random", "bot:greedy"), (1, 2))) == []


def test_the_book_refuses_early_games_and_a_pairs_fourth_of_a_day() -> None:
    """An early game and the fourth game of a day between Ada and Bob (a 3-player one
    with Cy too) move nothing and are recorded with why; a game of Ada and Cy that day
    counts, and so does Ada and Bob's next day."""
    book = RatingBook("classic")
    assert not book.count(RatedGame("e", "classic", 0, ("ada", "bo"), ("A", "B"), (1, 2), True))
    for n in range(3):
        assert book.count(game(f"d{n}", ("ada", "bo"), (1, 2), at=n))
    assert not book.count(game("d3", ("ada", "cy", "bo"), (1, 2, 3), at=10))
    assert book.count(game("c", ("ada", "cy"), (1, 2), at=11))
    assert book.count(game("next", ("bo", "ada"), (1, 2), at=DAY_MS))
    assert book.uncounted == {"e": "early_end", "d3": "daily_limit"}
    assert book.skills["ada"].games == 5 and "e" not in book.counted
    assert book.pairs == {"1970-01-01 ada bo": 3, "1970-01-01 ada cy": 1, "1970-01-02 ada bo": 1}


def test_an_account_lifts_a_bot_level_three_games_a_day_at_most() -> None:
    """An account that loses to a bot level again and again moves its rating three games a day, no more: the fourth that day is not counted (daily_limit), the next day's is; another account's game against that level still counts."""
    book = RatingBook("duel")
    for n in range(3):
        assert book.count(game(f"b{n}", ("bot:random", "alt"), (1, 2), at=n))
    assert not book.count(game("b3", ("bot:random", "alt"), (1, 2), at=10))
    assert book.count(game("other", ("bot:random", "ada"), (1, 2), at=11))
    assert book.count(game("next", ("bot:random", "alt"), (1, 2), at=DAY_MS))
    assert book.uncounted == {"b3": "daily_limit"}
    assert book.skills["bot:random"].games == 5


def test_listed_after_10_games_against_5_opponents() -> None:
    """An account is listed with 10 games against 5 opponents, not 9 or 4; a bot always."""
    assert listed("ada", 10, 5) and listed("bot:random", 0, 0)
    assert not listed("ada", 9, 5) and not listed("ada", 40, 4)
