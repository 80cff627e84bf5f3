"""Nile (Minion Games, 2009) as a serai game plugin: 2-5 players, DeLuxor crops as an option.

Rules: ``/work/shared/rules/nile.md`` (Board Game Arena's help page, checked against the BGA
implementation). Modules, one job each: :mod:`.cards` (crops, faces, the deck), :mod:`.state`,
:mod:`.moves` (move types and labels), :mod:`.rules` (setup, legal moves, apply, scoring),
:mod:`.views` (what a seat knows, determinize), :mod:`.codec` (stored bytes, protobuf).

A turn is a sequence of moves by the active seat: any number of trades, then a plant, a
speculation or a pass, which ends the turn. Everything without a decision runs inside ``apply``:
the draw of 2, then the next seat's flood (speculation payouts, locusts) and every seat's harvest.
So ``to_act`` is always the active seat, and ``setup`` already holds seat 0's first flood.

Readings chosen where the rules leave room (each has a test in ``tests/nile``):

- **A trade's cards are the trader's secret** (as on Board Game Arena, where the others see only
  "X used the market" or "X made an offering"; a storehouse is hidden: "Le contenu de votre stock
  n'est pas visible des autres joueurs", seed 004). The move names storehouse cards by crop, but
  its public label says only how many cards left the hand and the storehouse ("market: discard 1
  card from hand + 1 from storehouse"): that split is serai's reading of the physical table,
  where everyone sees which pile a card leaves; Board Game Arena does not announce it. Views show
  the discard pile's size and the cards everyone saw go there; each seat's trade discards are
  counted, and named to that seat only (see :mod:`.views`).
- **Hand sizes hidden by default** (option ``hand_sizes``), as on Board Game Arena, whose option
  100 "Show count of cards in hand" is off by default: we follow the implementation players
  know, and the count is a display, not a secret (every draw is announced, there as here), so
  "public" (as at the table) stays one option away. See :mod:`.views`.
- **A trade never ends the trade phase**, and there is no separate "end trading" move: plant,
  speculate and pass are offered alongside trades and end the turn.
- **Plant forms** (BGA's check): every card goes into a field you already have (form c, any
  number, even one); otherwise either 2+ cards of a single crop (form a) or exactly two cards of
  different crops (form b, each starting or joining a field). A lone card never starts a field,
  forms are not combined. Starting a field of a crop an opponent grows takes strictly more cards
  than their field holds; their field is discarded.
- **Reshuffle as on BGA**: the moment a card leaves the deck and the deck is empty with passes
  left, the discard pile and the whole flood pile (including the card just revealed) become the
  new deck, shuffled by ``seeded_rng(seed, "reshuffle", pass)``. The crops flooded this turn
  still forbid planting; the state keeps them apart from the pile.
- **The end, at once** (our reading of the written rule, "Dès que la dernière pioche est vide, la
  partie est terminée", seed 004; not Board Game Arena's, which still harvests unless a
  speculation won): the match ends the moment the deck runs out on its last pass, and nothing
  resolves after that card. A draw that wanted more cards gets what was left. A last card turned
  as the flood card floods nothing: no payout, locusts or harvest. A payout that takes the last
  card ends the payouts there, and no locusts or harvest follow. A plague that is the last card
  is discarded and destroys nothing.
- **Speculation payouts, as on Board Game Arena** (``aknile.game.php``, ``stFlood``): seat by
  seat from the active seat clockwise, a seat's winning cards are discarded and it draws 3 cards
  per winning card; the losing cards are discarded after all payouts. So a reshuffle that a
  payout triggers takes the winning cards of the seats paid so far, never a losing card. The
  order is ours (Board Game Arena pays in player-list order; the two differ only when the deck
  runs short). A plague among the payouts is resolved after all payouts, before the harvest.
- **A plague as the flood card** is discarded and resolved, then the next card is revealed: that
  card's crops are flooded and it resolves the speculation cards.
- **The plague never sits in a hand**, so where it is (deck or discard) is public.
- **Scoring**: piles sorted smallest first, compared pile by pile; identical profiles share a
  rank. ``Outcome.scores`` is the smallest pile.

DeLuxor (option ``deluxor``): 5 crops with 2-4 players, 6 with 5 (grapes added) and 7 with 6
(grapes and onions), with a speculation card for every pair of crops in play, and 14 cards of
each crop at every player count. The source for the 14 is one published component list (141
cards: 98 crop cards, 7 x 14; 21 speculation; 14 stone; 3 monument; 3 season; 1 plague; 1 flood);
the DeLuxor rulebook itself was not available. Monuments, stones and seasons are not
implemented. With ``deluxor`` off the game is exactly base Nile (16 per crop).
``GameInfo.max_players`` is static and stays 5, the base game's count that ListGames shows.
:meth:`NileGame.check_players`, which sees no options, accepts 2 to 6 (the service calls it before
``setup``); ``setup``, which sees them, refuses 6 seats unless ``deluxor`` is on, saying so.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from google.protobuf.message import Message
from serai.game import (
    Game,
    GameInfo,
    InvalidOptions,
    OptionSpec,
    OptionValue,
    Outcome,
    Presentation,
    Provides,
    Seat,
    Strategy,
)

from . import codec, heuristics, nile_pb2, rules, views
from .cards import DELUXOR_COPIES_PER_CROP, Card, Crop, base_crops, deluxor_crops
from .moves import Market, NileMove, Offering, Pass, Plant, Speculate, label
from .present import GUIDE, move_steps, present_view
from .state import NileState
from .views import NileView

__all__ = [
    "Card",
    "Crop",
    "Market",
    "NileGame",
    "NileMove",
    "NileState",
    "NileView",
    "Offering",
    "Pass",
    "Plant",
    "Speculate",
]

DELUXOR_MAX_PLAYERS = 6

MAX_MOVE_BYTES = 256
"""The largest canonical move, a plant of all seven DeLuxor crops, is 44 bytes, a trade or a
speculation of two cards 18; 256 leaves room for a plant sent as one entry per card (6 bytes
each) of a 42-card hand."""

LEGAL_MOVES_IN_STEPS = 256
"""The training environments' action space (serai_client.envs). The rules bound no number of
legal moves: there is no hand limit, and planting into fields you have is every sub-multiset of
your hand over your crops (up to 16^5 - 1 plants), so a position listing more than 256 is chosen
in steps. Random and heuristic play rarely pass 256 (tests/envs)."""


class NileGame(Game[NileState, NileMove, NileView]):
    info = GameInfo(
        name="nile",
        title="Nile",
        min_players=2,
        max_players=5,
        version="1.5.0",
        summary=(
            "Farmers on the banks of the Nile plant papyrus, wheat, lettuce, castor and flax. "
            "Each turn a flood card decides which crops every player harvests into a hidden "
            "storehouse; then you trade cards away to draw or flood again, plant fields (an "
            "opponent's field is taken by planting more of its crop), or speculate on the next "
            "flood. Locusts destroy the largest fields. When the deck has been gone through once "
            "per player, your score is your smallest storehouse pile over the five crops."
        ),
        options=(
            OptionSpec(
                "deluxor",
                "Nile DeLuxor deck: 14 cards of each crop at every player count; grapes join "
                "with 5 players, grapes and onions with 6 (up to 6 players); no monuments, "
                "stones or seasons",
                False,
            ),
            OptionSpec(
                "hand_sizes",
                "whether the others are shown how many cards each seat holds in hand: 'hidden' "
                "(the default, as on Board Game Arena, where showing them is an option) or "
                "'public' (as at the table). Not a secret: every draw is announced, so players "
                "who follow the match can count",
                "hidden",
                choices=("hidden", "public"),
            ),
        ),
        max_move_bytes=MAX_MOVE_BYTES,
        legal_moves_in_steps=LEGAL_MOVES_IN_STEPS,
        guide=GUIDE,
        provides=Provides(determinize=True, evaluation=True, present=True, strategies=("simple",)),
    )

    # --- the rules -------------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> NileState:
        resolved = self.resolve_options(options)
        hide = resolved["hand_sizes"] == "hidden"
        if resolved["deluxor"]:
            if not 2 <= players <= DELUXOR_MAX_PLAYERS:
                raise InvalidOptions(f"Nile DeLuxor is played by 2 to 6 players, not {players}")
            return rules.setup(
                players, seed, deluxor_crops(players), DELUXOR_COPIES_PER_CROP, hide_hand_sizes=hide
            )
        else:
            self.check_players(players)
            if players > self.info.max_players:
                raise InvalidOptions(
                    f"Nile is played by 2 to 5 players, not {players}; 6 with deluxor=true"
                )
            return rules.setup(players, seed, base_crops(), hide_hand_sizes=hide)

    def check_players(self, players: int) -> None:
        """2 to 6: the count alone cannot tell, since 6 seats are legal with DeLuxor only.
        ``setup`` sees the options and refuses a sixth seat without them."""
        if not self.info.min_players <= players <= DELUXOR_MAX_PLAYERS:
            raise InvalidOptions(
                f"Nile is played by 2 to 5 players (6 with deluxor=true), not {players}"
            )

    def to_act(self, state: NileState) -> tuple[Seat, ...]:
        return () if state.finished else (state.active,)

    def legal_moves(self, state: NileState, seat: Seat) -> Sequence[NileMove]:
        return rules.legal_moves(state, seat)

    def apply(self, state: NileState, seat: Seat, move: NileMove) -> NileState:
        return rules.apply(state, seat, move)

    def view(self, state: NileState, seat: Seat | None) -> NileView:
        return views.make_view(state, seat)

    def outcome(self, state: NileState) -> Outcome | None:
        return rules.outcome(state)

    def players(self, state: NileState) -> int:
        return state.players

    def announcements(self, before: NileState, after: NileState) -> Sequence[str]:
        """The public news of the step from ``before`` to ``after``: floods, harvests, locusts,
        payouts, reshuffles, the end. Recorded by ``apply`` in the new state."""
        return after.events

    def determinize(self, view: NileView, rng: random.Random) -> NileState:
        return views.determinize(view, rng)

    def evaluation(self) -> heuristics.NileEvaluation:
        return heuristics.NileEvaluation(self)

    def strategy(self, name: str, rng: random.Random) -> Strategy[NileView, NileMove]:
        if name != "simple":
            return super().strategy(name, rng)
        return heuristics.SimpleStrategy(rng)

    # --- words and bytes -------------------------------------------------------------------------

    def label(self, move: NileMove) -> str:
        return label(move)

    def present(self, view: Message) -> Presentation:
        assert isinstance(view, nile_pb2.View)
        return present_view(view)

    def move_steps(self, move: NileMove) -> tuple[str, ...]:
        return move_steps(move)

    def encode_state(self, state: NileState) -> bytes:
        return codec.encode_state(state)

    def decode_state(self, data: bytes) -> NileState:
        return codec.decode_state(data)

    def move_to_proto(self, move: NileMove) -> Message:
        return codec.move_to_proto(move)

    def move_from_proto(self, message: Message) -> NileMove:
        return codec.move_from_proto(message)

    def view_to_proto(self, view: NileView) -> Message:
        return codec.view_to_proto(view)

    def view_from_proto(self, message: Message) -> NileView:
        return codec.view_from_proto(message)

    @property
    def move_message(self) -> type[Message]:
        return nile_pb2.Move

    @property
    def view_message(self) -> type[Message]:
        return nile_pb2.View
