"""The hands-free shuffler's order by construction: what a pass and a restack of the drop
shaft do to the deck, the radix plan that reaches a secret target order exactly, and the
checks that each pass and each restack happened as the plan needs.

The mechanism (docs/hands-free.md): the deck lies face down in the tray and the roller feeds
its bottom card first. Each card rises up the riser (turning over on the way) and the router
sends it into the upper or the lower bay of the drop shaft, which stands over the tray; the
card lands on top of that bay's pile. Fed from the bottom and landing on top, a bay holds its
cards in the deck's own order: no reversal. After the pass the lower bay's doors open, then
the upper bay's: the lower pile is the bottom of the new deck and the upper pile lands on it.
So a pass is a stable two-pile split with the upper bay's cards on top, and least-significant
digit first radix routing on the target position gives exactly the target deck.

The machine cannot tell one card from another: it routes the i-th card it feeds by the card it
believes is there, from its own commands. A restack in another order than the one planned
makes that belief wrong, and the deck is then no longer uniform; so every restack is checked
against what the door sensors and the tray's load cell read.

Deck orders are tuples of card ids, index 0 the top card; card ids are the cards' positions
at the start of the plan. Pure Python, no I/O.
"""

from __future__ import annotations

import bisect
import enum
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING

from hardware.errors import PlanError, ShufflerError
from hardware.shuffler import design, pace, physics
from hardware.shuffler import math as smath
from hardware.shuffler.audit import expected_adjacent, position_z
from hardware.shuffler.physics import feed_order
from hardware.shuffler.plan import Pile, check_deck_size, radix_key, secure_rng

if TYPE_CHECKING:
    from hardware.shuffler.ranges import Params

MAX_PASSES = 64
# The most cards a bay takes in any plan of up to 104 cards in its minimum or face-down
# passes (96 cards put 64 in one bay): the bays are drawn for this many of the thickest card.
BAY_CAPACITY = 64


class Bay(enum.StrEnum):
    """The drop shaft's two bays: the upper one stands on the lower one's doors."""

    UPPER = "upper"
    LOWER = "lower"

    @property
    def other(self) -> Bay:
        return Bay.LOWER if self is Bay.UPPER else Bay.UPPER


# The router's two positions, as the controller names them: the flap's near branch turns a
# card into the lower bay, the far one lets it rise on to the upper bay (as the Lotus-style
# router's left branch is the near bay and its right branch the far one).
ROUTER_PILE: dict[Bay, Pile] = {Bay.LOWER: Pile.LEFT, Bay.UPPER: Pile.RIGHT}
BAY_OF_PILE: dict[Pile, Bay] = {pile: bay for bay, pile in ROUTER_PILE.items()}


@dataclass(frozen=True, slots=True)
class Restack:
    """The order the bays' doors open in: the first bay's pile becomes the bottom of the deck
    and the other's lands on it."""

    first: Bay

    @property
    def second(self) -> Bay:
        return self.first.other

    @property
    def top(self) -> Bay:
        """The bay whose pile ends on top of the deck."""
        return self.second


# The only order the shaft makes by construction: the upper pile cannot pass the lower bay's
# closed doors, so it lands on top whatever happens.
SHAFT_RESTACK = Restack(Bay.LOWER)


@dataclass(frozen=True, slots=True)
class BayCounts:
    """How many cards each bay holds (commanded, or counted by its beam).

    Raises ShufflerError for a negative count.
    """

    upper: int
    lower: int

    def __post_init__(self) -> None:
        if self.upper < 0 or self.lower < 0:
            raise ShufflerError(
                f"a bay cannot hold fewer than 0 cards, got upper {self.upper}, "
                f"lower {self.lower}"
            )

    @classmethod
    def of(cls, bays: Sequence[Bay]) -> BayCounts:
        """The counts of a pass's per-card bay decisions."""
        upper = sum(1 for b in bays if b is Bay.UPPER)
        return cls(upper, len(bays) - upper)

    def __getitem__(self, bay: Bay) -> int:
        return self.upper if bay is Bay.UPPER else self.lower

    @property
    def total(self) -> int:
        return self.upper + self.lower


@dataclass(frozen=True, slots=True)
class Piles:
    """The bays' piles after a pass, each top to bottom."""

    upper: tuple[int, ...]
    lower: tuple[int, ...]

    def __getitem__(self, bay: Bay) -> tuple[int, ...]:
        return self.upper if bay is Bay.UPPER else self.lower

    @property
    def counts(self) -> BayCounts:
        return BayCounts(len(self.upper), len(self.lower))


def deal(deck: Sequence[int], bays: Sequence[Bay]) -> Piles:
    """The piles after feeding `deck` (top first in the sequence) and sending the i-th card
    fed into bays[i]: the Lotus build's bottom-fed pass (physics.deal), a bay for a pile.

    Raises ShufflerError when there is not one bay per card, or a decision is not a Bay.
    """
    if len(bays) != len(deck):
        raise ShufflerError(f"{len(bays)} bay decisions given for a deck of {len(deck)} cards")
    for bay in bays:
        if not isinstance(bay, Bay):
            raise ShufflerError(f"a card's bay must be upper or lower, got {bay!r}")
    piles = physics.deal(deck, [ROUTER_PILE[bay] for bay in bays])
    return Piles(piles[ROUTER_PILE[Bay.UPPER]], piles[ROUTER_PILE[Bay.LOWER]])


def restack(piles: Piles, order: Restack = SHAFT_RESTACK) -> tuple[int, ...]:
    """The deck after the bays' doors open in `order`: the second pile on top of the first."""
    return piles[order.second] + piles[order.first]


