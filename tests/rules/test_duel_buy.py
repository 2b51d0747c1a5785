"""Buying: cost minus bonuses (a double bonus counts 2), gold for any gem or pearl,
spent tokens into the bag, and wild cards placed on an owned bonus card."""

from __future__ import annotations

from events.duel.actions import Buy
from events.duel.events import CardBought, CardDealt, TurnEnded
from events.duel.legal import legal_actions
from events.duel.view import view
from tests.duel_helpers import Table, play, refused

WILDS = (
    ("d1-26", "d1-27", "d1-28", "d1-29", "d1-30"),
    ("d2-01", "d2-02", "d2-03", "d2-04"),
    ("d3-01", "d3-02", "d3-03"),
)


def test_buy_pays_the_cost_into_the_bag_and_refills_the_slot() -> None:
    """The tokens paid go into the bag; the card gives its bonus; the slot gets a new card."""
    state = Table().give(0, blue=1, green=1, red=1, black=1).state()
    events = play(state, 0, Buy("d1-01"), seed=2)
    assert events[0] == CardBought(0, "d1-01", {"blue": 1, "green": 1, "red": 1, "black": 1})
    assert isinstance(events[1], CardDealt) and (events[1].level, events[1].slot) == (1, 0)
    assert events[2] == TurnEnded(0, 1)
    assert state.bag == [0, 1, 1, 1, 1, 0, 0]
    assert state.players[0].tokens == [0] * 7
    assert state.players[0].bonuses == [1, 0, 0, 0, 0]
    assert state.players[0].cards == ["d1-01"]


def test_bonuses_lower_the_cost_and_a_double_bonus_counts_two() -> None:
    """d2-05 gives 2 blue bonuses: d1-04 (3 blue) then costs 1 blue."""
    state = Table().own(0, "d2-05").give(0, blue=1).state()
    assert state.players[0].bonuses[1] == 2
    assert view(state, 0)["players"][0]["bonuses"]["blue"] == 2
    events = play(state, 0, Buy("d1-04"))
    assert events[0] == CardBought(0, "d1-04", {"blue": 1}, False)


def test_a_cost_never_drops_below_zero() -> None:
    """Bonuses beyond the cost are free: nothing is paid, nothing is received."""
    state = Table().own(0, "d2-05", "d1-10").state()  # 3 blue bonuses
    events = play(state, 0, Buy("d1-04"))
    assert events[0] == CardBought(0, "d1-04", {}, False)


def test_gold_replaces_a_gem_or_a_pearl() -> None:
    """Without a pearl, a gold pays for it."""
    state = Table().give(0, blue=2, green=2, gold=1).state()
    events = play(state, 0, Buy("d1-02"))
    assert events[0].payment == {"blue": 2, "green": 2, "gold": 1}  # type: ignore[union-attr]
    assert state.bag[5] == 1


def test_an_explicit_payment_may_use_gold_for_a_held_colour() -> None:
    """The buyer chooses which tokens to pay, gold included."""
    state = Table().give(0, blue=1, green=1, red=1, black=1, gold=1).state()
    events = play(state, 0, Buy("d1-01", payment={"blue": 1, "green": 1, "red": 1, "gold": 1}))
    assert events[0].payment == {"blue": 1, "green": 1, "red": 1, "gold": 1}  # type: ignore[union-attr]
    assert state.players[0].tokens[4] == 1


def test_a_wrong_payment_is_refused() -> None:
    """A payment short of the cost, or over it, is refused with the reason."""
    state = Table().give(0, blue=1, green=1, red=1, black=1, gold=1).state()
    problem = refused(state, 0, Buy("d1-01", payment={"blue": 1, "green": 1, "red": 1}))
    assert problem.message == "You can't buy d1-01 that way: this payment is 1 short."
    problem = refused(
        state, 0, Buy("d1-01", payment={"blue": 1, "green": 1, "red": 1, "black": 1, "gold": 1})
    )
    assert "1 gold too many" in problem.message


def test_an_unaffordable_card_is_refused() -> None:
    """The message says what the card costs and how short the player is."""
    state = Table().give(0, blue=1).state()
    problem = refused(state, 0, Buy("d1-01"))
    assert problem.message == (
        "You can't afford d1-01: after your bonuses it costs 1 blue, 1 green, 1 red "
        "and 1 black, and you are 3 tokens short."
    )


