"""The hands-free shuffler's audit: many decks through the whole simulated machine (the
hands-free controller, the drop shaft's physics, the machine's own restacks), each from one
touch, judged by `handsfree.uniformity` (the card-by-position chi-square of `audit.position_z`
and the neighbours still together, both two-sided).

Each deck is taken relative to the deck that went in: deck[p] is the input position of the
card that came out at position p, so a uniform machine gives uniform permutations whatever
order it was handed. `wrong_restacks` makes that share of restacks end in the wrong order
behind the sensors' back, to show the statistics catch a machine whose restacks go wrong.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from hardware.clock import FakeClock
from hardware.errors import ShufflerError
from hardware.interfaces import DeviceState
from hardware.shuffler import handsfree
from hardware.shuffler.handsfree import Uniformity
from hardware.shuffler.handsfree_machine import SimulatedHandsFreeShuffler

# A deck that still needs the player after this many prompts is a machine that does not work.
MAX_PROMPTS = 4


@dataclass
class AuditRun:
    """The decks a run handed back, and what it took."""

    cards: int
    decks: list[tuple[int, ...]] = field(default_factory=list)
    machine_s: float = 0.0  # the simulated machine's own time, every deck
    wall_s: float = 0.0  # this computer's time to simulate them
    replans: int = 0  # fresh plans the machine made itself
    prompts: int = 0  # times the player was asked
    wrong_made: int = 0  # restacks made wrong on purpose

    def uniformity(self) -> Uniformity:
        """The decks' uniformity (handsfree.uniformity). Raises ShufflerError for fewer than
        2 decks."""
        return handsfree.uniformity(self.decks)

    def summary(self) -> dict[str, Any]:
        """JSON-ready figures of the run."""
        u = self.uniformity()
        n = len(self.decks)
        return {"decks": n, "cards": self.cards, "position_z": round(u.position_z, 2),
                "adjacency_mean": round(u.adjacency_mean, 4),
                "adjacency_expected": round(u.adjacency_expected, 4),
                "adjacency_z": round(u.adjacency_z, 2), "uniform": u.ok(),
                "machine_s_per_deck": round(self.machine_s / n, 1) if n else None,
                "wall_s": round(self.wall_s, 1), "replans": self.replans,
                "prompts": self.prompts, "wrong_restacks_made": self.wrong_made}


def run(decks: int, cards: int = 52, *, seed: int | None = None,
        wrong_restacks: float = 0.0, wrong_pass: int | None = None, jobs: int = 1,
        **machine: Any) -> AuditRun:
    """Shuffle `decks` decks of `cards` through one simulated hands-free machine, one touch
    each (and what any prompt asks); `seed` makes the plans and the machine repeatable
    (None: the plans from the secure source); `wrong_restacks` / `wrong_pass` make restacks
    wrong behind the sensors (SimulatedHandsFreeShuffler). `machine` goes to the simulator
    too (params, shaft_params, faults). `jobs` above 1 shares the decks among that many
    processes, each its own machine (seeded seed, seed + 2, ... when seeded).

    Raises ShufflerError for a bad count, or a deck the machine could not finish.
    """
    if decks < 1:
        raise ShufflerError(f"an audit needs at least 1 deck, got {decks}")
    if jobs < 1:
        raise ShufflerError(f"an audit needs at least 1 job, got {jobs}")
    jobs = min(jobs, decks)
    if jobs > 1:
        return _run_shared(decks, cards, seed, wrong_restacks, wrong_pass, jobs, machine)
    rng = random.Random(seed) if seed is not None else None
    machine_rng = random.Random(None if seed is None else seed + 1)
    clock = FakeClock()
    sim = SimulatedHandsFreeShuffler(clock, rng=rng, machine_rng=machine_rng,
                                     touch_deck=cards, wrong_restacks=wrong_restacks,
                                     wrong_pass=wrong_pass, **machine)
    sim.open()
    out = AuditRun(cards)
    started = time.perf_counter()
    t0 = clock.monotonic()
    try:
        for i in range(decks):
            sim.touch()
            before = sim.touch_decks[-1]  # as the player loaded it, or as the last left it
            for _ in range(MAX_PROMPTS + 1):
                sim.run_until_settled(max_seconds=3600)
                if sim.state is not DeviceState.FAULT:
                    break
                out.prompts += 1
                sim.touch()
            after = sim.table.deck()
            if sim.state is not DeviceState.IDLE or sorted(after) != sorted(before) \
                    or len(after) != cards:
                raise ShufflerError(f"deck {i + 1} of the audit did not come back whole: "
                                    f"{sim.status().state.value}, {len(after)} cards")
            where = {card: pos for pos, card in enumerate(before)}
            out.decks.append(tuple(where[c] for c in after))
    finally:
        sim.stop()
    out.machine_s = clock.monotonic() - t0
    out.wall_s = time.perf_counter() - started
    out.replans, out.wrong_made = sim.replans, sim.wrong_made
    return out


def _run_shared(decks: int, cards: int, seed: int | None, wrong_restacks: float,
                wrong_pass: int | None, jobs: int, machine: dict[str, Any]) -> AuditRun:
    """`run` over `jobs` processes, their decks put together in job order."""
    from concurrent.futures import ProcessPoolExecutor

    shares = [decks // jobs + (1 if k < decks % jobs else 0) for k in range(jobs)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        parts = list(pool.map(_run_one, [
            (share, cards, None if seed is None else seed + 2 * k, wrong_restacks, wrong_pass,
             machine) for k, share in enumerate(shares)]))
    out = AuditRun(cards)
    for part in parts:
        out.decks.extend(part.decks)
        out.machine_s += part.machine_s
        out.replans += part.replans
        out.prompts += part.prompts
        out.wrong_made += part.wrong_made
    out.wall_s = time.perf_counter() - started
    return out


def _run_one(job: tuple[int, int, int | None, float, int | None, dict[str, Any]]) -> AuditRun:
    decks, cards, seed, wrong_restacks, wrong_pass, machine = job
    return run(decks, cards, seed=seed, wrong_restacks=wrong_restacks, wrong_pass=wrong_pass,
               **machine)


def main(argv: list[str] | None = None) -> int:
    """`python -m hardware.shuffler.handsfree_audit [DECKS] [CARDS] [WRONG]`: print the
    figures of a run (and of a run with that share of restacks made wrong)."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    decks = int(args[0]) if args else 5000
    cards = int(args[1]) if len(args) > 1 else 52
    wrong = float(args[2]) if len(args) > 2 else 0.0
    print(json.dumps(run(decks, cards, wrong_restacks=wrong).summary()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
