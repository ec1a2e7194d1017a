"""Audit a shuffler model: simulate many decks and compare them with the exact mathematics.

The fast path simulates routing directly (no timed device), in pure Python, and reports
the checks of docs/shuffling.md: rising sequences against the exact E_k[R], the
unbiased TV estimate beside the exact TV, lower bounds from runs and successions, the
adjacency alarm against the exact expectation for k passes, split bias and clumping, and for
radix plans that every deck came out exactly in its target order.
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import compress
from operator import eq, gt
from typing import Any

from hardware.errors import PlanError, ShufflerError
from hardware.shuffler import math as smath
from hardware.shuffler.physics import MachineModel, deal_and_stack, feed_order
from hardware.shuffler.plan import LIGHT_PASSES, Pile, check_deck_size, make_plan

ROUTINGS = ("coin", "radix", "light")
_ONE = (1).__add__
_TO_SELECT = bytes.maketrans(b"01", b"\x00\x01")
_TO_UNSELECT = bytes.maketrans(b"01", b"\x01\x00")
_FLIP = bytes.maketrans(b"\x00\x01", b"\x01\x00")


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """What to audit; raises ShufflerError (a ValueError) for impossible settings."""

    deck: int = 52
    passes: int | None = None  # None: the plan's own count
    routing: str = "coin"
    decks: int = 20_000
    model: MachineModel = field(default_factory=MachineModel)
    seed: int | None = None

    def __post_init__(self) -> None:
        check_deck_size(self.deck)
        if self.routing not in ROUTINGS:
            raise PlanError(f"unknown routing {self.routing!r}; choose coin, radix or light")
        if isinstance(self.decks, bool) or not isinstance(self.decks, int) or self.decks < 2:
            raise ShufflerError(f"the audit needs at least 2 decks, got {self.decks!r}")
        if self.passes is not None and (not isinstance(self.passes, int) or self.passes < 1):
            raise ShufflerError(f"passes must be a whole number from 1 up, got {self.passes!r}")

    def resolved_passes(self) -> int:
        """The pass count audited. Raises PlanError for a radix plan with too few passes."""
        if self.routing == "radix":
            need = smath.radix_passes(self.deck)
            k = self.passes if self.passes is not None else need
            if k < need:
                raise PlanError(
                    f"radix routing of {self.deck} cards needs at least {need} passes, got {k}"
                )
            return k
        if self.passes is not None:
            return self.passes
        if self.routing == "light":
            return LIGHT_PASSES
        return make_plan(self.deck, "random").passes


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the checks table."""

    name: str
    value: float
    limit: float
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "limit": self.limit,
            "ok": self.ok,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class AuditReport:
    """The audit's figures, checks and verdict."""

    config: AuditConfig
    passes: int
    exact_tv: float  # the plan's claim: exact TV of an ideal machine (0 for radix)
    runs_mean: float
    runs_expected: float
    runs_sd: float
    runs_z: float
    tv_estimate: float | None
    tv_estimate_se: float | None
    runs_lower_bound: float
    successions_lower_bound: float
    lower_bound_se: float
    adjacency_excess: float  # over the ideal machine's exact mean for these passes
    adjacency_expected: float
    split_left: float
    split_se: float
    clumping: float
    clumping_se: float
    misrouted: int
    exact_matches: int | None
    position_z: float | None
    checks: tuple[Check, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def verdict(self) -> str:
        """One paragraph a maker can act on."""
        failed = [c for c in self.checks if not c.ok]
        cfg = self.config
        head = f"{cfg.decks} decks of {cfg.deck} cards, {_passes(self.passes, cfg.routing)}: "
        if failed:
            return head + "FLAGGED: " + "; ".join(c.detail for c in failed) + "."
        if cfg.routing == "radix":
            return head + "PASS: every deck came out in its secret target order, and the " \
                "target orders look uniform."
        mix = (
            "a well-mixed deck"
            if self.exact_tv < 0.1
            else f"but {_passes(self.passes)} {'is' if self.passes == 1 else 'are'} not a "
            f"well-mixed deck (TV {self.exact_tv:.3f}; "
            f"{smath.passes_needed(cfg.deck, 0.1)} passes give TV < 0.1)"
        )
        return head + f"PASS: the machine behaves like the ideal model, {mix}."

    def to_json(self) -> dict[str, Any]:
        cfg = self.config
        return {
            "deck": cfg.deck,
            "passes": self.passes,
            "routing": cfg.routing,
            "decks": cfg.decks,
            "model": {
                "p": cfg.model.p,
                "q": cfg.model.q,
                "misroute": cfg.model.misroute,
                "double_feed": cfg.model.double_feed,
            },
            "seed": cfg.seed,
            "exact_tv": self.exact_tv,
            "runs": {
                "mean": self.runs_mean,
                "expected": self.runs_expected,
                "sd": self.runs_sd,
                "z": self.runs_z,
            },
            "tv_estimate": self.tv_estimate,
            "tv_estimate_se": self.tv_estimate_se,
            "runs_lower_bound": self.runs_lower_bound,
            "successions_lower_bound": self.successions_lower_bound,
            "lower_bound_se": self.lower_bound_se,
            "adjacency_excess": self.adjacency_excess,
            "adjacency_expected": self.adjacency_expected,
            "split_left": self.split_left,
            "clumping": self.clumping,
            "misrouted": self.misrouted,
            "exact_matches": self.exact_matches,
            "position_z": self.position_z,
            "checks": [c.to_json() for c in self.checks],
            "ok": self.ok,
            "verdict": self.verdict,
            "seconds": self.seconds,
        }


def expected_adjacent(n: int, k: int | None) -> Fraction:
    """Exact mean number of original neighbour pairs still side by side (in either order)
    after k ideal coin passes of n cards; k None: a uniformly random deck.

    k passes are k inverse riffles (a bottom-fed pass is a stable split), so
    the deck is the stable sort of the cards by independent uniform labels in 0..a-1,
    a = 2^k. Neighbours i, i+1 stay together when their labels are equal (1/a), or when the
    labels differ by d and no other card holds one of the d labels between them, counting
    the lower end on one side and the upper on the other: sum over d of 2 (a-d)/a^2 *
    (1-d/a)^(n-2). The same for every pair, so E = (n-1) (1/a + 2 sum_m m^(n-1) / a^n).
    Raises ValueError for n < 2 or k < 0.
    """
    if n < 2 or (k is not None and k < 0):
        raise ValueError(f"need n >= 2 cards and k >= 0 passes, got n={n}, k={k}")
    if k is None:
        return Fraction(2 * (n - 1), n)
    a = 1 << k
    tail = sum(m ** (n - 1) for m in range(1, a)) if a <= 4096 else _power_sum(a, n - 1)
    return (n - 1) * (Fraction(1, a) + Fraction(2 * tail, a**n))


def position_z(positions: Sequence[int], decks: int, n: int) -> float:
    """The card-by-position chi-square of `decks` decks of n cards (positions[card * n +
    pos] counts), in standard errors from a uniform deck's.

    Each deck puts every card at exactly one position, so a cell's count is Binomial(decks,
    1/n) and the statistic's mean is n (n - 1), not the (n - 1)^2 of a table of independent
    draws (which would read about +0.7 for a perfect shuffler); its spread is close to
    sqrt(2) (n - 1), measured over uniform decks.
    """
    e = decks / n
    x2 = sum((c - e) ** 2 for c in positions) / e
    return (x2 - n * (n - 1)) / (math.sqrt(2) * (n - 1))


@functools.cache
def _bernoulli(p: int) -> tuple[Fraction, ...]:
    """B_0..B_p (with B_1 = -1/2)."""
    b: list[Fraction] = []
    for m in range(p + 1):
        b.append(Fraction(int(m == 0)) - sum(
            (math.comb(m + 1, j) * b[j] for j in range(m)), Fraction(0)) / (m + 1))
    return tuple(b)


def _power_sum(a: int, p: int) -> Fraction:
    """0^p + 1^p + ... + (a-1)^p, by Faulhaber's formula (for a with too many terms)."""
    b = _bernoulli(p)
    return sum((math.comb(p + 1, j) * b[j] * a ** (p + 1 - j) for j in range(p + 1)),
               Fraction(0)) / (p + 1)


def _bernstein_z(var: float, step: float, samples: int, log_odds: float = 8.0) -> float:
    """The limit, in standard errors, that the mean of `samples` draws of a law with this
    variance and widest step from its mean passes with probability at most 2 e^-log_odds
    (Bernstein's inequality); 4 for a law with small steps."""
    if var <= 0:
        return 4.0
    b = 2 * step * log_odds / 3
    t = (b + math.sqrt(b * b + 8 * samples * log_odds * var)) / (2 * samples)
    return t / math.sqrt(var / samples)


def _binomial_mad(n: int, p: float) -> float:
    """E|X - n p| for X ~ Binomial(n, p) (de Moivre's closed form)."""
    if p <= 0.0 or p >= 1.0:
        return 0.0
    m = math.floor(n * p) + 1
    if m > n:
        return 0.0
    log_term = (
        math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1)
        + m * math.log(p) + (n - m + 1) * math.log1p(-p)
    )
    return 2.0 * m * math.exp(log_term)


