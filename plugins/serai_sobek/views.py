"""What each seat may know, and full states consistent with it (for search bots).

A seat sees: its own hand and its own corruption pile; the market row with goods face up and
characters face down; every set on the table; played characters; used event tokens; scores and
each seat's event points; how many cards each hand holds, and (option ``corruption_counts``
"public", a variant) how many cards each corruption pile holds: by default ("hidden") only its
owner is shown that, as the original rules keep the count under the corruption tile. While a
seat is picking an event token it sees the faces of the tokens left, as the rules let the picker
look at them all. A spectator (``None``) sees the public part only. Nobody sees the deck order,
the unused green cards, the market cards set aside at two players, the cards discarded from
corruption piles, or the other face-down tokens.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from serai.game import OptionValue

from serai_sobek.cards import CARDS, Card, Face, Goods, Kind, face_of, faces
from serai_sobek.events import TOKENS, Event
from serai_sobek.sets import points
from serai_sobek.state import (
    Pending,
    PendingKind,
    Phase,
    RoundResult,
    SeatState,
    SobekState,
    TableSet,
)

HIDDEN = -1  # a count the viewer may not know


@dataclass(frozen=True)
class SetView:
    goods: Goods
    cards: tuple[Face, ...]
    horizontal: bool
    points: int


@dataclass(frozen=True)
class SeatView:
    seat: int
    score: int
    bonus: int
    hand_count: int
    hand: tuple[Face, ...]  # the viewer's own only
    corruption_count: int  # HIDDEN for another seat when the option hides counts
    corruption: tuple[Face, ...]  # the viewer's own only
    sets: tuple[SetView, ...]


@dataclass(frozen=True)
class SobekView:
    viewer: int | None
    players: int
    options: tuple[tuple[str, OptionValue], ...]
    round: int
    phase: Phase
    current: int
    starter: int
    turn: int
    to_act: tuple[int, ...]
    row: tuple[Face | None, ...]  # None: a face-down character
    deck_count: int
    discard: tuple[Face, ...]
    removed_count: int
    unused_count: int
    tokens_left: int
    tokens_seen: tuple[Event, ...]  # the faces of the tokens left, only while picking one
    used_tokens: tuple[Event, ...]
    seats: tuple[SeatView, ...]
    pending: tuple[Pending, ...]
    finishing: tuple[int, ...]
    results: tuple[RoundResult, ...]
    set_aside_count: int = 0  # two players: market cards out of play this round, face down


def _row_face(card: int) -> Face | None:
    face = face_of(card)
    return None if face.kind is Kind.CHARACTER else face


def _set_view(table_set: TableSet) -> SetView:
    return SetView(table_set.goods, faces(table_set.cards), table_set.horizontal, points(table_set))


def view(state: SobekState, viewer: int | None, acting: tuple[int, ...]) -> SobekView:
    public_counts = state.option("corruption_counts") == "public"
    seats = []
    for seat, s in enumerate(state.seats):
        mine = seat == viewer
        seats.append(
            SeatView(
                seat=seat,
                score=s.score,
                bonus=s.bonus,
                hand_count=len(s.hand),
                hand=faces(s.hand) if mine else (),
                corruption_count=len(s.corruption) if mine or public_counts else HIDDEN,
                corruption=faces(s.corruption) if mine else (),
                sets=tuple(_set_view(t) for t in s.sets),
            )
        )
    picking = bool(state.pending) and state.pending[0].kind is PendingKind.EVENT
    sees_tokens = picking and viewer is not None and state.pending[0].actor == viewer
    return SobekView(
        viewer=viewer,
        players=state.players,
        options=state.options,
        round=state.round,
        phase=state.phase,
        current=state.current,
        starter=state.starter,
        turn=state.turn,
        to_act=acting,
        row=tuple(_row_face(card) for card in state.row),
        deck_count=len(state.deck),
        discard=tuple(face_of(card) for card in state.discard),
        removed_count=len(state.removed),
        unused_count=len(state.unused),
        tokens_left=len(state.tokens),
        tokens_seen=state.tokens if sees_tokens else (),
        used_tokens=state.used_tokens,
        seats=tuple(seats),
        pending=state.pending,
        finishing=state.finishing,
        results=state.results,
        set_aside_count=len(state.set_aside),
    )


# --- determinization ---------------------------------------------------------------------------


def determinize(v: SobekView, rng: random.Random) -> SobekState:
    """A full state agreeing with ``v``; what ``v`` hides is dealt at random from what is left.

    With hidden corruption counts (option ``corruption_counts``) only the total of the other
    piles follows from the view: the cards left over are shared among them at random.
    """
    own = v.viewer
    visible: list[Face] = [face for face in v.discard]
    visible += [face for face in v.row if face is not None]
    for s in v.seats:
        visible += [face for t in s.sets for face in t.cards]
    if own is not None:
        visible += [*v.seats[own].hand, *v.seats[own].corruption]
    seen = set(_visible_ids(visible, v.unused_count))
    unknown = [card for card in range(len(CARDS)) if card not in seen]
    known = {face: [c for c in _IDS[face] if c in seen] for face in set(visible)}

    def claim(wanted: tuple[Face, ...]) -> tuple[int, ...]:
        return tuple(known[face].pop() for face in wanted)

    hands: dict[int, tuple[int, ...]] = {}
    piles: dict[int, tuple[int, ...]] = {}
    sets: dict[int, tuple[TableSet, ...]] = {}
    for s in v.seats:
        sets[s.seat] = tuple(
            TableSet(t.goods, tuple(sorted(claim(t.cards))), t.horizontal) for t in s.sets
        )
    if own is not None:
        hands[own] = tuple(sorted(claim(v.seats[own].hand)))
        piles[own] = claim(v.seats[own].corruption)
    discard = tuple(claim((face,))[0] for face in v.discard)
    row_known = {i: claim((face,))[0] for i, face in enumerate(v.row) if face is not None}
    rng.shuffle(unknown)

    def draw(count: int, keep: object = lambda card: True) -> tuple[int, ...]:
        chosen = [card for card in unknown if keep(card)][:count]  # type: ignore[operator]
        if len(chosen) < count:
            raise ValueError("the view's counts cannot be met")
        for card in chosen:
            unknown.remove(card)
        return tuple(chosen)

    is_char = lambda card: face_of(card).kind is Kind.CHARACTER  # noqa: E731
    row_hidden = iter(draw(sum(face is None for face in v.row), is_char))
    row = tuple(row_known[i] if i in row_known else next(row_hidden) for i in range(len(v.row)))
    unused = tuple(sorted(draw(v.unused_count, lambda card: CARDS[card].green)))
    deck = draw(v.deck_count, lambda card: not CARDS[card].green)
    set_aside = tuple(sorted(draw(v.set_aside_count, lambda card: not CARDS[card].green)))
    secret = [s.seat for s in v.seats if s.seat != own and s.corruption_count == HIDDEN]
    for s in v.seats:
        if s.seat != own:
            hands[s.seat] = tuple(sorted(draw(s.hand_count)))
            if s.seat not in secret:
                piles[s.seat] = draw(s.corruption_count)
    removed = draw(v.removed_count)
    shares: dict[int, list[int]] = {seat: [] for seat in secret}
    for card in list(unknown) if secret else []:
        shares[rng.choice(secret)].append(card)
        unknown.remove(card)
    piles.update({seat: tuple(cards) for seat, cards in shares.items()})
    if unknown:
        raise ValueError(f"the view leaves {len(unknown)} cards unaccounted for")
    return SobekState(
        players=v.players,
        seed=rng.randrange(2**62),
        options=v.options,
        round=v.round,
        phase=v.phase,
        current=v.current,
        starter=v.starter,
        turn=v.turn,
        deck=deck,
        row=row,
        discard=discard,
        removed=removed,
        unused=unused,
        tokens=v.tokens_seen or _sample_tokens(v, rng),
        used_tokens=v.used_tokens,
        seats=tuple(
            SeatState(hands[s.seat], piles[s.seat], sets[s.seat], s.score, s.bonus) for s in v.seats
        ),
        pending=v.pending,
        finishing=v.finishing,
        results=v.results,
        set_aside=set_aside,
    )


def _ids_by_face(keep: Callable[[Card], bool]) -> dict[Face, list[int]]:
    """The ids of each face among the cards ``keep`` accepts, smallest first: looked up by
    every determinization, so built once."""
    ids: dict[Face, list[int]] = {}
    for card in CARDS:
        if keep(card):
            ids.setdefault(card.face, []).append(card.id)
    return ids


_IDS = _ids_by_face(lambda card: True)
_GREEN_IDS = _ids_by_face(lambda card: card.green)
_MARKET_IDS = _ids_by_face(lambda card: not card.green)


def _visible_ids(visible: list[Face], unused: int) -> list[int]:
    """Card ids for the visible faces, leaving enough green ids to fill the unused pile.

    A plain card exists with a green back and with a market back, and a face does not say which.
    Per face, take green ids for as many visible cards as possible, then give green ids back
    until ``unused`` green ones stay unknown; the real state proves this can be met.
    """
    counts = Counter(visible)
    green = {f: _GREEN_IDS.get(f, []) for f in counts}
    market = {f: _MARKET_IDS.get(f, []) for f in counts}
    if any(len(green[f]) + len(market[f]) < n for f, n in counts.items()):
        raise ValueError("the view names cards that do not exist")
    greens = {f: min(n, len(green[f])) for f, n in counts.items()}
    spare = len([c for c in CARDS if c.green]) - unused
    for f in sorted(counts):
        while sum(greens.values()) > spare and greens[f] > max(0, counts[f] - len(market[f])):
            greens[f] -= 1
    ids: list[int] = []
    for f, n in counts.items():
        ids += green[f][: greens[f]] + market[f][: n - greens[f]]
    return ids


def _sample_tokens(v: SobekView, rng: random.Random) -> tuple[Event, ...]:
    left = Counter(TOKENS) - Counter(v.used_tokens)
    pool = sorted(left.elements())
    rng.shuffle(pool)
    return tuple(pool[: v.tokens_left])


__all__ = ["SeatView", "SetView", "SobekView", "determinize", "view"]
