"""Builders for Nile tests: tables written the way the rules talk about them.

    table(hands=[["wheat", "wheat"], []], fields=[{}, {"flax": 3}], deck=["papyrus"] * 10)

Cards are spelled by name: "wheat", "papyrus/wheat" (a speculation card), "plague". A built
table need not hold all 91 cards; rules tests only need the cards they are about.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from serai_nile import NileGame
from serai_nile.cards import PLAGUE, Card, Crop, base_crops
from serai_nile.moves import NileMove
from serai_nile.state import NileState

GAME = NileGame()


def card(name: str) -> Card:
    if name == "plague":
        return PLAGUE
    crops = tuple(Crop[part.upper()] for part in name.split("/"))
    return Card(crops)


def cards(names: Iterable[str]) -> tuple[Card, ...]:
    return tuple(card(name) for name in names)


def crop(name: str) -> Crop:
    return Crop[name.upper()]


def counts(spec: Mapping[str, int], crops: tuple[Crop, ...]) -> tuple[int, ...]:
    values = [0] * len(crops)
    for name, count in spec.items():
        values[crop(name)] = count
    return tuple(values)


def table(
    *,
    players: int = 2,
    active: int = 0,
    hands: Sequence[Sequence[str]] | None = None,
    fields: Sequence[Mapping[str, int]] | None = None,
    storehouses: Sequence[Mapping[str, int]] | None = None,
    speculations: Sequence[Sequence[str]] | None = None,
    deck: Sequence[str] = ("papyrus",) * 20,
    flood_pile: Sequence[str] = ("lettuce",),
    flooded: Sequence[str] | None = None,
    discard: Sequence[str] = (),
    pass_number: int = 1,
    passes: int | None = None,
    seed: int = 1,
    hand_sizes: str = "hidden",
) -> NileState:
    crops = base_crops()
    if flooded is None:
        flooded = [c.label for c in card(flood_pile[-1]).crops] if flood_pile else []
    return NileState(
        seed=seed,
        players=players,
        crops=crops,
        passes=players if passes is None else passes,
        pass_number=pass_number,
        turn=1,
        active=active,
        deck=cards(deck),
        flood_pile=cards(flood_pile),
        flooded=tuple(sorted(crop(name) for name in flooded)),
        discard=tuple(sorted(cards(discard))),
        hands=tuple(tuple(sorted(cards(h))) for h in (hands or [[]] * players)),
        storehouses=tuple(counts(s, crops) for s in (storehouses or [{}] * players)),
        fields=tuple(counts(f, crops) for f in (fields or [{}] * players)),
        speculations=tuple(tuple(sorted(cards(s))) for s in (speculations or [[]] * players)),
        hide_hand_sizes=hand_sizes == "hidden",
    )


def field(state: NileState, seat: int, name: str) -> int:
    return state.fields[seat][crop(name)]


def store(state: NileState, seat: int, name: str) -> int:
    return state.storehouses[seat][crop(name)]


def hand_names(state: NileState, seat: int) -> list[str]:
    return [c.name for c in state.hands[seat]]


def random_playout(
    players: int, seed: int, choices: random.Random, *, trade_rate: float = 0.3, deluxor=False
) -> list[tuple[NileState, int, NileMove]]:
    """A whole match by a random player that trades now and then: (state, seat, move) per step,
    and the final state as the last entry's successor (``GAME.apply`` of the last step)."""
    state = GAME.setup(players, seed, {"deluxor": deluxor})
    steps: list[tuple[NileState, int, NileMove]] = []
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        moves = GAME.legal_moves(state, seat)
        trades = [m for m in moves if type(m).__name__ in ("Market", "Offering")]
        others = [m for m in moves if type(m).__name__ not in ("Market", "Offering")]
        move = choices.choice(trades if trades and choices.random() < trade_rate else others)
        steps.append((state, seat, move))
        state = GAME.apply(state, seat, move)
    steps.append((state, -1, None))  # type: ignore[arg-type]
    return steps