def run_pass(deck: Sequence[int], bays: Sequence[Bay],
             order: Restack = SHAFT_RESTACK) -> tuple[int, ...]:
    """The deck after one pass (card i fed into bays[i]) and a restack made in `order`.

    Raises ShufflerError as `deal`.
    """
    return restack(deal(deck, bays), order)


def minimum_passes(deck_size: int) -> int:
    """ceil(log2 n): the fewest two-pile passes that can reach every order of n cards.

    Raises DeckSizeError for fewer than one card.
    """
    return smath.radix_passes(deck_size)


def face_down_passes(deck_size: int) -> int:
    """The passes the drop shaft makes: the minimum, made even, because the riser turns
    every card over on every pass (6 for 52 cards, 8 for 104).

    Raises DeckSizeError for fewer than one card.
    """
    k = minimum_passes(deck_size)
    return k + (k % 2)


def bay_counts(deck_size: int, passes: int) -> tuple[BayCounts, ...]:
    """Each pass's bay counts with the target positions' keys spread evenly, which depend
    only on the deck size and the passes: every plan keeps its piles between the least and
    the most of them (`pile_limits`), so a bay must hold the largest: 28 cards of 52 in 6
    passes, 56 of 104 in 7 or 8, and `BAY_CAPACITY` at most for any deck of up to 104.

    Raises PlanError as `plan_for_target`.
    """
    return tuple(pp.counts for pp in
                 plan_for_target(range(deck_size), passes, quiet=False).passes)


# Each bay's door sensor is a break-beam 4 mm over its shut doors (the CAD's door sensors):
# a pile covers it wholly from this many of the thinnest cards (0.28 mm) up; fewer lie under
# it unseen (ShaftGeometry.door_beam_top_mm; a CAD test ties the two).
DOOR_BEAM_CARDS = 20


def unverifiable_passes(plan: HandsFreePlan) -> list[int]:
    """The passes (1-based) whose restack no sensor could check: two equal piles, each
    under the door sensors' beams (the load cell weighs either the same)."""
    return [pp.number for pp in plan.passes
            if pp.counts.lower == pp.counts.upper < DOOR_BEAM_CARDS and pp.counts.lower]


@dataclass(frozen=True, slots=True)
class PassPlan:
    """One pass: the bay of each card in feed order, and the counts its beams must see."""

    number: int  # 1-based
    bays: tuple[Bay, ...]
    counts: BayCounts

    @property
    def router_moves(self) -> int:
        """Times the router changes bay between one card and the next."""
        return sum(1 for a, b in pairwise(self.bays) if a is not b)


@dataclass(frozen=True)
class HandsFreePlan:
    """A whole hands-free shuffle: every pass's decisions, planned before the first card.

    `target[c]` is the final position (0 = top) of the card now at position c; it is secret,
    so it is kept out of repr.
    """

    deck_size: int
    passes: tuple[PassPlan, ...]
    target: tuple[int, ...] = field(repr=False)

    @property
    def face_up(self) -> bool:
        """True when the plan turns the deck over (an odd number of passes): a deck loaded
        face up comes back face down."""
        return len(self.passes) % 2 == 1

    def final_order(self) -> tuple[int, ...]:
        """The deck the plan ends in: final_order()[p] is the card with target position p."""
        out = [0] * self.deck_size
        for card, pos in enumerate(self.target):
            out[pos] = card
        return tuple(out)


def _check_target(target: Sequence[int]) -> tuple[int, ...]:
    t = tuple(target)
    if not t:
        raise PlanError("a plan needs at least one card")
    if sorted(t) != list(range(len(t))):
        raise PlanError(
            f"a target order must give each of the {len(t)} cards its own position "
            f"0..{len(t) - 1}"
        )
    return t


# A card the router must send to the other bay than the last costs about 40 ms more than
# one fed on into the same bay (the feed stops for the flap: `pass_s`). Keys that spread the
# target positions evenly change bay for about half the cards; many other keys reach the
# same order, and a short search over them (deterministic: the same target gives the same
# plan) keeps those that change bay least, about 40 % fewer times. This many steps a card:
# over 15 targets, 52 cards move the router 174 times with the even keys, 106 after 150
# steps a card, 103 after 300, 100.4 after 600, 99.1 after 1200 (104 cards: 400, 245, 240,
# 236, 232); 600 steps take about 0.08 s a plan of 52 on the computer that ran the tests
# (0.18 s of 104), about four times that on a Pi: the press turns in meanwhile.
QUIET_STEPS_PER_CARD = 600
QUIET_START_T = 2.0


