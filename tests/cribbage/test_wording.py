"""The engine's sentences for the table name what the player did."""

from __future__ import annotations

import pytest

from cribbage.actions import parse_action
from cribbage.errors import ImpossibleScoreError
from cribbage.game import Game


def test_a_muggins_claim_no_hand_can_make_is_refused_naming_the_claim() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=1, muggins=True)
    k = k.apply(parse_action({"type": "count", "points": 4}))  # Ann's hand, counted 4
    with pytest.raises(ImpossibleScoreError) as refused:
        k.apply(parse_action({"type": "muggins", "side": 1, "points": 15}))
    assert refused.value.say == (
        "Muggins of 15 on Ann's hand makes 4 + 15 = 19, and 19 isn't a hand anyone can hold: "
        "counts go from 0 to 29, but never 19, 25, 26 or 27.")
    k = k.apply(parse_action({"type": "muggins", "side": 1, "points": 2}))  # 6: a hand can make it
    with pytest.raises(ImpossibleScoreError) as refused:
        k.apply(parse_action({"type": "muggins", "side": 1, "points": 20}))  # 4 + 2 + 20 = 26
    assert refused.value.say.startswith("Muggins of 20 on Ann's hand makes 6 + 20 = 26, and 26 "
                                        "isn't a hand anyone can hold")
