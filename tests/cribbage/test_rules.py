"""The variant registry, options, skunk lines and results."""

from __future__ import annotations

import pytest

import cribbage
from cribbage.errors import UnknownVariantError
from cribbage.rules import (
    RULES,
    GoRule,
    InvalidOptionError,
    PlayRounds,
    ResultKind,
    Rules,
    SkunkLines,
    SkunkRule,
    get_rules,
    result_of,
)


def test_registry_holds_the_four_variants_as_data() -> None:
    assert set(RULES) == {"six-card", "five-card", "three-player", "four-player"}
    six, five, three, four = (RULES[n] for n in
                              ("six-card", "five-card", "three-player", "four-player"))
    assert (six.players, six.deal, six.discard, six.hand_size, six.target) == (2, 6, 2, 4, 121)
    assert (five.deal, five.discard, five.hand_size, five.target) == (5, 2, 3, 61)
    assert five.non_dealer_start == 3 and five.play_rounds is PlayRounds.SINGLE
    assert five.hand_flush == 3 and six.hand_flush == 4
    assert (three.players, three.deal, three.discard, three.crib_from_deck) == (3, 5, 1, 1)
    assert four.sides == ((0, 2), (1, 3)) and four.side_of(2) == 0 and four.side_of(3) == 1
    for rules in RULES.values():
        assert rules.crib_size == 4
        assert rules.players * rules.hand_size + rules.crib_size + 1 <= 52
        assert rules.hand_size == rules.deal - rules.discard


def test_package_exports_the_registry() -> None:
    assert cribbage.RULES is RULES and cribbage.get_rules is get_rules


def test_unknown_variant_is_named() -> None:
    with pytest.raises(UnknownVariantError, match="'seven-card'"):
        get_rules("seven-card")


def test_options() -> None:
    rules = get_rules("six-card", target=61, skunk="lurch", muggins=True)
    assert (rules.target, rules.skunk, rules.muggins) == (61, SkunkRule.LURCH, True)
    assert get_rules("three-player", go_rule="uspc").go_rule is GoRule.USPC
    assert RULES["six-card"].target == 121  # the registry is untouched
    with pytest.raises(InvalidOptionError, match="target must be a positive"):
        get_rules("six-card", target=0)
    with pytest.raises(InvalidOptionError, match="skunk must be one of"):
        get_rules("six-card", skunk="triple")
    with pytest.raises(InvalidOptionError, match="unknown option 'colour'"):
        get_rules("six-card", colour="red")
    with pytest.raises(InvalidOptionError, match="double_skunk_games must be 3 or 4"):
        get_rules("six-card", double_skunk_games=5)


def test_skunk_lines() -> None:
    assert SkunkLines.for_target(121) == SkunkLines(skunk=91, double_skunk=61)
    assert SkunkLines.for_target(61) == SkunkLines(skunk=31)
    assert SkunkLines.for_target(121, "lurch") == SkunkLines(lurch=61)
    assert SkunkLines.for_target(61, "lurch") == SkunkLines(lurch=31)
    assert SkunkLines.for_target(121, "none") == SkunkLines()


@pytest.mark.parametrize(
    ("scores", "target", "skunk", "kind", "points"),
    [
        ((121, 91), 121, "skunk", ResultKind.WIN, 1),
        ((121, 90), 121, "skunk", ResultKind.SKUNK, 2),
        ((121, 61), 121, "skunk", ResultKind.SKUNK, 2),
        ((60, 121), 121, "skunk", ResultKind.DOUBLE_SKUNK, 4),
        ((121, 60), 121, "lurch", ResultKind.LURCH, 2),
        ((121, 61), 121, "lurch", ResultKind.WIN, 1),
        ((121, 0), 121, "none", ResultKind.WIN, 1),
        ((61, 30), 61, "skunk", ResultKind.SKUNK, 2),
        ((61, 31), 61, "skunk", ResultKind.WIN, 1),
        ((30, 61), 61, "lurch", ResultKind.LURCH, 2),
    ],
)
def test_result_of(scores: tuple[int, int], target: int, skunk: str, kind: ResultKind,
                   points: int) -> None:
    result = result_of(scores, target, skunk)
    assert result is not None
    assert result.kind is kind and result.game_points == points
    assert scores[result.winner] >= target and result.loser != result.winner


def test_double_skunk_can_be_tripled_and_no_result_before_the_target() -> None:
    assert result_of((121, 40), 121, "skunk", double_skunk_games=3).game_points == 3
    assert get_rules("six-card", double_skunk_games=3).result((121, 40)).game_points == 3
    assert result_of((120, 119), 121) is None
    three = result_of((50, 121, 95), 121)
    assert three is not None and (three.winner, three.loser, three.kind) == (
        1, 0, ResultKind.DOUBLE_SKUNK)


def test_rules_json_round_trip() -> None:
    for name in RULES:
        rules = get_rules(name, target=91, skunk="none", muggins=True)
        assert Rules.from_json(rules.to_json()) == rules
    with pytest.raises(InvalidOptionError, match="not a rules record"):
        Rules.from_json({"name": "six-card"})
