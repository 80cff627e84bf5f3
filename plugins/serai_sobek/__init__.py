"""Sobek (Bruno Cathala, GameWorks 2010; Asmodee distribution): 2-4 players, three rounds.

Rules sources, and how sure each part is
========================================
Read: the seed ``shared/seeds/001_ec706646a8115532.txt`` (Board Game Arena help, French, 2015),
``shared/rules/sobek.md``, and through the ``search`` tool the openings of: the English rulebook
as OCR'd on scribd.com ("Sobek Game", 7 pages), ultraboardgames.com/sobek/game-rules.php and
yucata.de/en/Rules/Sobek (both the English rulebook text), the English BGA help
(gl.doc.boardgamearena.com Gamehelpsobek), reviews (gamersalliance.com, gameguythinks.com,
raccoon.com.br, reich-der-spiele.de, cuk.ch) and the designer's page (brunocathala.com/sobek).
The search tool only returns the first part of a page, and every copy stops before the rulebook's
last page, where character powers and event tokens are explained; no open-source implementation
is indexed (GitHub search for "sobek" finds only unrelated projects). So:

FROM SOURCES (implemented as stated)
- Turn: exactly one of take a card / play a character / play a set (seed). Take one of the first
  four market cards; the cards skipped, face-down characters included, go to your corruption pile
  (seed). Taking the last card refills the row with 9 from the deck; if the deck is empty the round
  ends (seed).
- Components (rulebook OCR, reviews): 54 goods cards = 6 ivory, 7 ebony, 7 marble, 9 cattle,
  10 fish, 5 amulets, and wheat (10: what the stated total of 54 leaves); 9 character cards, each
  also belonging to a goods family; 12 event tokens, 5 drawn face down each round; 9 goods cards
  have a green back and form the starting hands (2 each per round, the rest unused that round).
  Event tokens come in 9 kinds, 6 single and 3 that come twice (a review describing them).
  Goods cards come with a trade value (1 to 3 scarabs, rarer goods more; ivory 3) or without.
- Market: 9 cards, goods face up, characters face down (reviews). 45 market goods + 9 characters
  = 54 = six rows of nine per round. With two players a round has 5 deliveries of 9 (a review of
  the published game): 9 market cards sit out each round. Which 9 is not sourced: the last 9 of
  the shuffled market deck, so 9 at random, face down (``set_aside``), seen by nobody.
- Character: reveal it, discard it, apply its power; or use it in a set as its goods type,
  ignoring the power (seed).
- Sets: 3+ cards of one type; amulets are wild; characters count as their type; an existing set
  may be extended, but only with 3+ cards (seed). Score: scarabs x cards (seed examples).
- Event tokens: after laying a set or adding to one, look at all the tokens left and pick one
  (mandatory while any are left, raccoon review); a bonus helps you, a malus hits a player you
  name; a token may be picked just to waste it (seed).
- Round end: final sets may be laid horizontally and score only their scarabs; cards left in hand
  go to corruption (seed). The most corrupt player (most cards; tie: most scarabs on them; full
  tie: all of them) moves back one same guild symbol per 10 points scored this round (seed). The
  track's numbered squares are the multiples of 5 with four symbols between (review), and the
  seed's example (71 points on square 85 -> square 50) gives 5 squares per symbol: option
  ``squares_per_symbol``.
- Three rounds; the most advanced player wins; 100+ after round two (after corruption) wins at
  once (seed). After scoring, the player furthest behind names who begins the next round
  (``ChooseStarter``; any seat, themselves included); a tie for furthest behind is drawn by lot.
  Yucata: "If after the scoring of a round several players have the least total number of
  points, one of them will be selected at random for choosing the starting player of the next
  round." (Before 1.1.0 the player furthest behind simply began.)

GUESSES (marked in the code, and where players see them: :mod:`serai_sobek.house_rules` feeds
the rules summary and a "House rules" zone of every presentation, and tags guessed cards and
tokens "house rule"; change them when the rulebook's last page is found)
- Character powers and names beyond Scribe, Thief, Vizier, Queen, High Priest: see
  :mod:`serai_sobek.powers` for the table. Which goods family each character has: ``cards``.
- Event token effects, and which 3 of the 9 kinds come twice: see :mod:`serai_sobek.events`;
  the points the POINTS and FINE tokens move are option ``event_points`` (default 4).
  ``GameInfo.summary`` tells players that powers and event effects are house rules.
- Which cards carry scarabs and how many (ivory 3, ebony and marble 2, the rest 1; about 60% of
  each type); which 9 have the green back (scarab-less ones); amulets and characters carry none.
- A new set must contain a real goods card (option ``new_set_needs_goods``); goods of a type you
  already laid always extend that set (that extending takes an event token is sourced; option
  ``extension_takes_event`` turns it off as a house variant); final horizontal sets never take
  tokens and never extend.
- Final sets are laid seat by seat in turn order from the player after the one who emptied the
  market. Event points count as round points (and so for the corruption penalty). Nobody is
  corrupt when no one has a corruption card. The track never goes below 0. Ties at the end share
  the win. The first round is started by seat 0.
- Views: each seat sees its own corruption pile; whether everyone sees the pile sizes is option
  ``corruption_counts``: hidden by default, as the original rules have it (Yucata's note: the
  cards lie under the player's corruption tile); "public" is the variant. Goods skipped face up
  into a corruption pile are not shown to the others afterwards (they saw them go; a client may keep
  its own memory). "hidden" is a matter of display, not a secret, as at the table: every card
  that enters a pile is seen to go (the move's label says how many), and every other count is
  shown, so a seat that follows the match can work the sizes out (exactly, with two players).

``determinize`` is offered: it deals what a view hides at random (with hidden corruption counts,
the other piles share what is left at random).

Moves name cards by face (:class:`~serai_sobek.cards.Face`), so identical cards give one move.
Example::

    game = SobekGame()
    state = game.setup(3, seed=1, options={})
    seat = game.to_act(state)[0]
    state = game.apply(state, seat, game.legal_moves(state, seat)[0])  # take the first card
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from google.protobuf.message import Message
from serai.game import (
    Game,
    GameInfo,
    OptionSpec,
    OptionValue,
    Outcome,
    Presentation,
    Provides,
    Seat,
    Strategy,
)

from serai_sobek import codec, heuristics, house_rules, rules, sobek_pb2, views
from serai_sobek.events import DESCRIPTIONS, POINTS_VALUE
from serai_sobek.moves import Move, label
from serai_sobek.present import GUIDE, move_steps, present_view
from serai_sobek.state import ROUNDS, Phase, SobekState, decode, encode
from serai_sobek.views import SobekView

OPTIONS = (
    OptionSpec(
        "new_set_needs_goods",
        "a new set must hold at least one card that is not an amulet (guess; the rules only say "
        "amulets are wild). Extending a set never needs one.",
        True,
    ),
    OptionSpec(
        "extension_takes_event",
        "extending a set with 3+ cards also takes an event token, mandatory while any remain, as "
        "laying a new set does (sources: picking is mandatory when laying a set or adding to "
        "one); false is a house variant",
        True,
    ),
    OptionSpec(
        "corruption_counts",
        "whether only its owner is shown how many cards a corruption pile holds ('hidden', the "
        "default: the original rules hide the count under the corruption tile, as Yucata's "
        "note says) or everyone is ('public', a variant). Not a secret: each card is seen to "
        "go there, so it is left to the players' memory",
        "hidden",
        choices=("public", "hidden"),
    ),
    OptionSpec(
        "event_points",
        "points the POINTS event token gives and the FINE token takes (guess)",
        POINTS_VALUE,
        bounds=(0, 20),
    ),
    OptionSpec(
        "squares_per_symbol",
        "squares between two equal guild symbols on the track: the most corrupt player moves "
        "back this many per 10 points scored in the round (seed example: 71 points, 85 -> 50)",
        5,
        bounds=(0, 20),
    ),
)


MAX_MOVE_BYTES = 1024
"""A card is at most 10 bytes (a character's four fields), and a move names at most the 63 cards
of the game: 635 bytes for the largest set imaginable, and 1 KiB leaves a margin."""

LEGAL_MOVES_IN_STEPS = 256
"""The training environments' action space (serai_client.envs). The rules bound no number of
legal moves: there is no hand limit, and a set is any sub-multiset of the hand that fits one
goods type (amulets wild), so a position listing more than 256 is chosen in steps."""


class SobekGame(Game[SobekState, Move, SobekView]):
    info = GameInfo(
        name="sobek",
        title="Sobek",
        min_players=2,
        max_players=4,
        version="1.3.0",
        summary=(
            "Merchants of the temple of Sobek buy goods from a market row over three rounds: take "
            "one of the first four cards (the ones skipped become your corruption), play a "
            "character for its power, or lay a set of three or more goods of one kind (amulets "
            "are wild) and pick an event token. A set scores its scarabs times its cards; the "
            "most corrupt player loses ground on the guild track at each round's end, and 100 "
            "points after the second round wins at once. " + house_rules.summary()
        ),
        options=OPTIONS,
        max_move_bytes=MAX_MOVE_BYTES,
        legal_moves_in_steps=LEGAL_MOVES_IN_STEPS,
        guide=GUIDE,
        provides=Provides(determinize=True, evaluation=True, present=True, strategies=("simple",)),
    )

    # --- the rules -------------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> SobekState:
        self.check_players(players)
        return rules.setup(players, seed, self.resolve_options(options))

    def to_act(self, state: SobekState) -> tuple[Seat, ...]:
        return rules.to_act(state)

    def legal_moves(self, state: SobekState, seat: Seat) -> Sequence[Move]:
        return rules.legal_moves(state, seat)

    def apply(self, state: SobekState, seat: Seat, move: Move) -> SobekState:
        return rules.apply(state, seat, move)

    def view(self, state: SobekState, seat: Seat | None) -> SobekView:
        return views.view(state, seat, rules.to_act(state))

    def determinize(self, view: SobekView, rng: random.Random) -> SobekState:
        return views.determinize(view, rng)

    def evaluation(self) -> heuristics.SobekEvaluation:
        return heuristics.SobekEvaluation(self)

    def strategy(self, name: str, rng: random.Random) -> Strategy[SobekView, Move]:
        if name != "simple":
            return super().strategy(name, rng)
        return heuristics.SimpleStrategy(rng)

    def players(self, state: SobekState) -> int:
        return state.players

    def outcome(self, state: SobekState) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        scores = tuple(s.score for s in state.seats)
        ranks = tuple(sum(other > mine for other in scores) for mine in scores)
        winners = [seat for seat, rank in enumerate(ranks) if rank == 0]
        early = state.round < ROUNDS
        how = f" (100+ after round {state.round})" if early else ""
        summary = (
            f"seat {winners[0]} wins with {max(scores)}{how}"
            if len(winners) == 1
            else f"seats {', '.join(map(str, winners))} share the win with {max(scores)}"
        )
        details = {
            "rounds": [
                {
                    "round": r.round,
                    "points": list(r.points),
                    "corrupt": list(r.corrupt),
                    "penalties": list(r.penalties),
                    "scores": list(r.scores),
                }
                for r in state.results
            ]
        }
        return Outcome(scores=scores, ranks=ranks, summary=summary, details=details)

    def announcements(self, before: SobekState, after: SobekState) -> Sequence[str]:
        news: list[str] = []
        if after.round == before.round and len(after.used_tokens) > len(before.used_tokens):
            event = after.used_tokens[-1]
            news.append(f"event token revealed: {DESCRIPTIONS[event]}")
        if after.round == before.round and len(after.deck) < len(before.deck):
            news.append(f"the market is refilled with {len(before.deck) - len(after.deck)} cards")
        if before.phase is Phase.PLAY and after.phase is Phase.FINAL:
            news.append("the market has run out: each player may lay final sets horizontally")
        for result in after.results[len(before.results) :]:
            scored = ", ".join(f"seat {i}: {p}" for i, p in enumerate(result.points))
            line = f"round {result.round} scores {scored}"
            if result.corrupt:
                backs = ", ".join(f"seat {i} back {result.penalties[i]}" for i in result.corrupt)
                line += f"; most corrupt: {backs}"
            news.append(line)
        if after.phase is Phase.OVER and before.phase is not Phase.OVER:
            outcome = self.outcome(after)
            assert outcome is not None
            news.append(outcome.summary)
        elif after.round > before.round:
            news.append(f"round {after.round} begins; seat {after.starter} starts")
        return news

    # --- words and bytes -------------------------------------------------------------------------

    def label(self, move: Move) -> str:
        return label(move)

    def present(self, view: Message) -> Presentation:
        assert isinstance(view, sobek_pb2.View)
        return present_view(view)

    def move_steps(self, move: Move) -> tuple[str, ...]:
        return move_steps(move)

    def encode_state(self, state: SobekState) -> bytes:
        return encode(state)

    def decode_state(self, data: bytes) -> SobekState:
        return decode(data)

    def move_to_proto(self, move: Move) -> Message:
        return codec.move_to_proto(move)

    def move_from_proto(self, message: Message) -> Move:
        return codec.move_from_proto(message)

    def view_to_proto(self, view: SobekView) -> Message:
        return codec.view_to_proto(view)

    def view_from_proto(self, message: Message) -> SobekView:
        return codec.view_from_proto(message, self.resolve_options)

    @property
    def move_message(self) -> type[Message]:
        return sobek_pb2.Move

    @property
    def view_message(self) -> type[Message]:
        return sobek_pb2.View
