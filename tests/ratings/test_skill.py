"""The rating model, pure: openskill's amounts, the display scale, the book's fold."""

from __future__ import annotations

from openskill.models import PlackettLuce

from server.skill import NEW, RatedGame, RatingBook, Skill, competition_ranks, end_order, rate


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
