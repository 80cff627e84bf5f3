"""SobekGame: the plugin class the framework loads; it wires the modules to the contract."""

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

from serai_sobek import heuristics, house_rules, protocol, rules, sobek_pb2, views
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
        return protocol.move_to_proto(move)

    def move_from_proto(self, message: Message) -> Move:
        return protocol.move_from_proto(message)

    def view_to_proto(self, view: SobekView) -> Message:
        return protocol.view_to_proto(view)

    def view_from_proto(self, message: Message) -> SobekView:
        return protocol.view_from_proto(message, self.resolve_options)

    @property
    def move_message(self) -> type[Message]:
        return sobek_pb2.Move

    @property
    def view_message(self) -> type[Message]:
        return sobek_pb2.View
