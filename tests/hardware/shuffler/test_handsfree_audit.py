"""The hands-free audit: decks through the whole simulated machine, judged for uniformity
(hardware.shuffler.handsfree_audit)."""

from __future__ import annotations

import random

import pytest

from hardware.shuffler import handsfree, handsfree_audit


def test_each_deck_is_a_permutation_of_what_went_in() -> None:
    run = handsfree_audit.run(4, 52, seed=3)
    assert len(run.decks) == 4
    assert all(sorted(d) == list(range(52)) for d in run.decks)
    assert len(set(run.decks)) == 4  # a fresh secret order each time
    assert run.prompts == 0 and run.replans == 0
    # each deck takes about what the module's arithmetic says a shuffle of 52 takes
    model = handsfree.shuffle_s(handsfree.plan_random(52, rng=random.Random(3)))
    assert 0.7 < run.machine_s / 4 / model < 1.25
    summary = run.summary()
    assert summary["decks"] == 4 and summary["wrong_restacks_made"] == 0


def test_decks_shared_among_processes_are_each_a_machines_own_and_all_counted() -> None:
    shared = handsfree_audit.run(5, 52, seed=3, jobs=2)
    assert len(shared.decks) == 5 and all(sorted(d) == list(range(52)) for d in shared.decks)
    # the first process is the one-process run's machine with the same seed, deck for deck
    assert shared.decks[:3] == handsfree_audit.run(3, 52, seed=3).decks
    assert shared.decks[3:] == handsfree_audit.run(2, 52, seed=5).decks
    assert shared.machine_s > 0 and shared.prompts == 0


def test_a_wrong_restack_is_counted_and_changes_the_deck() -> None:
    right = handsfree_audit.run(2, 52, seed=4)
    wrong = handsfree_audit.run(2, 52, seed=4, wrong_pass=1)
    assert wrong.wrong_made == 2
    assert right.decks != wrong.decks  # the same plans, one restack swapped


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_audit_passes_a_right_machine_and_fails_a_wrong_restack() -> None:
    # With the machine's quiet keys a wrong first restack leaves the positions uniform but
    # keeps runs of neighbours together: 2.67 against 1.96, z = +31.9 over 5,000 decks
    # (docs/hands-free.md), so about 9 over the 400 here; a right machine within 4
    right = handsfree_audit.run(200, 52, seed=11)
    u = right.uniformity()
    print("right", right.summary())
    assert u.ok(), u
    wrong = handsfree_audit.run(400, 52, seed=12, wrong_pass=1)
    w = wrong.uniformity()
    print("first restack wrong", wrong.summary())
    assert not w.ok() and w.adjacency_z > 4, w
