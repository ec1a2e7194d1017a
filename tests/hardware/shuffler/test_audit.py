"""The audit: an ideal machine matches the exact figures; radix is exact; faults are flagged."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from hardware.errors import PlanError, ShufflerError
from hardware.shuffler.audit import AuditConfig, expected_adjacent, format_report, simulate
from hardware.shuffler.physics import MachineModel


def _check(report, name):  # type: ignore[no-untyped-def]
    return next(c for c in report.checks if c.name == name)


def test_ideal_machine_at_7_passes_estimates_0334_within_its_error() -> None:
    report = simulate(AuditConfig(deck=52, passes=7, decks=4000, seed=11))
    assert report.tv_estimate is not None and report.tv_estimate_se is not None
    assert abs(report.tv_estimate - 0.334) < 4 * report.tv_estimate_se
    assert round(report.exact_tv, 3) == 0.334
    assert abs(report.runs_z) < 4
    assert report.runs_lower_bound < report.exact_tv + 4 * report.lower_bound_se
    assert report.ok, report.verdict
    assert "PASS" in report.verdict and "not a well-mixed deck" in report.verdict


def test_radix_at_6_passes_gives_every_deck_its_target_order() -> None:
    report = simulate(AuditConfig(deck=52, routing="radix", decks=600, seed=3))
    assert report.passes == 6
    assert report.exact_matches == 600
    assert report.misrouted == 0
    assert report.ok, report.verdict


def test_radix_with_undetected_misroutes_is_flagged() -> None:
    report = simulate(AuditConfig(deck=52, routing="radix", decks=300, seed=3,
                                  model=MachineModel(misroute=0.01)))
    assert report.exact_matches is not None and report.exact_matches < 300
    assert not _check(report, "exact order").ok
    assert "FLAGGED" in report.verdict


def test_clumpy_machine_is_flagged() -> None:
    report = simulate(AuditConfig(deck=52, passes=7, decks=1500, seed=5,
                                  model=MachineModel(q=0.7)))
    assert not report.ok
    assert not _check(report, "clumping").ok
    assert not _check(report, "rising sequences").ok
    assert report.runs_lower_bound > 0.5  # the runs alone prove it is far from 0.334
    assert "FLAGGED" in report.verdict


def test_biased_split_is_flagged() -> None:
    report = simulate(AuditConfig(deck=52, passes=9, decks=500, seed=5,
                                  model=MachineModel(p=0.3)))
    assert not _check(report, "split bias").ok


def test_symmetric_misroutes_do_no_harm_to_coin_routing() -> None:
    report = simulate(AuditConfig(deck=52, passes=7, decks=1000, seed=9,
                                  model=MachineModel(misroute=0.05)))
    assert report.ok, report.verdict


def test_104_cards_and_light_plan() -> None:
    report = simulate(AuditConfig(deck=104, passes=11, decks=600, seed=1))
    assert round(report.exact_tv, 3) == 0.060
    assert report.ok, report.verdict
    light = simulate(AuditConfig(deck=52, routing="light", decks=500, seed=1))
    assert light.passes == 3
    # about 6.4 neighbour pairs still together, as an ideal machine leaves them after 3 passes:
    # the machine passes, and the verdict says the deck is not well mixed
    assert round(light.adjacency_expected, 2) == 6.39
    assert 5.5 < light.adjacency_excess + light.adjacency_expected < 7.3
    assert light.ok, light.verdict
    assert "not a well-mixed deck (TV 1.000" in light.verdict


def _stable_sort_adjacency(n: int, k: int) -> Fraction:
    """Mean neighbour pairs kept, by enumerating every labelling of k inverse riffles."""
    a = 1 << k
    total = 0
    for labels in itertools.product(range(a), repeat=n):
        pos = {c: i for i, c in enumerate(sorted(range(n), key=labels.__getitem__))}
        total += sum(abs(pos[i] - pos[i + 1]) == 1 for i in range(n - 1))
    return Fraction(total, a**n)


@pytest.mark.parametrize(("n", "k"), [(2, 3), (3, 1), (4, 2), (5, 2), (6, 1), (6, 2)])
def test_exact_adjacency_matches_enumeration(n: int, k: int) -> None:
    assert expected_adjacent(n, k) == _stable_sort_adjacency(n, k)


def test_exact_adjacency_limits() -> None:
    assert expected_adjacent(52, 0) == 51  # no pass: every neighbour still there
    assert expected_adjacent(52, None) == Fraction(2 * 51, 52)  # a random deck
    assert abs(float(expected_adjacent(52, 30)) - 2 * 51 / 52) < 1e-6
    assert [round(float(expected_adjacent(52, k)), 2) for k in (1, 2, 3, 5, 9)] == [
        25.5, 12.75, 6.39, 2.37, 1.96]
    with pytest.raises(ValueError):
        expected_adjacent(1, 3)


@pytest.mark.parametrize("deck", [52, 104])
@pytest.mark.parametrize("k", range(1, 12))
def test_an_ideal_machine_passes_at_every_pass_count(deck: int, k: int) -> None:
    report = simulate(AuditConfig(deck=deck, passes=k, decks=600, seed=100 * k + deck))
    assert report.ok, report.verdict
    assert abs(report.adjacency_excess) < _check(report, "adjacency").limit  # not too few either


@pytest.mark.parametrize("routing", ["light", "radix"])
def test_an_ideal_machine_passes_the_products_own_plans(routing: str) -> None:
    report = simulate(AuditConfig(deck=52, routing=routing, decks=400, seed=8))
    assert report.ok, report.verdict


@pytest.mark.parametrize(
    ("k", "model", "alarm"),
    [(3, MachineModel(p=0.4), "adjacency"), (5, MachineModel(p=0.3), "adjacency"),
     (3, MachineModel(q=0.6), "adjacency"), (9, MachineModel(q=0.7), "adjacency"),
     (7, MachineModel(p=0.4), "split bias"), (5, MachineModel(double_feed=0.05), None)],
)
def test_faulty_machines_are_still_flagged(k: int, model: MachineModel, alarm: str | None) -> None:
    report = simulate(AuditConfig(deck=52, passes=k, decks=1000, seed=k, model=model))
    assert not report.ok and "FLAGGED" in report.verdict
    if alarm is not None:
        assert not _check(report, alarm).ok


def test_report_text_and_json() -> None:
    report = simulate(AuditConfig(deck=20, passes=5, decks=200, seed=2))
    text = format_report(report)
    assert "rising sequences" in text and "TV estimate" in text
    data = report.to_json()
    assert data["deck"] == 20 and data["passes"] == 5 and data["ok"] == report.ok
    assert {c["name"] for c in data["checks"]} >= {"rising sequences", "TV estimate",
                                                    "runs lower bound", "adjacency"}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [({"deck": 105}, ShufflerError), ({"routing": "magic"}, PlanError),
     ({"decks": 1}, ShufflerError), ({"routing": "radix", "passes": 5}, PlanError)],
)
def test_bad_audit_settings(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        simulate(AuditConfig(**kwargs))
    with pytest.raises(ValueError):
        simulate(AuditConfig(**kwargs))