class _Routing:
    """The router's moves and each pass's lower-bay count for cards fed by their keys (bit
    j of a card's key: 1 to the lower bay in pass j+1), kept as one card's key changes.

    Before pass j+1 the deck, top first, is the cards sorted by their keys' lowest j bits
    and then by where they started (each pass is stable); the router moves wherever two
    cards side by side in it have different bits j.
    """

    def __init__(self, keys: Sequence[int], passes: int) -> None:
        self.keys = list(keys)
        # a card's place in deck j is one int, (its key's lowest j bits) * n + card: it sorts
        # as the pair would, and the search's bisects compare ints, several times faster;
        # beside each deck, the bits j of its cards in order, -1 past either end
        self.n = n = len(self.keys)
        self.decks = [sorted((key & ((1 << j) - 1)) * n + c for c, key in enumerate(self.keys))
                      for j in range(passes)]
        self.bits = [[-1, *((self.keys[e % n] >> j) & 1 for e in deck), -1]
                     for j, deck in enumerate(self.decks)]
        self.lowers = [sum((key >> j) & 1 for key in self.keys) for j in range(passes)]
        self.moves = sum(bits[i] ^ bits[i + 1] for bits in self.bits for i in range(1, n))

    def delta(self, card: int, key: int) -> int:
        """How many more moves (fewer: below 0) `card` would make with `key`, nothing
        changed."""
        n = self.n
        old = self.keys[card]
        between = _BETWEEN
        bisect_left = bisect.bisect_left
        change = 0
        flips = old ^ key
        if not flips:
            return 0
        decks, all_bits = self.decks, self.bits
        # below the key's lowest changed bit the card keeps its place and its bit
        for j in range((flips & -flips).bit_length() - 1, len(decks)):
            deck, bits = decks[j], all_bits[j]  # bits[x + 1]: bit j of the card at place x
            mask = (1 << j) - 1
            bit, bit2 = (old >> j) & 1, (key >> j) & 1
            i = bisect_left(deck, (old & mask) * n + card)
            # its new place among the others (its own entry left out)
            new = bisect_left(deck, (key & mask) * n + card)
            if new > i:
                new -= 1
            # the neighbours at the new place, in the deck without the card
            if new > i:
                prev, nxt = new + 1, new + 2
            elif new < i:
                prev, nxt = new, new + 1
            elif bit == bit2:
                continue  # same neighbours, same bit
            else:
                prev, nxt = new, new + 2
            change += (between[bits[prev] * 6 + bits[nxt] * 2 + bit2 + 8]
                       - between[bits[i] * 6 + bits[i + 2] * 2 + bit + 8])
        return change

    def set_key(self, card: int, key: int) -> None:
        """Give `card` a new key, updating the moves and the counts."""
        change = self.delta(card, key)
        old = self.keys[card]
        n = self.n
        for j, (deck, bits) in enumerate(zip(self.decks, self.bits, strict=True)):
            mask = (1 << j) - 1
            i = bisect.bisect_left(deck, (old & mask) * n + card)
            del deck[i]
            del bits[i + 1]
            entry = (key & mask) * n + card
            new = bisect.bisect_left(deck, entry)
            deck.insert(new, entry)
            bits.insert(new + 1, (key >> j) & 1)
            self.lowers[j] += ((key >> j) & 1) - ((old >> j) & 1)
        self.keys[card] = key
        self.moves += change


def _between_moves(a: int, b: int, bit: int) -> int:
    """The router's moves a card sent by `bit` makes between neighbours sent by `a` and
    `b` (-1: no neighbour there), beyond those the two would make side by side."""
    moves = (a ^ bit if a >= 0 else 0) + (b ^ bit if b >= 0 else 0)
    return moves - (a ^ b if a >= 0 and b >= 0 else 0)


# _between_moves for every a, b in -1..1 and bit 0..1, at (a + 1) * 6 + (b + 1) * 2 + bit
_BETWEEN = tuple(_between_moves(a, b, bit) for a in (-1, 0, 1) for b in (-1, 0, 1)
                 for bit in (0, 1))


def pile_limits(deck_size: int, passes: int) -> tuple[int, int]:
    """The least and the most cards a bay takes in any pass of any plan of `deck_size`
    cards in `passes` passes: those of the keys spread evenly (`bay_counts`), which every
    plan keeps to (the bays, the door sensors and the drops are drawn for them)."""
    counts = bay_counts(deck_size, passes)
    if not counts:
        return 0, deck_size
    return (min(min(c.upper, c.lower) for c in counts),
            max(max(c.upper, c.lower) for c in counts))


def quiet_keys(target: Sequence[int], passes: int) -> list[int]:
    """Each card's radix key for `target` (`target[c]`: card c's final position) in
    `passes` passes, searched for the fewest router moves: the keys must rise along the
    target order, strictly where the card for the next position starts nearer the top
    (a stable pass keeps equal keys in the deck's order), and keep every pass's piles within
    `pile_limits`. Starts from the even spread and never ends with more moves."""
    n, k = len(target), passes
    at = [0] * n
    for card, pos in enumerate(target):
        at[pos] = card
    kp = [radix_key(p, n, k) for p in range(n)]
    if n < 3 or k == 0:
        return [kp[target[c]] for c in range(n)]
    lo, hi = pile_limits(n, k)
    strict = [True] + [at[p - 1] > at[p] for p in range(1, n)]
    top = (1 << k) - 1
    rng = random.Random(n * 1009 + k)
    routing = _Routing([kp[target[c]] for c in range(n)], k)
    cur = routing.moves
    best, best_kp = cur, kp[:]
    steps = QUIET_STEPS_PER_CARD * n
    # bound once: the loop runs tens of thousands of times a plan
    randrange, randint, chance, exp = rng.randrange, rng.randint, rng.random, math.exp
    delta, last = routing.delta, n - 1
    for i in range(steps):
        p = randrange(n)
        low = 0 if p == 0 else kp[p - 1] + strict[p]
        high = top if p == last else kp[p + 1] - strict[p + 1]
        if low >= high:
            continue
        old, new = kp[p], randint(low, high)
        if new == old:
            continue
        change = delta(at[p], new)
        if change > 0 and chance() >= exp(
                -change / (QUIET_START_T * (1.0 - i / steps) + 0.01)):
            continue
        # a pile out of the even keys' sizes is refused: every pass whose bit changes
        flips = old ^ new
        if any((flips >> j) & 1 and not lo <= x + ((new >> j) & 1) - ((old >> j) & 1) <= hi
               or (flips >> j) & 1
               and not lo <= n - x - ((new >> j) & 1) + ((old >> j) & 1) <= hi
               for j, x in enumerate(routing.lowers)):
            continue
        kp[p] = new
        routing.set_key(at[p], new)
        moves = routing.moves
        cur = moves
        if moves < best:
            best, best_kp = moves, kp[:]
    return [best_kp[target[c]] for c in range(n)]


