"""What a seat may know, and a full state sampled from it for search bots.

Public: fields, speculation cards on the table, the flood pile and the crops flooded this turn, deck
size, pass number, the active seat, each seat's storehouse size (and, with the option ``hand_sizes``
"public", its hand size), and of the discard pile its size and the cards everyone saw go there
(fields lost to locusts or taken over, speculation cards, the plague), who drew the plague in the
last step (a seat or the flood), and every card each seat harvested into its storehouse this match
(each harvest is announced at the table). Which cards a trade discarded is the trader's secret
(Board Game Arena announces only "X used the market" or "X made an offering", never the cards): each
seat sees the faces of its own, and of the others' only how many came from the hand and how many
from the storehouse, as anyone at the table sees which pile a card leaves (serai's reading; Board
Game Arena does not tell the split, nor show storehouse sizes), until a reshuffle takes them. A seat
also sees its own hand and its own storehouse. Storehouses are turned over for scoring, so once the
match is over every storehouse is public. Nothing else: no deck order, no seed (the seed would
replay the deal), no other hand or storehouse, not even derived from them, beyond what the public
harvests tell.

Hand sizes (option ``hand_sizes``): "hidden", the default, as on Board Game Arena (its option 100,
"Show count of cards in hand", is off by default): a view holds only its own seat's hand size.
As there, this is a matter of display, not a secret: every draw, plant, speculation and trade is
announced with its card counts (BGA too says "X drew 2 card(s)"), so a seat that follows the
match can count the others' hands, and with two players one view's public counts (deck, discard,
storehouses, fields) give it. "public" shows every hand size, as at the table.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import PLAGUE, Card, Crop, build_deck, multiset
from .state import NileState


@dataclass(frozen=True, slots=True)
class NileView:
    """One seat's knowledge (``seat`` None: a spectator's)."""

    seat: int | None
    players: int
    crops: tuple[Crop, ...]
    active: int
    turn: int
    pass_number: int
    passes: int
    deck_size: int
    flooded: tuple[Crop, ...]
    flood_pile: tuple[Card, ...]
    discard: tuple[Card, ...]  # the public part of the discard pile
    discard_size: int
    copies_per_crop: int
    fields: tuple[tuple[int, ...], ...]
    speculations: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int | None, ...]  # None: hidden (option hand_sizes)
    storehouse_sizes: tuple[int, ...]
    hand: tuple[Card, ...]
    storehouses: tuple[tuple[int, ...] | None, ...]
    finished: bool
    traded_from_hand: tuple[int, ...]  # per seat: cards it discarded in trades, from hand
    traded_from_storehouse: tuple[int, ...]  # ... and from its storehouse
    own_traded_hand: tuple[Card, ...]  # the viewer's own trade discards, named
    own_traded_storehouse: tuple[Card, ...]
    plague_drawn_by: tuple[int, ...]  # in the last step: seats, or FLOOD
    traded_this_turn: bool  # the active seat has traded since its turn began
    harvested: tuple[tuple[int, ...], ...] = ()  # per seat, by crop: public; () when not kept

    @property
    def plague_in_deck(self) -> bool:
        """The plague never stays in a hand, so it is in the deck unless it lies in the discard."""
        return PLAGUE not in self.discard

    @property
    def own_storehouse(self) -> tuple[int, ...] | None:
        return None if self.seat is None else self.storehouses[self.seat]


def make_view(state: NileState, seat: int | None) -> NileView:
    def known(other: int) -> tuple[int, ...] | None:
        return state.storehouses[other] if state.finished or other == seat else None

    traded = Counter[Card]()
    for cards in (*state.traded_hand, *state.traded_storehouse):
        traded.update(cards)
    public_discard = multiset((Counter(state.discard) - traded).elements())
    return NileView(
        seat=seat,
        players=state.players,
        crops=state.crops,
        active=state.active,
        turn=state.turn,
        pass_number=state.pass_number,
        passes=state.passes,
        deck_size=len(state.deck),
        flooded=state.flooded,
        flood_pile=state.flood_pile,
        discard=public_discard,
        discard_size=len(state.discard),
        copies_per_crop=state.copies_per_crop,
        fields=state.fields,
        speculations=state.speculations,
        hand_sizes=tuple(
            None if state.hide_hand_sizes and other != seat else len(hand)
            for other, hand in enumerate(state.hands)
        ),
        storehouse_sizes=tuple(sum(counts) for counts in state.storehouses),
        hand=() if seat is None else state.hands[seat],
        storehouses=tuple(known(other) for other in range(state.players)),
        finished=state.finished,
        traded_from_hand=tuple(len(cards) for cards in state.traded_hand),
        traded_from_storehouse=tuple(len(cards) for cards in state.traded_storehouse),
        own_traded_hand=() if seat is None else state.traded_hand[seat],
        own_traded_storehouse=() if seat is None else state.traded_storehouse[seat],
        plague_drawn_by=state.plague_drawn_by,
        traded_this_turn=state.traded_this_turn,
        harvested=state.harvested,
    )


def determinize(view: NileView, rng: random.Random) -> NileState:
    """A state that gives exactly ``view`` to its seat, the unknown cards dealt from ``rng``.

    Unknown cards are the whole deck minus everything the seat sees. Storehouses only ever hold
    crop cards and hands never hold the plague, so unknown storehouses, and the cards the other
    seats discarded from them in trades, are filled from the unknown crop cards first; the plague
    goes to the deck, and the rest are shuffled into the other seats' trade discards from hand,
    the other hands and the deck. An unknown storehouse is the seat's public harvests less as many
    of them, at random, as its trades took (those go first to its trade discards), where the
    unseen cards allow it, else crop cards at random. The true state is one such deal, so a deal
    always exists. The seed is drawn from ``rng`` too: the real one is secret (it would replay the
    deal). Where hand sizes are hidden, the cards the deck does not take go to the other seats'
    hands, each card to one of them at random.
    """
    unknown = Counter(build_deck(view.crops, view.copies_per_crop))
    seen: Counter[Card] = Counter(view.flood_pile)
    seen.update(view.discard)
    seen.update(view.own_traded_hand)
    seen.update(view.own_traded_storehouse)
    seen.update(view.hand)
    for seat in range(view.players):
        seen.update(view.speculations[seat])
        counts = list(view.fields[seat])
        if view.storehouses[seat] is not None:
            counts = [a + b for a, b in zip(counts, view.storehouses[seat], strict=True)]  # type: ignore[arg-type]
        for crop in view.crops:
            seen[Card.crop(crop)] += counts[crop]
    unknown.subtract(seen)
    if any(count < 0 for count in unknown.values()):
        raise ValueError("the view shows more cards than the game has")
    plague = unknown.pop(PLAGUE, 0)
    pool = sorted(unknown.elements())
    rng.shuffle(pool)

    def crop_cards(count: int) -> list[Card]:
        taken = []
        for _ in range(count):
            taken.append(pool.pop(next(i for i, card in enumerate(pool) if card.is_crop)))
        return taken

    def take(cards: Sequence[Card]) -> bool:
        """Take these cards out of the pool, if it holds them all."""
        if Counter(cards) - Counter(pool):
            return False
        for card in cards:
            pool.remove(card)
        return True

    storehouses: list[tuple[int, ...]] = []
    lost: dict[int, list[Card]] = {}  # per other seat: the harvested cards its trades took
    for seat in range(view.players):
        known = view.storehouses[seat]
        if known is not None:
            storehouses.append(known)
            continue
        sample = _storehouse_sample(view, seat, pool, rng)
        if sample is not None:
            kept, lost[seat] = sample
            take(kept)
            held = Counter(card.crops[0] for card in kept)
        else:  # harvests not kept, or the seats before took the crops it kept: any crops
            held = Counter(card.crops[0] for card in crop_cards(view.storehouse_sizes[seat]))
        storehouses.append(tuple(held[crop] for crop in view.crops))
    traded_storehouse = []
    for seat, count in enumerate(view.traded_from_storehouse):
        if seat == view.seat:
            traded_storehouse.append(multiset(view.own_traded_storehouse))
            continue
        # The storehouse cards this seat's trades discarded since the reshuffle are among the
        # harvested cards it no longer holds, where those are still unseen.
        traded = [card for card in lost.get(seat, ())[:count] if take([card])]
        traded_storehouse.append(multiset(traded + crop_cards(count - len(traded))))
    traded_hand: list[tuple[Card, ...]] = []
    for seat, count in enumerate(view.traded_from_hand):
        if seat == view.seat:
            traded_hand.append(view.own_traded_hand)
        else:
            traded_hand.append(multiset(pool[:count]))
            del pool[:count]

    hidden = [seat for seat, size in enumerate(view.hand_sizes) if size is None]
    sizes = [
        0 if size is None or seat == view.seat else size
        for seat, size in enumerate(view.hand_sizes)
    ]
    in_hidden_hands = len(pool) - (view.deck_size - plague) - sum(sizes)
    for _ in range(in_hidden_hands if hidden else 0):
        sizes[rng.choice(hidden)] += 1
    hands: list[tuple[Card, ...]] = []
    for seat in range(view.players):
        if seat == view.seat:
            hands.append(view.hand)
            continue
        hands.append(multiset(pool[: sizes[seat]]))
        del pool[: sizes[seat]]
    deck = pool
    if plague:
        deck.insert(rng.randrange(len(deck) + 1), PLAGUE)
    if len(deck) != view.deck_size:
        raise ValueError(f"the view's deck size {view.deck_size} does not match its cards")
    return NileState(
        seed=rng.getrandbits(63),
        players=view.players,
        crops=view.crops,
        passes=view.passes,
        pass_number=view.pass_number,
        turn=view.turn,
        active=view.active,
        deck=tuple(deck),
        flood_pile=view.flood_pile,
        flooded=view.flooded,
        discard=multiset(
            [
                *view.discard,
                *(c for cards in traded_hand for c in cards),
                *(c for cards in traded_storehouse for c in cards),
            ]
        ),
        hands=tuple(hands),
        storehouses=tuple(storehouses),
        fields=view.fields,
        speculations=view.speculations,
        finished=view.finished,
        copies_per_crop=view.copies_per_crop,
        traded_hand=tuple(traded_hand),
        traded_storehouse=tuple(traded_storehouse),
        plague_drawn_by=view.plague_drawn_by,
        hide_hand_sizes=bool(hidden),
        traded_this_turn=view.traded_this_turn,
        harvested=view.harvested,
    )


def _storehouse_sample(
    view: NileView, seat: int, pool: list[Card], rng: random.Random
) -> tuple[tuple[Card, ...], list[Card]] | None:
    """Another seat's storehouse drawn from its public harvests, and the harvested cards its
    trades took: the harvests less as many random ones as the storehouse has fewer cards (trades
    alone take cards out, of crops only the trader saw), keeping no more of a crop than the
    unseen ``pool`` holds. None where the view keeps no harvests or the pool cannot fill it."""
    if not view.harvested:
        return None
    harvested = [Card.crop(crop) for crop in view.crops for _ in range(view.harvested[seat][crop])]
    size = view.storehouse_sizes[seat]
    rng.shuffle(harvested)
    room = Counter(pool)
    kept: list[Card] = []
    taken: list[Card] = []
    for card in harvested:
        if len(kept) < size and room[card]:
            room[card] -= 1
            kept.append(card)
        else:
            taken.append(card)
    return (multiset(kept), taken) if len(kept) == size else None
