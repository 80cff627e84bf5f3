"""The rules of Nile: setup, the legal moves of a seat, and what a move does.

Every function is pure. :func:`apply` copies the state into a mutable :class:`_Table`, runs the
move and everything that follows it without a decision (the draw, the next seat's flood and
harvest, speculation payouts, locusts, reshuffles, the end), and freezes the result.

Randomness: the deal uses ``seeded_rng(seed, "deal")`` and ``seeded_rng(seed, "deck")``; the
reshuffle that starts pass ``n`` uses ``seeded_rng(seed, "reshuffle", n)``. Nothing else is random:
every other card comes off the top of a deck the state records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import combinations, product

from serai.game import IllegalMove, MalformedMove, Outcome, seeded_rng

from .cards import COPIES_PER_CROP, HAND_SIZE, PLAGUE, Card, Crop, build_deck, multiset, plural
from .moves import (
    Market,
    NileMove,
    Offering,
    Pass,
    Plant,
    Speculate,
    cards_named,
    check_cards_named,
    trade_kind,
)
from .state import FLOOD, NileState

SPECULATION_PAYOUT = 3
DRAW_AT_END_OF_TURN = 2


# --- setup ----------------------------------------------------------------------------------------


def setup(
    players: int,
    seed: int,
    crops: tuple[Crop, ...],
    copies: int = COPIES_PER_CROP,
    *,
    hide_hand_sizes: bool = True,
) -> NileState:
    """Deal 5 cards each with the plague set aside, shuffle it into the rest, flood for seat 0.
    ``copies`` is the number of cards of each crop: 16, or 14 with DeLuxor; ``hide_hand_sizes``
    is the option ``hand_sizes`` (see :class:`~serai_nile.state.NileState`)."""
    cards = [card for card in build_deck(crops, copies) if not card.is_plague]
    seeded_rng(seed, "deal").shuffle(cards)
    hands = tuple(
        multiset(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(players)
    )
    deck = [*cards[players * HAND_SIZE :], PLAGUE]
    seeded_rng(seed, "deck").shuffle(deck)
    empty_counts = tuple(0 for _ in crops)
    state = NileState(
        seed=seed,
        players=players,
        crops=crops,
        passes=players,
        pass_number=1,
        turn=1,
        active=0,
        deck=tuple(deck),
        flood_pile=(),
        flooded=(),
        discard=(),
        hands=hands,
        storehouses=(empty_counts,) * players,
        fields=(empty_counts,) * players,
        speculations=((),) * players,
        copies_per_crop=copies,
        hide_hand_sizes=hide_hand_sizes,
        harvested=(empty_counts,) * players,
    )
    table = _Table(state)
    table.note(f"{players} players, {players} passes through the deck; seat 0 begins")
    table.flood()
    table.finish_if_exhausted()
    return table.freeze()


# --- legal moves ----------------------------------------------------------------------------------


def legal_moves(state: NileState, seat: int) -> list[NileMove]:
    """Every legal move of ``seat``: pass, plants, speculations, markets, offerings, in that order.

    Finite and complete because hand and storehouse are: trades are pairs of card faces, plants
    are multisets of crops (see :func:`plant_moves` for the one that can grow large).
    """
    if state.finished or seat != state.active:
        return []
    moves: list[NileMove] = [Pass()]
    moves += plant_moves(state, seat)
    moves += speculate_moves(state, seat)
    trades = trade_sources(state, seat)
    moves += [Market(hand, store) for hand, store in trades]
    moves += [Offering(hand, store) for hand, store in trades]
    return moves


def plant_moves(state: NileState, seat: int) -> list[Plant]:
    """Every multiset of crop cards the seat may plant, by the three forms of the rules.

    Form (c), cards only into fields you have, is every non-empty sub-multiset of your hand over
    the crops you grow: the product of (count + 1) over those crops, minus one. It is bounded by
    the hand (a 20-card hand spread over 5 grown crops gives 5^5 - 1 = 3124; hands in play rarely
    pass a dozen cards) and listed in full, because the contract wants every legal move. Each
    plant is a multiset, so no two listed moves put the same cards in the same fields.
    """
    hand = Counter(card.crops[0] for card in state.hands[seat] if card.is_crop)
    flooded = set(state.flooded)
    plantable = [crop for crop in state.crops if hand[crop] and crop not in flooded]
    mine = [crop for crop in plantable if state.fields[seat][crop]]
    found: set[tuple[Crop, ...]] = set()
    for counts in product(*(range(hand[crop] + 1) for crop in mine)):
        pairs = zip(mine, counts, strict=True)
        planted = tuple(crop for crop, count in pairs for _ in range(count))
        if planted:
            found.add(planted)
    for crop in plantable:
        if crop in mine:
            continue
        smallest = max(2, _opponent_field(state, seat, crop) + 1)
        for count in range(smallest, hand[crop] + 1):
            found.add((crop,) * count)
    for first, second in combinations(plantable, 2):
        new = [crop for crop in (first, second) if crop not in mine]
        if new and all(_opponent_field(state, seat, crop) == 0 for crop in new):
            found.add((first, second))
    return [Plant(crops) for crops in sorted(found, key=lambda crops: (len(crops), crops))]


def speculate_moves(state: NileState, seat: int) -> list[Speculate]:
    flooded = set(state.flooded)
    hand = state.hands[seat]
    cards = sorted({c for c in hand if c.is_speculation and not flooded & set(c.crops)})
    return [Speculate((card,)) for card in cards] + [
        Speculate(pair) for pair in combinations(cards, 2)
    ]


def trade_sources(state: NileState, seat: int) -> list[tuple[tuple[Card, ...], tuple[Crop, ...]]]:
    """Every pair of cards the seat could discard, as (hand faces, storehouse crops)."""
    hand = Counter(state.hands[seat])
    sources: list[tuple[str, Card | Crop, int]] = [
        ("hand", card, hand[card]) for card in sorted(hand)
    ]
    sources += [
        ("storehouse", crop, state.storehouses[seat][crop])
        for crop in state.crops
        if state.storehouses[seat][crop]
    ]
    pairs: list[tuple[tuple[Card, ...], tuple[Crop, ...]]] = []
    for i, (where_a, a, count_a) in enumerate(sources):
        for j in range(i, len(sources)):
            where_b, b, _ = sources[j]
            if i == j and count_a < 2:
                continue
            chosen = [(where_a, a), (where_b, b)]
            pairs.append(
                (
                    tuple(c for w, c in chosen if w == "hand"),  # type: ignore[misc]
                    tuple(c for w, c in chosen if w == "storehouse"),  # type: ignore[misc]
                )
            )
    return pairs


def _opponent_field(state: NileState, seat: int, crop: Crop) -> int:
    owner = state.field_owner(crop)
    return 0 if owner is None or owner == seat else state.fields[owner][crop]


# --- apply ----------------------------------------------------------------------------------------


def apply(state: NileState, seat: int, move: NileMove) -> NileState:
    """The state after ``seat`` plays ``move``; ``state`` itself is never changed."""
    if not isinstance(move, Market | Offering | Plant | Speculate | Pass):
        raise MalformedMove(f"not a Nile move: {move!r}")
    check_cards_named(cards_named(move))
    if state.finished:
        raise IllegalMove("the match is over")
    if seat != state.active:
        raise IllegalMove(f"it is seat {state.active}'s turn, not seat {seat}'s")
    table = _Table(state)
    if isinstance(move, Market | Offering):
        _check_trade(state, seat, move)
        table.discard_from(seat, move.hand, move.storehouse)
        table.note(f"seat {seat} trades at the {trade_kind(move)}")
        table.traded_this_turn = True
        if isinstance(move, Market):
            table.locusts(table.draw(seat, 1))
        else:
            table.flood()
        table.finish_if_exhausted()
        return table.freeze()
    if isinstance(move, Plant):
        _check_plant(state, seat, move)
        table.plant(seat, move.crops)
    elif isinstance(move, Speculate):
        _check_speculate(state, seat, move)
        for card in move.cards:
            table.hands[seat].remove(card)
        table.speculations[seat] = sorted(table.speculations[seat] + list(move.cards))
    table.end_turn()
    return table.freeze()


def _check_trade(state: NileState, seat: int, move: Market | Offering) -> None:
    if not isinstance(move.hand, tuple) or not all(isinstance(c, Card) for c in move.hand):
        raise MalformedMove("a trade names hand cards as Card values")
    if not isinstance(move.storehouse, tuple) or not all(
        isinstance(c, Crop) for c in move.storehouse
    ):
        raise MalformedMove("a trade names storehouse cards by Crop")
    total = len(move.hand) + len(move.storehouse)
    if total != 2:
        raise IllegalMove(
            f"a trade discards exactly 2 cards from your hand and/or storehouse, not {total}"
        )
    _check_in_hand(state, seat, move.hand)
    have = Counter(move.storehouse)
    for crop, wanted in sorted(have.items()):
        held = state.storehouses[seat][crop] if crop in state.crops else 0
        if held < wanted:
            raise IllegalMove(
                f"your storehouse holds {held} {crop.label}, so you cannot discard {wanted}"
            )


def _check_in_hand(state: NileState, seat: int, cards: Iterable[Card]) -> None:
    hand = Counter(state.hands[seat])
    for card, wanted in sorted(Counter(cards).items()):
        if hand[card] < wanted:
            held = "no" if not hand[card] else f"only {hand[card]}"
            raise IllegalMove(f"you have {held} {card.name} in hand, so you cannot use {wanted}")


def _check_plant(state: NileState, seat: int, move: Plant) -> None:
    if not isinstance(move.crops, tuple) or not all(isinstance(c, Crop) for c in move.crops):
        raise MalformedMove("a plant names its cards by Crop")
    if not move.crops:
        raise IllegalMove("plant at least one card, or pass")
    for crop in move.crops:
        if crop not in state.crops:
            raise IllegalMove(f"{crop.label} is not played in this match")
    _check_in_hand(state, seat, (Card.crop(crop) for crop in move.crops))
    for crop in sorted(set(move.crops)):
        if crop in state.flooded:
            raise IllegalMove(f"{crop.label} is flooded this turn: it cannot be planted")
    counts = Counter(move.crops)
    new = sorted(crop for crop in counts if not state.fields[seat][crop])
    if new:
        single_crop = len(counts) == 1 and len(move.crops) >= 2
        two_different = len(counts) == 2 and len(move.crops) == 2
        if not (single_crop or two_different):
            names = " + ".join(f"{counts[crop]} {crop.label}" for crop in sorted(counts))
            raise IllegalMove(
                f"cannot plant {names}: starting a field ({', '.join(c.label for c in new)}) "
                "takes 2+ cards of one crop or exactly 2 cards of different crops; "
                "a lone card never starts a field, and more cards go only into fields you have"
            )
    for crop in new:
        owner = state.field_owner(crop)
        if owner is not None and counts[crop] <= state.fields[owner][crop]:
            size = state.fields[owner][crop]
            raise IllegalMove(
                f"seat {owner}'s {crop.label} field holds {plural(size, 'card')}: "
                f"plant at least {size + 1} {crop.label} to take it over"
            )


def _check_speculate(state: NileState, seat: int, move: Speculate) -> None:
    if not isinstance(move.cards, tuple) or not all(isinstance(c, Card) for c in move.cards):
        raise MalformedMove("a speculation names its cards as Card values")
    if not 1 <= len(move.cards) <= 2:
        raise IllegalMove(f"speculate with 1 or 2 speculation cards, not {len(move.cards)}")
    for card in move.cards:
        if not card.is_speculation:
            raise IllegalMove(f"{card.name} is not a speculation card")
    _check_in_hand(state, seat, move.cards)
    for card in move.cards:
        flooded = [crop.label for crop in card.crops if crop in state.flooded]
        if flooded:
            raise IllegalMove(
                f"cannot speculate on {card.name}: {' and '.join(flooded)} is flooded this turn"
            )


# --- the table while a move runs --------------------------------------------------------------


class _Table:
    """A mutable copy of a state, alive only inside one ``apply``."""

    def __init__(self, state: NileState) -> None:
        self.state = state
        self.pass_number = state.pass_number
        self.turn = state.turn
        self.active = state.active
        self.deck = list(state.deck)
        self.flood_pile = list(state.flood_pile)
        self.flooded = state.flooded
        self.discard = list(state.discard)
        self.hands = [list(hand) for hand in state.hands]
        self.storehouses = [list(counts) for counts in state.storehouses]
        self.fields = [list(counts) for counts in state.fields]
        self.speculations = [list(cards) for cards in state.speculations]
        self.traded_hand = [list(cards) for cards in state.traded_hand]
        self.traded_storehouse = [list(cards) for cards in state.traded_storehouse]
        self.finished = state.finished
        self.exhausted = False
        self.events: list[str] = []
        self.plague_drawn_by: list[int] = []
        self.traded_this_turn = state.traded_this_turn
        self.harvested = [list(counts) for counts in state.harvested]

    def freeze(self) -> NileState:
        s = self.state
        return NileState(
            seed=s.seed,
            players=s.players,
            crops=s.crops,
            passes=s.passes,
            pass_number=self.pass_number,
            turn=self.turn,
            active=self.active,
            deck=tuple(self.deck),
            flood_pile=tuple(self.flood_pile),
            flooded=self.flooded,
            discard=multiset(self.discard),
            hands=tuple(multiset(hand) for hand in self.hands),
            storehouses=tuple(tuple(counts) for counts in self.storehouses),
            fields=tuple(tuple(counts) for counts in self.fields),
            speculations=tuple(multiset(cards) for cards in self.speculations),
            finished=self.finished,
            events=tuple(self.events),
            plague_drawn_by=tuple(self.plague_drawn_by),
            copies_per_crop=s.copies_per_crop,
            hide_hand_sizes=s.hide_hand_sizes,
            traded_hand=tuple(multiset(cards) for cards in self.traded_hand),
            traded_storehouse=tuple(multiset(cards) for cards in self.traded_storehouse),
            traded_this_turn=self.traded_this_turn and not self.finished,
            harvested=tuple(tuple(counts) for counts in self.harvested),
        )

    def note(self, event: str) -> None:
        self.events.append(event)

    # The deck. A card leaves the top, goes where it goes, and only then is an empty deck
    # refilled (or the match declared over), so a plague or flood card that was the last one of
    # a pass goes into the reshuffle, as on Board Game Arena. Once the deck has run out on its
    # last pass nothing more resolves (no payout, locusts or harvest): "Dès que la dernière pioche
    # est vide, la partie est terminée" (seed 004), read as the game ending at once.

    def _after_take(self) -> None:
        while not self.deck and not self.exhausted:
            if self.pass_number < self.state.passes:
                self.pass_number += 1
                self.deck = self.discard + self.flood_pile
                self.deck.sort()
                seeded_rng(self.state.seed, "reshuffle", self.pass_number).shuffle(self.deck)
                self.discard, self.flood_pile = [], []
                self.traded_hand = [[] for _ in self.hands]
                self.traded_storehouse = [[] for _ in self.hands]
                self.note(
                    f"the deck is empty: discard and flood pile reshuffled for pass "
                    f"{self.pass_number} of {self.state.passes} ({plural(len(self.deck), 'card')})"
                )
            else:
                self.exhausted = True
                self.note("the deck has run out on its last pass")

    def draw(self, seat: int, count: int) -> int:
        """Draw into the hand; a plague is discarded and replaced. Returns plagues to resolve."""
        plagues = drawn = 0
        while drawn < count and not self.exhausted:
            card = self.deck.pop(0)
            if card.is_plague:
                self.discard.append(card)
                plagues += 1
                self.plague_drawn_by.append(seat)
                self.note(f"seat {seat} draws the plague of locusts and draws a replacement")
            else:
                self.hands[seat].append(card)
                drawn += 1
            self._after_take()
        self.note(f"seat {seat} draws {plural(drawn, 'card')}")
        return plagues

    def flood(self) -> None:
        """Reveal flood cards until one is not the plague; resolve speculation, then harvest."""
        while not self.exhausted:
            card = self.deck.pop(0)
            if card.is_plague:
                self.discard.append(card)
                self.plague_drawn_by.append(FLOOD)
                self.note("the flood card is the plague of locusts")
                self._after_take()
                self.locusts(1)
                continue
            self.flood_pile.append(card)
            self.flooded = card.crops
            self.note(f"flood: {card.name}")
            self._after_take()
            if self.exhausted:
                return  # the last card: the game ends at once, nothing resolves
            self.locusts(self.resolve_speculation())
            self.harvest()
            return

    def resolve_speculation(self) -> int:
        """Pay 3 cards per winning speculation card, seats from the active one clockwise, then
        discard the losing cards. Returns plagues drawn during payouts.

        As on Board Game Arena (``aknile.game.php``, ``stFlood``): each seat's winning cards go
        to the discard just before that seat draws its payout, and the losing cards only after
        all payouts. So a reshuffle that a payout triggers takes the winning cards of the seats
        paid so far, and neither the losing cards nor the winning cards of seats still to be
        paid. The payout order is ours (BGA pays in player-list order); it matters only when
        the deck runs short.
        """
        flooded = set(self.flooded)
        players = self.state.players
        order = [(self.active + offset) % players for offset in range(players)]
        plagues = 0
        for seat in order:
            won = [card for card in self.speculations[seat] if flooded & set(card.crops)]
            if not won:
                continue
            for card in won:
                self.note(f"seat {seat}'s speculation on {card.name} wins")
                self.speculations[seat].remove(card)
            self.discard += won
            plagues += self.draw(seat, SPECULATION_PAYOUT * len(won))
        for seat in order:
            for card in self.speculations[seat]:
                self.note(f"seat {seat}'s speculation on {card.name} fails")
            self.discard += self.speculations[seat]
            self.speculations[seat] = []
        return plagues

    def harvest(self) -> None:
        if self.exhausted:
            return  # the game ended at once with the last card
        for crop in sorted(self.flooded):
            for seat in range(self.state.players):
                if self.fields[seat][crop]:
                    self.fields[seat][crop] -= 1
                    self.storehouses[seat][crop] += 1
                    if self.harvested:  # not kept in states stored before it was
                        self.harvested[seat][crop] += 1
                    self.note(f"seat {seat} harvests {crop.label}")

    def locusts(self, times: int) -> None:
        """Each plague destroys every field whose size is the largest on the table."""
        if self.exhausted:
            return  # the game ended at once with the last card
        for _ in range(times):
            largest = max((size for fields in self.fields for size in fields), default=0)
            if not largest:
                self.note("the locusts find no field")
                continue
            for seat, fields in enumerate(self.fields):
                for crop in self.state.crops:
                    if fields[crop] == largest:
                        self.discard += [Card.crop(crop)] * largest
                        fields[crop] = 0
                        self.note(
                            f"locusts destroy seat {seat}'s {crop.label} field "
                            f"({plural(largest, 'card')})"
                        )

    def discard_from(self, seat: int, hand: Iterable[Card], storehouse: Iterable[Crop]) -> None:
        """Trade discards: into the pile, and remembered as the trader's (see NileState)."""
        for card in hand:
            self.hands[seat].remove(card)
            self.discard.append(card)
            self.traded_hand[seat].append(card)
        for crop in storehouse:
            self.storehouses[seat][crop] -= 1
            self.discard.append(Card.crop(crop))
            self.traded_storehouse[seat].append(Card.crop(crop))

    def plant(self, seat: int, crops: tuple[Crop, ...]) -> None:
        for crop, count in sorted(Counter(crops).items()):
            for _ in range(count):
                self.hands[seat].remove(Card.crop(crop))
            for other in range(self.state.players):
                if other != seat and self.fields[other][crop]:
                    taken = self.fields[other][crop]
                    self.discard += [Card.crop(crop)] * taken
                    self.fields[other][crop] = 0
                    self.note(f"seat {seat} takes over seat {other}'s {crop.label} field")
            self.fields[seat][crop] += count

    def end_turn(self) -> None:
        """Draw 2, then the next seat's turn starts with its flood and harvest."""
        self.locusts(self.draw(self.active, DRAW_AT_END_OF_TURN))
        self.traded_this_turn = False
        if not self.exhausted:
            self.active = (self.active + 1) % self.state.players
            self.turn += 1
            self.note(f"turn {self.turn}: seat {self.active}")
            self.flood()
        self.finish_if_exhausted()

    def finish_if_exhausted(self) -> None:
        if self.exhausted and not self.finished:
            self.finished = True
            self.note("the match is over")


# --- the end --------------------------------------------------------------------------------------


def profile(state: NileState, seat: int) -> tuple[int, ...]:
    """The seat's storehouse piles, smallest first: compared in order, the larger one wins."""
    return tuple(sorted(state.storehouses[seat][crop] for crop in state.crops))


def outcome(state: NileState) -> Outcome | None:
    if not state.finished:
        return None
    profiles = [profile(state, seat) for seat in range(state.players)]
    ranks = tuple(sum(other > mine for other in profiles) for mine in profiles)
    winners = [seat for seat, rank in enumerate(ranks) if rank == 0]
    best = profiles[winners[0]]
    who = (
        f"seat {winners[0]} wins"
        if len(winners) == 1
        else ("seats " + " and ".join(str(s) for s in winners) + " share first place")
    )
    summary = f"{who} with a smallest storehouse pile of {best[0]} (piles {list(best)})"
    return Outcome(
        scores=tuple(p[0] for p in profiles),
        ranks=ranks,
        summary=summary,
        details={
            "storehouses": [
                {crop.label: state.storehouses[seat][crop] for crop in state.crops}
                for seat in range(state.players)
            ],
            "profiles": [list(p) for p in profiles],
        },
    )