def plan_for_target(target: Sequence[int], passes: int | None = None, *,
                    quiet: bool = True) -> HandsFreePlan:
    """The decisions of every pass that turn the deck as it lies into `target` exactly.

    Pass j sends each card by bit j-1 of its key, a 1 to the lower bay (a 0 to the upper,
    on top after the restack), so after the last pass the deck is sorted by key. The keys
    (`quiet_keys`) change the router's bay as seldom as a short search finds, keeping both
    bays near half the cards on every pass, even with more passes than the minimum; not
    `quiet`, they are the target positions spread evenly over 0 .. 2^passes - 1. Raises
    PlanError for a target that is not an order of the cards, or for too few or too many
    passes.
    """
    t = _check_target(target)
    n = len(t)
    need = minimum_passes(n)
    k = need if passes is None else passes
    if isinstance(k, bool) or not isinstance(k, int) or not need <= k <= MAX_PASSES:
        raise PlanError(
            f"a hands-free plan of {n} cards needs {need} to {MAX_PASSES} passes, got {k!r}"
        )
    # key(p) = floor(p 2^k / n) rises by at least 1 per position when 2^k >= n
    keys = quiet_keys(t, k) if quiet else [radix_key(pos, n, k) for pos in t]
    believed = tuple(range(n))
    plans: list[PassPlan] = []
    for j in range(k):
        bays = tuple(Bay.LOWER if (keys[c] >> j) & 1 else Bay.UPPER
                     for c in feed_order(believed))
        plans.append(PassPlan(j + 1, bays, BayCounts.of(bays)))
        believed = run_pass(believed, bays)
    if any(t[card] != pos for pos, card in enumerate(believed)):
        raise AssertionError("the plan's passes do not reach its target")  # never: tested
    return HandsFreePlan(n, tuple(plans), t)


def plan_random(deck_size: int, *, rng: random.Random | None = None,
                passes: int | None = None) -> HandsFreePlan:
    """A hands-free plan to a uniformly random secret target (Fisher-Yates on `rng`, the
    operating system's secure source by default); passes default to the fewest that reach
    every order (`minimum_passes`: 6 for 52 cards, 7 for 104). The riser turns every card
    over on every pass, so an odd number hands the deck back the other way up: 104 cards are
    loaded face up and come back face down (`HandsFreePlan.face_up`); `face_down_passes`
    would make 8 and keep the way up the deck was loaded.

    Raises DeckSizeError for a size outside 2..104 and PlanError as `plan_for_target`.
    """
    n = check_deck_size(deck_size)
    gen = rng if rng is not None else secure_rng()
    target = list(range(n))
    gen.shuffle(target)
    return plan_for_target(target, minimum_passes(n) if passes is None else passes)


# ----- what the machine senses, and the checks -----


class Finding(enum.StrEnum):
    """What a check found."""

    OK = "ok"
    MISCOUNT = "miscount"  # a bay's beam counted other than commanded
    WRONG_ORDER = "wrong_order"  # the piles reached the tray in the other order
    CARDS_LEFT = "cards_left"  # a bay still holds cards, or the tray is short
    UNVERIFIED = "unverified"  # the sensors cannot tell the order apart


class Recovery(enum.StrEnum):
    """What the controller does about a finding."""

    CONTINUE = "continue"  # go on with the next pass
    REPLAN = "replan"  # every card is in the tray: a fresh plan from the deck as it lies
    RETRY_DOORS = "retry_doors"  # close and open the doors again, then check again
    PROMPT = "prompt"  # a player must look: the prompt says what to do


@dataclass(frozen=True, slots=True)
class DropStep:
    """The sensors after one door command: the tray's count (its load cell's weight over a
    card's weight; None: not weighed, the door sensors alone read) and whether each bay's
    door sensor still sees a card (None: no sensor)."""

    opened: Bay  # the doors commanded open in this step
    tray_cards: int | None
    upper_holds: bool | None
    lower_holds: bool | None

    def holds(self, bay: Bay) -> bool | None:
        return self.upper_holds if bay is Bay.UPPER else self.lower_holds


@dataclass(frozen=True, slots=True)
class RestackReading:
    """The steps of one restack as sensed, in the order the doors were commanded."""

    steps: tuple[DropStep, ...]


@dataclass(frozen=True, slots=True)
class Check:
    """A check's finding, what the controller does, and a sentence for the player."""

    finding: Finding
    recovery: Recovery
    detail: str

    @property
    def ok(self) -> bool:
        return self.finding is Finding.OK


_OK = Check(Finding.OK, Recovery.CONTINUE, "as planned")


def verify_pass(commanded: BayCounts, sensed: BayCounts) -> Check:
    """The pass against its plan: each bay's beam must have counted exactly the cards sent.

    A miscount (a double feed, a misrouted card) leaves the deck in an order the plan does not
    know; with every card in the tray the machine plans afresh from the deck as it lies.
    """
    if sensed == commanded:
        return _OK
    detail = (f"the upper bay counted {sensed.upper} cards and the lower {sensed.lower}, "
              f"but {commanded.upper} and {commanded.lower} were sent")
    return Check(Finding.MISCOUNT, Recovery.REPLAN, detail)


