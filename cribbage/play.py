"""The play (pegging) as an immutable state machine for two, three and four players.

Players sit in index order; the player left of i is i+1. Each turn the player to play lays a
card or says go. A player out of cards is skipped. A go takes the player out of the series;
the others play on. The series ends at 31 (2 for thirty-one, never also 1 for last) or when
nobody left in it can play (1 for last card to whoever laid the last card). The count resets
and the player left of the one who laid the last card leads (skipping players out of cards).
In the single-round play of the five-card game the play ends with the first series.

A hand may be unknown (only a count of cards): its cards are checked as they are played, and a
go declared from it is recorded (`PlayState.gos`) to be checked against the hand when it is
shown (`PlayState.false_gos`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cribbage.cards import ALL_CARDS, Card, check_distinct
from cribbage.errors import IllegalPlayError, InvalidHandError
from cribbage.pegscore import score_pegging
from cribbage.rules import GoRule, PlayRounds, Rules
from cribbage.tuples import set_at

_PEG_PARTS = ("fifteen", "thirty_one", "pairs", "run")


@dataclass(frozen=True, slots=True)
class PegEvent:
    """One thing that happened in the play: a card laid, a go, or the point for last card."""

    kind: str  # "play", "go" or "last"
    player: int
    card: Card | None
    count: int  # the count after the event
    points: int
    parts: tuple[tuple[str, int], ...] = ()  # what the points were for, e.g. (("fifteen", 2),)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "player": self.player,
            "card": None if self.card is None else str(self.card),
            "count": self.count,
            "points": self.points,
            "parts": [[k, v] for k, v in self.parts],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PegEvent:
        return cls(
            kind=str(data["kind"]),
            player=int(data["player"]),
            card=None if data["card"] is None else Card.parse(data["card"]),
            count=int(data["count"]),
            points=int(data["points"]),
            parts=tuple((str(k), int(v)) for k, v in data["parts"]),
        )


@dataclass(frozen=True, slots=True)
class DeclaredGo:
    """A go said from an unknown hand, to be checked when the hand is shown."""

    player: int
    count: int
    event: int  # index of the go in the log

    def to_json(self) -> dict[str, int]:
        return {"player": self.player, "count": self.count, "event": self.event}


@dataclass(frozen=True, slots=True)
class FalseGo:
    """A go said while holding a card that could have been played."""

    player: int
    count: int
    event: int
    playable: tuple[Card, ...]

    def __str__(self) -> str:
        cards = " ".join(map(str, self.playable))
        return f"player {self.player} said go at {self.count} holding {cards}"


@dataclass(frozen=True, slots=True)
class PlayState:
    """The state of the play. Build one with `PlayState.start` or `PlayState.for_rules`."""

    hands: tuple[tuple[Card, ...] | None, ...]  # known cards left, or None if unknown
    left: tuple[int, ...]  # cards left in each hand
    dealt: tuple[int, ...]  # cards each player held when the play began
    to_play: int | None  # None once the play is over
    count: int
    series: tuple[Card, ...]  # cards laid since the count was last reset
    last_player: int | None  # who laid the last card of this series
    passed: tuple[bool, ...]  # who has said go in this series
    after_go: bool  # the previous turn was a go (for the USPC go rule)
    scores: tuple[int, ...]  # points pegged by each player in the play
    log: tuple[PegEvent, ...]
    gos: tuple[DeclaredGo, ...]  # gos said from unknown hands
    seen: frozenset[Card]  # cards no unknown hand can hold (the starter, cards laid)
    go_rule: GoRule = GoRule.CONTINUE
    single: bool = False  # five-card: one series only
    names: tuple[str, ...] = ()

    # --- construction -------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        hands: Sequence[Iterable[Card | str] | int | None],
        leader: int,
        *,
        go_rule: GoRule | str = GoRule.CONTINUE,
        single: bool = False,
        names: Sequence[str] | None = None,
        seen: Iterable[Card | str] = (),
        hand_size: int | None = None,
    ) -> PlayState:
        """A new play; each hand is its cards, or a number of unknown cards (None: hand_size).

        Raises InvalidHandError for a bad hand or leader, DuplicateCardError for a repeated card.
        """
        n = len(hands)
        if not 2 <= n <= 4:
            raise InvalidHandError(f"the play needs 2 to 4 hands, not {n}")
        known: list[tuple[Card, ...] | None] = []
        left: list[int] = []
        for i, hand in enumerate(hands):
            if hand is None:
                if hand_size is None:
                    raise InvalidHandError(f"hand {i} is unknown and no hand size was given")
                hand = hand_size
            if isinstance(hand, int) and not isinstance(hand, bool):
                if hand < 0:
                    raise InvalidHandError(f"hand {i} cannot hold {hand} cards")
                known.append(None)
                left.append(hand)
            elif isinstance(hand, Iterable) and not isinstance(hand, str | bytes):
                cards = tuple(Card.parse(c) for c in hand)  # type: ignore[arg-type]
                known.append(cards)
                left.append(len(cards))
            else:
                raise InvalidHandError(f"hand {i} must be cards or a count, not {hand!r}")
        all_known = [c for h in known if h is not None for c in h]
        seen_cards = frozenset(Card.parse(c) for c in seen)
        check_distinct(all_known)
        for card in all_known:
            if card in seen_cards:
                raise InvalidHandError(f"card {card} is in a hand and also seen elsewhere")
        if not isinstance(leader, int) or not 0 <= leader < n:
            raise InvalidHandError(f"no player {leader!r} to lead among {n} players")
        if names is None:
            names = tuple(f"player {i}" for i in range(n))
        if len(names) != n:
            raise InvalidHandError(f"{len(names)} names for {n} hands")
        state = cls(
            hands=tuple(known),
            left=tuple(left),
            dealt=tuple(left),
            to_play=leader,
            count=0,
            series=(),
            last_player=None,
            passed=(False,) * n,
            after_go=False,
            scores=(0,) * n,
            log=(),
            gos=(),
            seen=seen_cards,
            go_rule=GoRule(go_rule),
            single=single,
            names=tuple(names),
        )
        if not any(left):
            return replace(state, to_play=None)
        if left[leader] == 0:
            return replace(state, to_play=state._next_with_cards(leader))
        return state

    @classmethod
    def for_rules(
        cls,
        rules: Rules,
        hands: Sequence[Iterable[Card | str] | int | None],
        dealer: int,
        *,
        names: Sequence[str] | None = None,
        seen: Iterable[Card | str] = (),
    ) -> PlayState:
        """The play of a variant: the player left of the dealer leads; raises InvalidHandError."""
        if len(hands) != rules.players:
            raise InvalidHandError(f"{rules.name} has {rules.players} hands, not {len(hands)}")
        return cls.start(
            hands,
            rules.left_of(dealer),
            go_rule=rules.go_rule,
            single=rules.play_rounds is PlayRounds.SINGLE,
            names=names,
            seen=seen,
            hand_size=rules.hand_size,
        )

    # --- queries ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.left)

    @property
    def done(self) -> bool:
        return self.to_play is None

    @property
    def played(self) -> tuple[tuple[int, Card], ...]:
        """Every card laid in this play, in order, with who laid it."""
        return tuple((e.player, e.card) for e in self.log if e.card is not None)

    def played_by(self, player: int) -> tuple[Card, ...]:
        return tuple(e.card for e in self.log if e.card is not None and e.player == player)

    def name(self, player: int) -> str:
        return self.names[player] if player < len(self.names) else f"player {player}"

    def describe(self) -> str:
        """A short account of the state for error messages."""
        if self.done:
            return "the play is over"
        cards = " ".join(map(str, self.series)) or "none"
        return (f"the count is {self.count} (cards {cards}), "
                f"{self.name(self.to_play or 0)} to play")

    def legal_plays(self) -> tuple[Card, ...]:
        """The cards the player to play may lay (for an unknown hand: every unseen card)."""
        if self.to_play is None:
            return ()
        room = 31 - self.count
        hand = self.hands[self.to_play]
        pool = hand if hand is not None else self._unseen()
        return tuple(c for c in pool if c.pips <= room)

    def can_play(self) -> bool:
        """Whether the player to play has a card that fits (for an unknown hand: whether
        some unseen card fits)."""
        if self.to_play is None:
            return False
        room = 31 - self.count
        hand = self.hands[self.to_play]
        if hand is not None:
            return any(c.pips <= room for c in hand)
        return room >= 10 or bool(self.legal_plays())

    def can_go(self) -> bool:
        """Whether the player to play may say go (always checked for a known hand)."""
        if self.to_play is None:
            return False
        if 31 - self.count >= 10:
            return False  # every card fits
        hand = self.hands[self.to_play]
        if hand is None:
            return True
        return not any(c.pips <= 31 - self.count for c in hand)

    def legal_actions(self) -> list[dict[str, Any]]:
        """The actions allowed now, as dicts (`play` with `player`, `card`; `go`)."""
        if self.to_play is None:
            return []
        p = self.to_play
        out: list[dict[str, Any]] = [
            {"type": "play", "player": p, "card": str(c)} for c in self.legal_plays()]
        if self.can_go():
            out.append({"type": "go", "player": p})
        return out

    # --- actions ------------------------------------------------------------------------

    def why_not_play(self, card: Card, player: int | None = None) -> IllegalPlayError | None:
        """Why laying `card` is refused now (the error `play` would raise), or None."""
        p = self._turn(player, f"play {card}")
        if isinstance(p, IllegalPlayError):
            return p
        who = self.name(p)
        if card.pips > 31 - self.count:
            return IllegalPlayError(
                f"{who} cannot play {card}: the count is {self.count} "
                f"and {card} would make {self.count + card.pips}",
                say=f"The {card.pretty} would take the count past 31: it is {self.count}.")
        hand = self.hands[p]
        if hand is not None:
            if card not in hand:
                held = " ".join(map(str, hand)) or "no cards"
                return IllegalPlayError(
                    f"{who} cannot play {card}: {who} holds {held} ({self.describe()})",
                    say=f"{who} doesn't hold the {card.pretty}.")
        elif card in self.seen or any(h is not None and card in h for h in self.hands):
            return IllegalPlayError(
                f"{who} cannot play {card}: it has already been seen in this hand "
                f"({self.describe()})",
                say=f"The {card.pretty} has already been seen this hand.")
        return None

    def play(self, card: Card | str, player: int | None = None) -> PlayState:
        """Lay a card; raises IllegalPlayError (or InvalidCardError) and changes nothing."""
        card = Card.parse(card)
        refused = self.why_not_play(card, player)
        if refused is not None:
            raise refused
        return self.push_play(card)

    def push_play(self, card: Card) -> PlayState:
        """Lay a card that `why_not_play` allowed (trusted, unchecked)."""
        p = self.to_play
        assert p is not None
        hand = self.hands[p]
        series, count = self.series + (card,), self.count + card.pips
        peg = score_pegging(series)
        parts = tuple((k, int(getattr(peg, k))) for k in _PEG_PARTS if getattr(peg, k))
        event = PegEvent("play", p, card, count, int(peg.total), parts)
        state = replace(
            self, hands=set_at(self.hands, p, None if hand is None else
                               tuple(c for c in hand if c != card)),
            left=set_at(self.left, p, self.left[p] - 1), count=count, series=series,
            last_player=p, after_go=False, log=self.log + (event,), seen=self.seen | {card},
            scores=set_at(self.scores, p, self.scores[p] + event.points))
        if count == 31:
            return state._end_series(last_point=False)
        nxt = state._next_active(p, include_self=True)
        if nxt is None:
            return state._end_series(last_point=True)
        return replace(state, to_play=nxt)

    def why_not_go(self, player: int | None = None) -> IllegalPlayError | None:
        """Why a go is refused now (the error `go` would raise), or None."""
        p = self._turn(player, "say go")
        if isinstance(p, IllegalPlayError):
            return p
        who, room, hand = self.name(p), 31 - self.count, self.hands[p]
        if hand is not None:
            playable = [c for c in hand if c.pips <= room]
            if playable:
                fits = playable[0]
                return IllegalPlayError(
                    f"{who} cannot say go: the count is {self.count} and {who} can play "
                    f"{fits} to make {self.count + fits.pips}",
                    say=f"You can't say go: the {fits.pretty} fits "
                    f"(count {self.count + fits.pips}).")
        elif room >= 10:
            return IllegalPlayError(
                f"{who} cannot say go: the count is {self.count}, so any card can be played",
                say=f"You can't say go: the count is {self.count}, so any card fits.")
        return None

    def go(self, player: int | None = None) -> PlayState:
        """Say go; raises IllegalPlayError when a card could be played, and changes nothing."""
        refused = self.why_not_go(player)
        if refused is not None:
            raise refused
        return self.push_go()

    def push_go(self) -> PlayState:
        """Say a go that `why_not_go` allowed (trusted, unchecked)."""
        p = self.to_play
        assert p is not None
        gos = self.gos
        if self.hands[p] is None:
            gos = gos + (DeclaredGo(p, self.count, len(self.log)),)
        state = replace(self, passed=set_at(self.passed, p, True), gos=gos, after_go=True,
                        log=self.log + (PegEvent("go", p, None, self.count, 0),))
        # USPC three- and four-hand rule: if the player after a go cannot play either,
        # the series ends and the next player does not play.
        if self.after_go and self.go_rule is GoRule.USPC and self.players > 2:
            return state._end_series(last_point=True)
        if state._next_active(p, include_self=False) is None:
            return state._end_series(last_point=True)
        return replace(state, to_play=state._next_active(p, include_self=False))

    # --- checking gos when the hands are shown -----------------------------------------

    def false_gos(self, revealed: Sequence[Iterable[Card | str] | None]) -> list[FalseGo]:
        """The recorded gos that were false, given each hand as held when the play began.

        A None entry skips that player. Raises InvalidHandError when a shown hand is the wrong
        size or lacks a card its player laid.
        """
        if len(revealed) != self.players:
            raise InvalidHandError(f"{len(revealed)} hands shown for {self.players} players")
        shown: list[tuple[Card, ...] | None] = []
        for p, hand in enumerate(revealed):
            if hand is None:
                shown.append(None)
                continue
            cards = tuple(Card.parse(c) for c in hand)
            check_distinct(cards)
            if len(cards) != self.dealt[p]:
                raise InvalidHandError(
                    f"{self.name(p)} held {self.dealt[p]} cards, but {len(cards)} were shown")
            missing = [c for c in self.played_by(p) if c not in cards]
            if missing:
                raise InvalidHandError(
                    f"{self.name(p)}'s shown hand lacks {missing[0]}, which {self.name(p)} played")
            shown.append(cards)
        out: list[FalseGo] = []
        for g in self.gos:
            hand = shown[g.player]
            if hand is None:
                continue
            before = {e.card for e in self.log[: g.event] if e.player == g.player and e.card}
            playable = tuple(c for c in hand if c not in before and c.pips <= 31 - g.count)
            if playable:
                out.append(FalseGo(g.player, g.count, g.event, playable))
        return out

    # --- JSON ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": [None if h is None else [str(c) for c in h] for h in self.hands],
            "left": list(self.left),
            "dealt": list(self.dealt),
            "to_play": self.to_play,
            "count": self.count,
            "series": [str(c) for c in self.series],
            "last_player": self.last_player,
            "passed": list(self.passed),
            "after_go": self.after_go,
            "scores": list(self.scores),
            "log": [e.to_json() for e in self.log],
            "gos": [g.to_json() for g in self.gos],
            "seen": sorted(str(c) for c in self.seen),
            "go_rule": self.go_rule.value,
            "single": self.single,
            "names": list(self.names),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayState:
        """Rebuild a state from `to_json`; raises InvalidHandError for a malformed record."""
        try:
            return cls(
                hands=tuple(None if h is None else tuple(Card.parse(c) for c in h)
                            for h in data["hands"]),
                left=tuple(int(x) for x in data["left"]),
                dealt=tuple(int(x) for x in data["dealt"]),
                to_play=None if data["to_play"] is None else int(data["to_play"]),
                count=int(data["count"]),
                series=tuple(Card.parse(c) for c in data["series"]),
                last_player=None if data["last_player"] is None else int(data["last_player"]),
                passed=tuple(bool(x) for x in data["passed"]),
                after_go=bool(data["after_go"]),
                scores=tuple(int(x) for x in data["scores"]),
                log=tuple(PegEvent.from_json(e) for e in data["log"]),
                gos=tuple(DeclaredGo(int(g["player"]), int(g["count"]), int(g["event"]))
                          for g in data["gos"]),
                seen=frozenset(Card.parse(c) for c in data["seen"]),
                go_rule=GoRule(data["go_rule"]),
                single=bool(data["single"]),
                names=tuple(str(n) for n in data["names"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidHandError(f"not a play record: {exc}") from None

    # --- internals ----------------------------------------------------------------------

    def _turn(self, player: int | None, what: str) -> int | IllegalPlayError:
        """The player to play, or why `player` may not `what` now."""
        if self.to_play is None:
            who = "nobody" if player is None else self.name(player)
            return IllegalPlayError(f"{who} cannot {what}: the play is over",
                                    say="The play is over.")
        if player is not None and player != self.to_play:
            if not isinstance(player, int) or not 0 <= player < self.players:
                return IllegalPlayError(f"no player {player!r} can {what} ({self.describe()})")
            return IllegalPlayError(
                f"{self.name(player)} cannot {what}: it is {self.name(self.to_play)}'s turn "
                f"(the count is {self.count})",
                say=f"It's {self.name(self.to_play)}'s turn to play.")
        return self.to_play

    def _unseen(self) -> tuple[Card, ...]:
        held = {c for h in self.hands if h is not None for c in h}
        return tuple(c for c in ALL_CARDS if c not in self.seen and c not in held)

    def _next_active(self, p: int, *, include_self: bool) -> int | None:
        """The next player from p's left still in the series (p itself last, if allowed)."""
        n = self.players
        for step in range(1, n + 1):
            q = (p + step) % n
            if q == p and not include_self:
                break
            if self.left[q] > 0 and not self.passed[q]:
                return q
        return None

    def _next_with_cards(self, p: int) -> int | None:
        n = self.players
        for step in range(1, n + 1):
            q = (p + step) % n
            if self.left[q] > 0:
                return q
        return None

    def _end_series(self, *, last_point: bool) -> PlayState:
        last = self.last_player
        state = self
        if last_point and last is not None:
            event = PegEvent("last", last, None, self.count, 1, (("last", 1),))
            state = replace(state, scores=set_at(state.scores, last, state.scores[last] + 1),
                            log=state.log + (event,))
        n = self.players
        state = replace(state, count=0, series=(), last_player=None, passed=(False,) * n,
                        after_go=False)
        if self.single or not any(state.left):
            return replace(state, to_play=None)
        leader = state._next_with_cards(last if last is not None else 0)
        return replace(state, to_play=leader)