def test_buy_a_reserved_card() -> None:
    """A reserved card is bought from the reserve; no pyramid slot is refilled."""
    state = Table().reserve(0, "d1-20").give(0, white=2, blue=2).state()
    events = play(state, 0, Buy("d1-20"))
    assert events[0] == CardBought(0, "d1-20", {"white": 2, "blue": 2, "gold": 1}, True)
    assert [type(e).__name__ for e in events] == ["CardBought", "TurnEnded"]
    assert state.players[0].reserved == [] and state.players[0].bonuses[3] == 1


def test_only_pyramid_or_reserved_cards() -> None:
    """A card in a deck or in the opponent's reserve can't be bought."""
    state = Table().reserve(1, "d1-20").state()
    assert "neither in the pyramid nor in your reserve" in refused(state, 0, Buy("d1-20")).message
    assert "neither" in refused(state, 0, Buy("d3-13")).message


def test_a_points_only_card_gives_no_bonus() -> None:
    """d1-30 gives 3 prestige and no bonus."""
    state = Table(pyramid=WILDS).give(0, red=4, pearl=1).state()
    play(state, 0, Buy("d1-30"))
    assert state.players[0].points == 3 and state.players[0].bonuses == [0] * 5


def test_a_wild_card_needs_an_owned_bonus_card() -> None:
    """With no card with a bonus, a wild card can't be bought (nor is it listed)."""
    state = Table(pyramid=WILDS).own(0, "d1-30").give(0, white=4, pearl=1).state()
    problem = refused(state, 0, Buy("d1-26", wild_on="d1-30"))
    assert "you have none yet, so you can't buy it" in problem.message
    assert not any(isinstance(a, Buy) and a.card == "d1-26" for a in legal_actions(state, 0))


def test_a_wild_card_takes_the_colour_of_the_card_it_goes_on() -> None:
    """d1-27 on a red card is a red bonus, and its prestige counts as red."""
    state = Table(pyramid=WILDS).own(0, "d1-20").give(0, black=4, pearl=1).state()
    events = play(state, 0, Buy("d1-27", wild_on="d1-20"))
    assert events[0] == CardBought(0, "d1-27", {"black": 4, "pearl": 1}, False, "d1-20")
    player = state.players[0]
    assert player.bonuses[3] == 2 and player.colour_points[3] == 1 + 1
    seen = view(state, 1)["players"][0]
    assert seen["bonuses"]["red"] == 2 and seen["wilds"] == {"d1-27": "red"}


def test_a_wild_card_may_go_on_a_placed_wild_card() -> None:
    """A wild card already placed has its colour: another wild on it takes the same."""
    state = Table(pyramid=WILDS).own(0, "d1-20").own(0, "d1-27", on="d1-20")
    state = state.give(0, white=2, green=2, black=1, pearl=1).state()
    play(state, 0, Buy("d1-28", wild_on="d1-27"))
    assert state.players[0].wilds == {"d1-27": 3, "d1-28": 3}
    assert state.players[0].bonuses[3] == 3


def test_wild_on_must_be_an_owned_bonus_card() -> None:
    """wild_on is required for a wild card, must be owned, must have a bonus; other cards refuse it."""
    table = Table(pyramid=WILDS).own(0, "d1-20", "d2-24").give(0, white=4, pearl=1)
    state = table.state()
    assert "name the card of yours it goes on" in refused(state, 0, Buy("d1-26")).message
    assert "You don't own d1-21" in refused(state, 0, Buy("d1-26", wild_on="d1-21")).message
    assert "d2-24 has no bonus" in refused(state, 0, Buy("d1-26", wild_on="d2-24")).message
    state = Table().give(0, blue=1, green=1, red=1, black=1).own(0, "d1-20").state()
    problem = refused(state, 0, Buy("d1-01", wild_on="d1-20"))
    assert "d1-01 is not wild" in problem.message


def test_legal_lists_a_wild_buy_for_each_bonus_card() -> None:
    """One buy per owned card with a bonus (points-only cards can't host a wild)."""
    table = Table(pyramid=WILDS).own(0, "d1-20", "d2-13", "d2-24").give(0, white=4, pearl=1)
    buys = [a for a in legal_actions(table.state(), 0) if isinstance(a, Buy) and a.card == "d1-26"]
    assert buys == [Buy("d1-26", wild_on="d1-20"), Buy("d1-26", wild_on="d2-13")]