def sense_restack(counts: BayCounts, made: Restack = SHAFT_RESTACK,
                  plan: Restack = SHAFT_RESTACK, tray_before: int = 0,
                  door_sensors: bool = True, caught: int = 0) -> RestackReading:
    """What the sensors read when the doors are commanded in `plan`'s order but the piles
    reach the tray in `made`'s order (a simulator's model of a right or a wrong restack);
    `caught` cards of the first pile hang on its doors and stay in its bay.

    Raises ShufflerError for more caught cards than the first pile holds.
    """
    if not 0 <= caught <= counts[made.first]:
        raise ShufflerError(f"{caught} cards cannot hang from a pile of {counts[made.first]}")
    left = {Bay.UPPER: counts.upper, Bay.LOWER: counts.lower}
    tray = tray_before
    steps = []
    for step_bay, bay in zip((plan.first, plan.second), (made.first, made.second),
                             strict=True):
        hang = caught if bay is made.first else 0
        tray += left[bay] - hang
        left[bay] = hang
        steps.append(DropStep(
            step_bay, tray,
            (left[Bay.UPPER] > 0) if door_sensors else None,
            (left[Bay.LOWER] > 0) if door_sensors else None,
        ))
    return RestackReading(tuple(steps))


def verify_restack(counts: BayCounts, reading: RestackReading,
                   order: Restack = SHAFT_RESTACK, tray_before: int = 0) -> Check:
    """The restack against the counts of the pass before it: after the first doors open
    the tray holds that bay's pile and only the other bay still holds cards; after the second
    the tray holds every card and no bay any.

    A reading that could come from either order (equal piles, no door sensors) is never
    trusted: it is UNVERIFIED, and the controller plans afresh. The first step may be read by
    the door sensors alone (not weighed); the last is always weighed. Raises ShufflerError
    for a reading without its two steps, with doors other than `order`'s, or unweighed where
    it must be.
    """
    if len(reading.steps) != 2:
        raise ShufflerError(f"a restack has two door steps, the reading has "
                            f"{len(reading.steps)}")
    first, second = reading.steps
    if (first.opened, second.opened) != (order.first, order.second):
        raise ShufflerError(
            f"the doors were read as {first.opened}, {second.opened}; the restack opens "
            f"{order.first}, then {order.second}"
        )
    if second.tray_cards is None:
        raise ShufflerError("a restack's last step must be weighed")
    a, b = order.first, order.second
    n = tray_before + counts.total
    expect_first = tray_before + counts[a]
    # the other order's reading at the first step
    wrong_first = tray_before + counts[b]
    holds_b = first.holds(b)
    holds_a = first.holds(a)
    # with one bay empty either order makes the same deck: a door out of turn is then a
    # door fault, not a wrong order
    both = counts[a] > 0 and counts[b] > 0
    if holds_a is not None and holds_b is not None:
        if both and holds_a and not holds_b:
            return Check(Finding.WRONG_ORDER, Recovery.REPLAN,
                         f"the {b} bay emptied before the {a} bay")
    elif first.tray_cards is None:
        raise ShufflerError("a first step read without weighing needs both door sensors")
    if first.tray_cards is not None and first.tray_cards != expect_first:
        if (first.tray_cards == wrong_first and counts[a] != counts[b] and both
                and (holds_b is None or not holds_b)):
            return Check(Finding.WRONG_ORDER, Recovery.REPLAN,
                         f"the tray took {first.tray_cards} cards first, the {b} bay's pile,"
                         f" not the {a} bay's {counts[a]}")
        if (first.tray_cards == tray_before and both and second.tray_cards == n
                and holds_b is not True):
            # nothing fell first and everything fell second: the other bay's doors opened
            # first, its pile onto this bay's shut doors (as the weights alone show it)
            return Check(Finding.WRONG_ORDER, Recovery.REPLAN,
                         f"nothing reached the tray when the {a} bay's doors were opened, "
                         f"and every card when the {b} bay's were: the {b} bay's opened "
                         "first")
        if first.tray_cards < expect_first:
            return Check(Finding.CARDS_LEFT, Recovery.RETRY_DOORS,
                         f"the tray took {first.tray_cards - tray_before} of the {a} bay's "
                         f"{counts[a]} cards: some are caught in the {a} bay")
        return Check(Finding.MISCOUNT, Recovery.PROMPT,
                     f"the tray holds {first.tray_cards} cards after the {a} bay's doors "
                     f"opened, {expect_first} expected")
    if holds_a and both and first.tray_cards is not None:
        # a full pile's count reached the tray while the first bay still holds cards: the
        # other bay's pile came first (its own door sensor missing or failed)
        return Check(Finding.WRONG_ORDER, Recovery.REPLAN,
                     f"the tray took {counts[a]} cards while the {a} bay still held its pile")
    if holds_a:
        return Check(Finding.CARDS_LEFT, Recovery.RETRY_DOORS,
                     f"the {a} bay still holds a card after its doors opened")
    if holds_b is not None and holds_b != (counts[b] > 0):
        return Check(Finding.MISCOUNT, Recovery.PROMPT,
                     f"the {b} bay's door sensor disagrees with its {counts[b]} cards")
    if second.tray_cards != n or second.upper_holds or second.lower_holds:
        where = [bay.value for bay in Bay if second.holds(bay)]
        return Check(Finding.CARDS_LEFT, Recovery.RETRY_DOORS if where else Recovery.PROMPT,
                     f"the tray holds {second.tray_cards} of {n} cards after both doors "
                     f"opened" + (f"; cards left in the {', '.join(where)} bay" if where
                                  else ""))
    if holds_a is None and holds_b is None and counts[a] == counts[b] and counts[a] > 0:
        return Check(Finding.UNVERIFIED, Recovery.REPLAN,
                     f"both piles hold {counts[a]} cards and no door sensor saw which "
                     "emptied first")
    return _OK


# ----- the press, and time -----

