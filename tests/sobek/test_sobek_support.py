"""Builders for constructed Sobek states, shared by the other test_sobek_* files (no tests here).

``build`` lays out named cards (by face) where a test wants them; every card not placed is put
out of play (``removed``), so constructed states still hold all 63 cards exactly once.
"""

from __future__ import annotations

from dataclasses import replace

from serai_sobek import SobekGame
from serai_sobek.cards import CARDS, CHARACTER_IDS, Character, Face, Goods, Kind, face_of
from serai_sobek.events import Event
from serai_sobek.state import Pending, Phase, SeatState, SobekState, TableSet

GAME = SobekGame()


def goods(kind: Goods, scarabs: int | None = None) -> Face:
    """A goods card of ``kind``: with its trade value, or with ``scarabs`` (0 for a plain one)."""
    if scarabs is None:
        scarabs = max(c.face.scarabs for c in CARDS if c.face.goods == kind)
    return Face(Kind.GOODS, int(kind), scarabs)


AMULET = Face(Kind.AMULET, 0, 0)


def char(character: Character) -> Face:
    return face_of(CHARACTER_IDS[character])


class Pool:
    def __init__(self) -> None:
        self.left = list(range(len(CARDS)))

    def take(self, face: Face) -> int:
        for card in self.left:
            if face_of(card) == face:
                self.left.remove(card)
                return card
        raise AssertionError(f"no {face} left to place")

    def many(self, faces: list[Face] | tuple[Face, ...]) -> tuple[int, ...]:
        return tuple(self.take(face) for face in faces)


def build(
    players: int = 2,
    *,
    hands: dict[int, list[Face]] | None = None,
    corruption: dict[int, list[Face]] | None = None,
    sets: dict[int, list[tuple[Goods, list[Face], bool]]] | None = None,
    row: list[Face] | None = None,
    deck: list[Face] | None = None,
    tokens: tuple[Event, ...] = (),
    current: int = 0,
    scores: tuple[int, ...] | None = None,
    bonus: tuple[int, ...] | None = None,
    round: int = 1,
    phase: Phase = Phase.PLAY,
    finishing: tuple[int, ...] = (),
    pending: tuple[Pending, ...] = (),
    options: dict[str, object] | None = None,
    seed: int = 1,
) -> SobekState:
    pool = Pool()
    seats = []
    for seat in range(players):
        hand = pool.many((hands or {}).get(seat, []))
        pile = pool.many((corruption or {}).get(seat, []))
        laid = tuple(
            TableSet(g, tuple(sorted(pool.many(cards))), horizontal)
            for g, cards, horizontal in (sets or {}).get(seat, [])
        )
        seats.append(
            SeatState(
                hand=tuple(sorted(hand)),
                corruption=pile,
                sets=laid,
                score=(scores or (0,) * players)[seat],
                bonus=(bonus or (0,) * players)[seat],
            )
        )
    row_ids = pool.many(row or [])
    deck_ids = pool.many(deck or [])
    resolved = GAME.resolve_options(options or {})  # type: ignore[arg-type]
    return SobekState(
        players=players,
        seed=seed,
        options=tuple(sorted(resolved.items())),
        round=round,
        phase=phase,
        current=current,
        starter=0,
        turn=0,
        deck=deck_ids,
        row=row_ids,
        discard=(),
        removed=tuple(pool.left),
        unused=(),
        tokens=tokens,
        used_tokens=(),
        seats=tuple(seats),
        pending=pending,
        finishing=finishing,
    )


def hand_faces(state: SobekState, seat: int) -> list[Face]:
    return sorted(face_of(card) for card in state.seats[seat].hand)


def pile_faces(state: SobekState, seat: int) -> list[Face]:
    return sorted(face_of(card) for card in state.seats[seat].corruption)


def all_cards(state: SobekState) -> list[int]:
    """Every card id in every zone: a conserved multiset."""
    cards = [*state.deck, *state.row, *state.discard, *state.removed, *state.unused]
    cards += state.set_aside
    for seat in state.seats:
        cards += [*seat.hand, *seat.corruption]
        for table_set in seat.sets:
            cards += table_set.cards
    return sorted(cards)


def filler(n: int) -> list[Face]:
    """``n`` plain wheat/fish cards: harmless market padding."""
    plain = [goods(Goods.WHEAT, 0)] * 4 + [goods(Goods.FISH, 0)] * 4 + [goods(Goods.CATTLE, 0)] * 4
    assert n <= len(plain)
    return plain[:n]


def with_options(state: SobekState, **options: object) -> SobekState:
    merged = dict(state.options) | options
    return replace(state, options=tuple(sorted(merged.items())))  # type: ignore[arg-type]