def noise_floor(law: Sequence[Fraction | float], samples: int) -> float:
    """Expected plug-in TV of `samples` draws from `law` against `law` itself."""
    return 0.5 * sum(_binomial_mad(samples, float(p)) for p in law) / samples


def plug_in_tv(counts: Sequence[int], law: Sequence[Fraction | float], samples: int) -> float:
    """TV between the empirical histogram `counts` and the reference `law`."""
    return 0.5 * sum(abs(c / samples - float(p)) for c, p in zip(counts, law, strict=True))


class _Tally:
    """Per-deck statistics, accumulated."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.decks = 0
        self.runs = [0] * (n + 1)  # index r
        self.succ = [0] * n  # index j
        self.adjacent = 0
        self.adjacent_sq = 0
        self.left = 0
        self.same = 0
        self.cards = 0
        self.pairs = 0
        self.misrouted = 0

    def deck(self, d: list[int]) -> None:
        nxt = d[1:]
        r = 1 + sum(map(gt, d, nxt))
        s = sum(map(eq, map(_ONE, d), nxt))
        s_rev = sum(map(eq, d, map(_ONE, nxt)))
        self.runs[r] += 1
        self.succ[s] += 1
        self.adjacent += s + s_rev
        self.adjacent_sq += (s + s_rev) ** 2
        self.decks += 1


def _fast_coin_deck(n: int, k: int, rng: random.Random, tally: _Tally) -> list[int]:
    """k ideal coin passes of the ordered deck (as physics.deal_and_stack: bottom-fed, each
    pass a stable split, no reversal)."""
    d = list(range(n))
    mask = (1 << (n - 1)) - 1
    fmt = f"0{n}b"
    for _ in range(k):
        bits = rng.getrandbits(n)
        s = format(bits, fmt).encode()
        # '1' = the left pile, stacked on top; each pile keeps the deck's order (bit i is the
        # card at position i: the bits are fair and independent, so which card is fed first
        # does not matter)
        d = list(compress(d, s.translate(_TO_SELECT))) + list(
            compress(d, s.translate(_TO_UNSELECT)))
        ones = bits.bit_count()
        tally.left += ones
        tally.same += (n - 1) - ((bits ^ (bits >> 1)) & mask).bit_count()
    tally.cards += n * k
    tally.pairs += (n - 1) * k
    return d


def _model_pass(
    d: list[int],
    commanded: Sequence[Pile],
    model: MachineModel,
    rng: random.Random,
    tally: _Tally,
    top_pile: Pile,
) -> list[int]:
    """One pass on an imperfect machine (commanded[i]: the pile of the i-th card fed, the
    bottom card first): clumping, bias, misroutes and double feeds.

    A double-fed card (the one above) rides out on the card fed, so the two land as one unit
    in that card's pile, their order kept.
    """
    n = len(d)
    landed: list[Pile] = []  # the pile each card reached, in feed order
    prev: Pile | None = None
    i = 0
    while i < n:
        cmd = commanded[i]
        size = 1
        if model.double_feed and i + 1 < n and rng.random() < model.double_feed:
            size = 2  # the next card rides along, its own command ignored
            tally.misrouted += commanded[i + 1] is not cmd
        pile = model.actual_pile(cmd, prev, rng)
        tally.misrouted += (pile is not cmd) * size
        for _ in range(size):
            tally.left += pile is Pile.LEFT
            if prev is not None:
                tally.same += pile is prev
                tally.pairs += 1
            prev = pile
            landed.append(pile)
        i += size
    tally.cards += n
    # a unit's two cards keep their order in the pile, as any two cards of one pile do
    return deal_and_stack(d, landed, top_pile)


def _ideal_radix_pass(d: list[int], keys: list[int], shift: int, tally: _Tally) -> list[int]:
    """One radix pass on an ideal machine: every card reaches the pile commanded, a 0 bit the
    pile stacked on top; a bottom-fed pass is a stable split."""
    sel = bytes([(keys[c] >> shift) & 1 for c in d])
    tally.cards += len(d)
    return list(compress(d, sel.translate(_FLIP))) + list(compress(d, sel))


def _coin_commands(n: int, rng: random.Random) -> list[Pile]:
    bits = rng.getrandbits(n)
    return [Pile.LEFT if (bits >> i) & 1 else Pile.RIGHT for i in range(n)]


def simulate(config: AuditConfig) -> AuditReport:
    """Run the audit. Raises ShufflerError / PlanError for impossible settings."""
    started = time.perf_counter()
    n = config.deck
    k = config.resolved_passes()
    rng = random.Random(config.seed)
    model = config.model
    tally = _Tally(n)
    radix = config.routing == "radix"
    exact_matches = 0
    positions = [0] * (n * n) if radix else None
    for _ in range(config.decks):
        if radix:
            plan = make_plan(n, "exact", passes=k, rng=rng)
            target = plan.target
            assert target is not None
            keys = [plan.key(c) for c in range(n)]
            d = list(range(n))
            for j in range(1, k + 1):
                if model.ideal:
                    d = _ideal_radix_pass(d, keys, j - 1, tally)
                    continue
                cmds = [plan.radix_pile(j, c) for c in feed_order(d)]
                d = _model_pass(d, cmds, model, rng, tally, plan.top_pile)
            # the deck is right when every card sits at its target position
            exact_matches += all(target[c] == pos for pos, c in enumerate(d))
            assert positions is not None
            for pos, c in enumerate(d):
                positions[c * n + pos] += 1
            tally.deck(d)
        elif model.ideal:
            tally.deck(_fast_coin_deck(n, k, rng, tally))
        else:
            d = list(range(n))
            for _ in range(k):
                d = _model_pass(d, _coin_commands(n, rng), model, rng, tally, Pile.LEFT)
            tally.deck(d)
    return _report(config, k, tally, exact_matches if radix else None, positions,
                   time.perf_counter() - started)


def _report(
    config: AuditConfig,
    k: int,
    t: _Tally,
    exact_matches: int | None,
    positions: list[int] | None,
    seconds: float,
) -> AuditReport:
    n, N = config.deck, t.decks
    radix = config.routing == "radix"
    checks: list[Check] = []

    # Rising sequences against the exact law of the claimed plan.
    if radix:
        law: Sequence[Fraction] = smath.uniform_run_law(n)
        exact_tv = 0.0
    else:
        law = smath.run_law(n, k)
        exact_tv = smath.tv(n, k)
    mu = sum((r * p for r, p in enumerate(law, start=1)), Fraction(0))
    expected = float(mu)
    var = float(sum(((r - mu) ** 2 * p for r, p in enumerate(law, start=1)), Fraction(0)))
    sd = math.sqrt(var)
    mean = sum(r * c for r, c in enumerate(t.runs)) / N
    # Few passes make a law with nearly all its weight on 2^k sequences and a sliver far
    # below, where one rare deck moves the mean by many standard errors: widen the 4 SE
    # limit by Bernstein's inequality, with the widest step a deck can take under the law.
    support = [r for r, p in enumerate(law, start=1) if p]
    z_limit = _bernstein_z(var, max(expected - support[0], support[-1] - expected), N)
    if sd > 0:
        z = (mean - expected) / (sd / math.sqrt(N))
    else:
        z = 0.0 if mean == expected else math.inf
    checks.append(Check(
        "rising sequences", z, z_limit, abs(z) < z_limit,
        f"mean rising sequences {mean:.3f} vs exact {expected:.3f} (z = {z:+.1f})",
    ))

    # Unbiased TV estimate under the ideal coin model.
    tv_est: float | None = None
    tv_se: float | None = None
    if not radix:
        terms = smath.tv_terms(n, k)
        tv_est = sum(terms[r - 1] * c for r, c in enumerate(t.runs) if c) / N
        second = sum(terms[r - 1] ** 2 * c for r, c in enumerate(t.runs) if c) / N
        tv_se = math.sqrt(max(second - tv_est**2, 0.0) / N)
        # Near TV 1 the terms differ from 1 by 1e-12 and float sums wander by as much.
        limit = exact_tv + 4 * tv_se + 1e-9
        checks.append(Check(
            "TV estimate", tv_est, limit, tv_est < limit,
            f"estimated TV {tv_est:.3f} +- {tv_se:.3f} vs exact {exact_tv:.3f}",
        ))

    # Lower bounds: plug-in TV of statistics against a uniform deck, minus the noise floor.
    lb_se = 0.5 / math.sqrt(N)
    uni_runs = smath.uniform_run_law(n)
    runs_lb = plug_in_tv(t.runs[1:], uni_runs, N) - noise_floor(uni_runs, N)
    succ_law = smath.succession_law(n)
    succ_lb = plug_in_tv(t.succ, succ_law, N) - noise_floor(succ_law, N)
    for name, lb in (("runs lower bound", runs_lb), ("successions lower bound", succ_lb)):
        limit = exact_tv + 4 * lb_se
        checks.append(Check(
            name, lb, limit, lb < limit,
            f"TV is at least {lb:.3f} by {name.split()[0]} (plan claims {exact_tv:.3f})",
        ))

    # Adjacency alarm: original neighbours still side by side, beyond what an ideal machine
    # leaves after these k passes (a radix plan's deck is uniformly random). The spread comes
    # from the sample, since few passes leave a count far wider than a random deck's.
    adj_expected = float(expected_adjacent(n, None if radix else k))
    adj_mean = t.adjacent / N
    adj_var = max(t.adjacent_sq / N - adj_mean**2, 0.0) * N / (N - 1)
    excess = adj_mean - adj_expected
    adj_limit = 0.25 + 4 * math.sqrt(max(adj_var, 2.0) / N)
    checks.append(Check(
        "adjacency", excess, adj_limit, excess < adj_limit,
        f"{adj_mean:.2f} original neighbour pairs still together, ideal machine "
        f"{adj_expected:.2f} ({excess:+.2f})",
    ))

    # Routing log: split bias and clumping of the piles the cards reached.
    split = t.left / t.cards if t.cards else 0.5
    split_se = math.sqrt(0.25 / t.cards) if t.cards else 0.0
    clump = t.same / t.pairs if t.pairs else 0.5
    clump_se = math.sqrt(0.25 / t.pairs) if t.pairs else 0.0
    if not radix:
        lim = 0.05 + 4 * split_se
        checks.append(Check(
            "split bias", abs(split - 0.5), lim, abs(split - 0.5) < lim,
            f"{split:.3f} of cards went left",
        ))
        lim = 0.55 + 4 * clump_se
        checks.append(Check(
            "clumping", clump, lim, clump < lim,
            f"{clump:.3f} of cards went to the same pile as the card before",
        ))

    pos_z: float | None = None
    if radix:
        assert exact_matches is not None and positions is not None
        checks.append(Check(
            "exact order", float(exact_matches), float(N), exact_matches == N,
            f"{exact_matches} of {N} decks came out exactly in their target order",
        ))
        checks.append(Check(
            "misrouted cards", float(t.misrouted), 0.0, t.misrouted == 0,
            f"{t.misrouted} cards reached a pile other than the one commanded",
        ))
        # Every card equally likely at every position: chi-square over the n x n table.
        pos_z = position_z(positions, N, n)
        checks.append(Check(
            "positions", pos_z, 4.0, abs(pos_z) < 4,
            f"card-by-position chi-square z = {pos_z:+.1f}",
        ))

    return AuditReport(
        config=config, passes=k, exact_tv=exact_tv,
        runs_mean=mean, runs_expected=expected, runs_sd=sd, runs_z=z,
        tv_estimate=tv_est, tv_estimate_se=tv_se,
        runs_lower_bound=runs_lb, successions_lower_bound=succ_lb, lower_bound_se=lb_se,
        adjacency_excess=excess, adjacency_expected=adj_expected,
        split_left=split, split_se=split_se,
        clumping=clump, clumping_se=clump_se, misrouted=t.misrouted,
        exact_matches=exact_matches, position_z=pos_z, checks=tuple(checks), seconds=seconds,
    )


def _passes(k: int, routing: str = "") -> str:
    """"1 pass", "5 coin passes": the count with its noun."""
    return f"{k} {routing + ' ' if routing else ''}{'pass' if k == 1 else 'passes'}"


def format_report(report: AuditReport) -> str:
    """The report as text for a terminal."""
    cfg = report.config
    lines = [
        f"shuffle audit: {cfg.decks} decks of {cfg.deck} cards, {_passes(report.passes)}, "
        f"{cfg.routing} routing (p={cfg.model.p}, q={cfg.model.q}, "
        f"misroute={cfg.model.misroute}, double feed={cfg.model.double_feed})",
        f"  exact TV of the plan (ideal machine): {report.exact_tv:.3f}",
        f"  rising sequences: mean {report.runs_mean:.3f}, exact {report.runs_expected:.3f}, "
        f"sd {report.runs_sd:.2f}, z {report.runs_z:+.2f}",
    ]
    if report.tv_estimate is not None:
        lines.append(
            f"  TV estimate (unbiased, ideal model): {report.tv_estimate:.3f} "
            f"+- {report.tv_estimate_se:.3f}"
        )
    lines += [
        f"  TV lower bound from runs: {report.runs_lower_bound:.3f}; "
        f"from successions: {report.successions_lower_bound:.3f}",
        f"  adjacency: {report.adjacency_expected + report.adjacency_excess:.3f}, ideal "
        f"{report.adjacency_expected:.3f}; split left {report.split_left:.3f};"
        f" clumping {report.clumping:.3f}",
    ]
    if report.exact_matches is not None:
        lines.append(f"  decks in exact target order: {report.exact_matches} of {cfg.decks}")
    lines.append("  checks:")
    for c in report.checks:
        mark = "ok   " if c.ok else "ALARM"
        lines.append(f"    {mark} {c.name}: {c.detail}")
    lines.append(f"  time: {report.seconds:.2f} s")
    lines.append(report.verdict)
    return "\n".join(lines)