class PressPose(enum.Enum):
    """Where the press's two servos hold it (docs/hands-free.md, "The press's link"). The
    controller moves it one pose at a time, DOWN <-> LIFTED <-> OUT, each once the last has
    arrived: the turn's lever takes the press's pin only at the top of the lift."""

    DOWN = "down"  # the lift's servo lowered: the press bears on the deck, turned in
    LIFTED = "lifted"  # lifted to the top of the post's straight leg, over the deck
    OUT = "out"  # lifted and turned out of the drop shaft through the -y wall


# The press's link (measured on the CAD: docs/hands-free.md, "The press's link"): the lift's
# SG90 (PCA9685 channel 2) turns PRESS_LIFT_DEG from its rest, under the press on an empty
# tray, to the top of the lift; the turn's SG90 (channel 3) PRESS_TURN_DEG from in to out
# (the press's 105 degrees).
PRESS_LIFT_DEG = 150.5
PRESS_TURN_DEG = 145.2
# Their moves at the slowest SG90 of the ranges (0.12 s per 60 degrees unloaded), each
# slowed by its load and inertia pose by pose, at the worst of the bore's friction
# (mu 0.35) and the tungsten's density, with 20 ms to settle (the CAD's `lift_s`, `turn_s`;
# a test ties them): the lift up from an empty tray, let down (the press falls after its
# horn), the turn either way.
PRESS_LIFT_S = 0.575
PRESS_LOWER_S = 0.322
PRESS_TURN_S = 0.449
# Where the lift's horn holds the press's foot, over the nip (mm), at its servo's angles (the
# CAD's `lift_foot_z`; a test ties them): the press bears on a deck lower than that, and the
# horn goes on down under it, slack.
PRESS_HOLDS_MM = ((0.0, -1.0), (10.0, 0.09), (20.0, 1.69), (30.0, 3.753), (40.0, 6.214),
                  (50.0, 9.0), (60.0, 12.025), (70.0, 15.199), (80.0, 18.423),
                  (90.0, 21.601), (100.0, 24.636), (110.0, 27.436), (120.0, 29.915),
                  (130.0, 31.999), (140.0, 33.623), (150.5, 34.78))


def _between(x: float, pts: Sequence[tuple[float, float]]) -> float:
    """y at `x` on the straight lines through `pts` (rising in x), flat past either end."""
    if x <= pts[0][0]:
        return pts[0][1]
    for (x0, y0), (x1, y1) in pairwise(pts):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return pts[-1][1]


def press_holds_mm(lift_deg: float) -> float:
    """The height over the nip at which the lift's horn, at `lift_deg`, holds the press's
    foot (between the CAD's points, on the straight line)."""
    return _between(lift_deg, PRESS_HOLDS_MM)


def press_meets_deg(deck_mm: float) -> float:
    """The lift servo's angle at which its horn meets the press resting on a deck
    `deck_mm` high (0 at or under the horn's rest)."""
    return _between(deck_mm, [(h, a) for a, h in PRESS_HOLDS_MM])


# Where the press and the lower doors' leaves meet (measured at a full deck's height): turned
# in past 95 degrees of its 105 (the turn's servo under PRESS_TURN_CLEAR_DEG) the press is
# inside the drop shaft where the lower leaves swing, and the leaves are out of its whole way
# in only at LEAVES_CLEAR_DEG (of their 90) or less.
PRESS_TURN_CLEAR_DEG = 123.0
LEAVES_CLEAR_DEG = 5.0
# An SG90 at 4.8 V turns 60 degrees in 0.1 s (datasheet); between parts and under the
# leaves' or the press's friction, +-20 % (an estimate, to measure): the simulator's range.
SERVO_S_PER_60 = (0.08, 0.12)
# The PCA9685 at 50 Hz takes a new pulse width up at the end of the cycle under way: a servo
# starts moving 0 to 20 ms after its command. Where one move must end before another's
# begins, the first may start a whole frame late and the second at once.
SERVO_FRAME_S = 0.020
# A pile drops through its doors only once their leaves are this far open (of 90): the
# pile's long edges, bowed by at most the most flex of the ranges, slip between the leaves'
# tips there (the simulator's `slip_deg`, 82 to 86 degrees; a test holds it above this).
PILE_SLIPS_DEG = 80.0
# The slowest a pile falls from the lower doors to the tray, the air under it in the close
# shaft slowing it (the simulator's fall over its corners, handsfree_sim.PILE_FALL_S).
PILE_FALL_MAX_S = 0.20


@dataclass(frozen=True, slots=True)
class RestackBuild:
    """The drop shaft's restack, step by step (seconds): each bay's doors open and its pile
    falls; the door sensors read the first pile off its doors, and the last settles and the
    tray's load cell weighs the whole deck; the doors close while it is weighed. Raises
    ValueError for a negative time or height.
    """

    # An SG90 turning a door 90 degrees: its 20 ms frame, then 0.1 s per 60 degrees at 4.8 V
    # (datasheet figure), as design.RouterBuild reckons the router's servo.
    door_open_s: float = 0.020 + 90.0 / 60.0 * 0.1
    # ...and at the slowest of the ranges: from the doors commanded shut until they are
    # surely still (their swing shakes the load cell; the deck is weighed only after)
    doors_still_s: float = 0.020 + 90.0 / 60.0 * SERVO_S_PER_60[1]
    # The lower doors 55 mm over the tray floor, the upper doors 90 mm, onto a lower pile
    # about 10 mm high (docs/hands-free.md); a pile falls h in sqrt(2 h / g). The air under
    # a pile in the close shaft slows it (to roughly 0.7-1 m/s, an estimate): the settle
    # time below covers the difference until it is measured.
    lower_drop_mm: float = 55.0
    upper_drop_mm: float = 80.0
    # A pile comes to rest between the shaft's walls: an estimate, to measure.
    settle_s: float = 0.15
    # An HX711 at 80 samples a second: 16 samples (0.2 s) average the noise to well under
    # the 1.8 g of one card (an estimate from typical 1 kg bar cells: 0.1-0.2 g rms a sample).
    weigh_s: float = 0.20
    # The press's two SG90s, each from one pose to the next (nothing senses the press: the
    # doors must not open into it, nor the feed start under a full deck without it): the
    # lift up, let down, and the turn either way, at the slowest of the ranges. The lift
    # overlaps the last card's ride up to its bay; the press comes back in as the doors close.
    press_lift_s: float = PRESS_LIFT_S
    press_lower_s: float = PRESS_LOWER_S
    press_turn_s: float = PRESS_TURN_S
    # From the doors commanded shut to the press commanded to turn back in: it may start
    # while they close, so long as it reaches the shaft (PRESS_TURN_CLEAR_DEG) only once the
    # lower leaves are out of its way (LEAVES_CLEAR_DEG), the slowest leaves a frame late
    # against the fastest turn at once.
    press_in_s: float = max(0.0, SERVO_FRAME_S
                            + (90.0 - LEAVES_CLEAR_DEG) / 60.0 * SERVO_S_PER_60[1]
                            - (PRESS_TURN_DEG - PRESS_TURN_CLEAR_DEG) / 60.0
                            * SERVO_S_PER_60[0])

    # From the press commanded to turn out to the lower doors commanded open: they may open
    # as it turns, so long as their leaves pass LEAVES_CLEAR_DEG only once it has passed
    # PRESS_TURN_CLEAR_DEG: the slowest turn a frame late, taken at an even speed through
    # its move (the CAD's turn under load passes it sooner, as it brakes to stop: a test
    # holds it), against the fastest leaves at once.
    doors_after_turn_s: float = max(
        0.0, SERVO_FRAME_S
        + PRESS_TURN_CLEAR_DEG / PRESS_TURN_DEG * (PRESS_TURN_S - SERVO_FRAME_S)
        - LEAVES_CLEAR_DEG / 60.0 * SERVO_S_PER_60[0])

    @property
    def upper_after_s(self) -> float:
        """From the lower doors commanded open to the upper doors commanded open: the
        upper pile must not leave its doors before the door sensors read the lower bay
        empty (its pile off its doors, at the nominal leaves), nor land before the lower
        pile has (off its doors at the slowest leaves a frame late, the slowest fall). A
        pile leaves its leaves only once they are PILE_SLIPS_DEG open: the upper's, the
        fastest leaves at once."""
        slips = PILE_SLIPS_DEG / 60.0 * SERVO_S_PER_60[0]
        read = self.door_open_s + self.fall_s(self.lower_drop_mm)
        landed = SERVO_FRAME_S + 90.0 / 60.0 * SERVO_S_PER_60[1] + PILE_FALL_MAX_S
        return max(0.0, read - slips, landed - slips - self.fall_s(self.upper_drop_mm))

    def __post_init__(self) -> None:
        if min(self.door_open_s, self.doors_still_s, self.doors_after_turn_s,
               self.lower_drop_mm, self.upper_drop_mm, self.settle_s, self.weigh_s,
               self.press_lift_s, self.press_lower_s, self.press_turn_s,
               self.press_in_s) < 0:
            raise ValueError("restack times and drop heights must be 0 or more")

    @property
    def press_s(self) -> float:
        """The press from down on the deck to out of the shaft's way."""
        return self.press_lift_s + self.press_turn_s

    def press_lands_s(self, cards: int) -> float:
        """From the lift's servo commanded down to the press surely on a deck of `cards`
        (the thinnest cards of the ranges, 0.28 mm, and half a millimetre more: the lowest
        such a deck lies), at the slowest lowering: the horn passes under it there."""
        deck = cards * 0.28 - 0.5
        left = PRESS_LIFT_DEG - press_meets_deg(deck)
        return 0.020 + left / PRESS_LIFT_DEG * (self.press_lower_s - 0.020)

    @property
    def press_back_s(self) -> float:
        """The press from out of the shaft's way back down on the deck."""
        return self.press_turn_s + self.press_lower_s

    @staticmethod
    def fall_s(height_mm: float) -> float:
        """Seconds a pile takes to fall `height_mm` freely."""
        return math.sqrt(2.0 * height_mm / 1000.0 / 9.81)

    @property
    def restack_s(self) -> float:
        """From the last card seen at its beam to the press back on the deck: the press
        turns out (it lifted as the last card was fed) and the doors open as it goes; the
        first pile read off its doors by the door sensors, the second in the tray; the doors
        close, and the press turns in as the deck settles and is weighed once they are
        still; the press down."""
        weighed = max(self.doors_still_s, self.settle_s) + self.weigh_s
        return (self.doors_after_turn_s + self.upper_after_s + self.door_open_s
                + self.fall_s(self.upper_drop_mm)
                + max(weighed, self.press_in_s + self.press_turn_s) + self.press_lower_s)


DEFAULT_RESTACK = RestackBuild()
# The hands-free build routes with the solenoid: a change of bay costs no more than a card to
# the same bay, which every radix pass makes for about half its cards (design.py).
HANDSFREE_ROUTER = design.HANDSFREE_SOLENOID_ROUTER
# Its feed: the 25D gearmotor on 6 V under a 28 mm roller (design.HANDSFREE_DRIVE).
HANDSFREE_DRIVE = design.HANDSFREE_DRIVE


def handsfree_pace(cards: int = 52, params: Params | None = None,
                   drive: design.DriveBuild = HANDSFREE_DRIVE, *,
                   feed_speed_mm_s: float | None = None,
                   riser_mm_s: float | None = None) -> pace.Pace:
    """The hands-free build's pace for a deck of `cards` at a corner of the ranges (`params`,
    hardware.shuffler.ranges; None: the middle of every range): the card speed its simulated
    feed is calibrated to (a card at the middle of the deck), with the solenoid router. A card
    clears its beam and the flap at the riser's speed, design.RISER_OVERDRIVE over the
    feed's (at least: the feed's card speed is under its no-load speed, the riser's
    reference), timed from its leading edge at the beam (the filter only confirms it); a
    card to the same bay is fed on without a stop, from the front wall to the nip at the
    feed's speed. The riser runs at its calibrated speed, design.RISER_CARD_SPEED_MM_S, or
    slower at full duty; a machine measured gives its feed's and its riser's speeds."""
    v = feed_speed_mm_s or pace.measured_card_speed_mm_s(drive, params, cards,
                                                         HANDSFREE_ROUTER.settle_s)
    p = pace.pace(drive=drive, router=HANDSFREE_ROUTER, feed_speed_mm_s=v)
    riser = riser_mm_s or min((1.0 + design.RISER_OVERDRIVE) * v,
                              design.RISER_CARD_SPEED_MM_S)
    clear = design.card_transit_s(riser)
    # the router's moves alternate: over to the upper bay (the solenoid's pull), back to the
    # lower (its spring)
    settle = (HANDSFREE_ROUTER.settle_s + HANDSFREE_ROUTER.back_settle_s) / 2
    other = max(0.0, design.flap_clear_s(riser) - p.filter_s + settle
                - design.flap_lead_s(v, drive.motor_start_s, p.filter_s))
    run_on = (design.CARD_LENGTH_MM - design.GATE_MM) / v
    return replace(p, transit_s=clear, same_wait_s=clear, other_wait_s=other, run_on_s=run_on)


def measured_pace(cards: int, riser_mm_s: float, riser_duty: float) -> pace.Pace:
    """The pace of a calibrated hands-free machine: its cards measured past the beams at
    `riser_mm_s` on the riser at PWM `riser_duty`; the feed's own card speed is the riser's
    at full duty over its overdrive."""
    feed = riser_mm_s / riser_duty / (1.0 + design.RISER_OVERDRIVE)
    return handsfree_pace(cards, feed_speed_mm_s=feed, riser_mm_s=riser_mm_s)


def pass_s(bays: Sequence[Bay], p: pace.Pace) -> float:
    """A pass's time on a build's pace, from its own decisions: the first card's flight and
    filter; then each card to the other bay waits for the router and flies, and each to the
    same bay follows on (pace.Pace.run_on_s; a build that stops waits for the beam to clear
    and flies); the last clears its beam.
    """
    if not bays:
        return 0.0
    moves = sum(1 for a, b in pairwise(bays) if a is not b)
    same = len(bays) - 1 - moves
    cycle = p.flight_s + p.filter_s
    follow = cycle + p.same_wait_s if p.run_on_s is None else p.run_on_s
    return cycle + moves * (p.other_wait_s + cycle) + same * follow + p.transit_s


def shuffle_s(plan: HandsFreePlan, p: pace.Pace | None = None,
              restack: RestackBuild = DEFAULT_RESTACK) -> float:
    """A whole hands-free shuffle: every pass and every restack (the last puts the deck in
    the tray), on the hands-free build's nominal pace for the plan's deck unless another is
    given."""
    p = p or handsfree_pace(plan.deck_size)
    return sum(pass_s(pp.bays, p) + restack.restack_s for pp in plan.passes)


# ----- uniformity -----


@dataclass(frozen=True, slots=True)
class Uniformity:
    """How far a sample of decks is from uniform, two-sided, in standard errors: the
    card-by-position chi-square (as z) and the mean of original neighbours still side by side
    against a random deck's 2(n-1)/n."""

    decks: int
    position_z: float
    adjacency_mean: float
    adjacency_expected: float
    adjacency_z: float

    def ok(self, limit: float = 4.0) -> bool:
        """True when both statistics lie within `limit` standard errors of uniform."""
        return abs(self.position_z) < limit and abs(self.adjacency_z) < limit


def uniformity(decks: Iterable[Sequence[int]]) -> Uniformity:
    """The uniformity of decks of cards 0..n-1 (each a final order, top first).

    Raises ShufflerError for fewer than 2 decks, or decks of different sizes or not orders
    of 0..n-1.
    """
    positions: list[int] = []
    adj_sum = adj_sq = 0
    count = 0
    n = 0
    for deck in decks:
        d = tuple(deck)
        if count == 0:
            n = len(d)
            if n < 2:
                raise ShufflerError("uniformity needs decks of at least 2 cards")
            positions = [0] * (n * n)
        if len(d) != n or sorted(d) != list(range(n)):
            raise ShufflerError(f"deck {count + 1} is not an order of the cards 0..{n - 1}")
        for pos, card in enumerate(d):
            positions[card * n + pos] += 1
        a = sum(1 for x, y in pairwise(d) if abs(x - y) == 1)
        adj_sum += a
        adj_sq += a * a
        count += 1
    if count < 2:
        raise ShufflerError(f"uniformity needs at least 2 decks, got {count}")
    mean = adj_sum / count
    var = max(adj_sq / count - mean * mean, 1e-12) * count / (count - 1)
    expected = float(expected_adjacent(n, None))
    return Uniformity(count, position_z(positions, count, n), mean, expected,
                      (mean - expected) / math.sqrt(var / count))
