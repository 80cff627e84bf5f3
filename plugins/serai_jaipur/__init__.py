"""Jaipur (Sébastien Pauchon, GameWorks 2009) for two players: the rules-exact plugin.

The rules are those of ``shared/rules/jaipur.md``. The modules each do one job: ``cards``
(components), ``state`` (immutable state), ``moves`` (moves, labels), ``rules`` (setup, legal
moves, apply, the end of a round), ``views`` (what a seat may know; determinize) and ``codec``
(state bytes, protobuf). :class:`JaipurGame` glues them to the :class:`serai.game.Game` contract.

Choices where the rulebook is silent, made here on purpose:

- **A complete tie** (equal rupees, equal bonus tokens, equal goods tokens) gives no seal: the
  round is played again (a new deal, same round number), started by the seat that did not start
  the tied deal. The tied round is kept in the results, with no winner.
  So a match has at most three *scored* rounds (first to two seals); replays of ties are extra
  deals, counted in ``State.deal``, not in ``State.round``.
- **A player may look at their own bonus tokens**: a seat's view holds the values of its own
  bonus tokens; the opponent's stay hidden (only how many, per stack) until the round is scored.
- **Taking camels names the count** (``TakeCamels(3)``): the move log says what was taken, and a
  request for fewer than all the camels in the market is refused by name.
- **Randomness**: deal ``n`` (replays counted) is shuffled by ``seeded_rng(seed, "deal", n)``;
  the first player of round 1 is drawn by ``seeded_rng(seed, "first player")``; later the loser
  of the previous round starts.

Example::

    >>> game = JaipurGame()
    >>> state = game.setup(2, seed=7, options={})
    >>> seat = game.to_act(state)[0]
    >>> game.label(game.legal_moves(state, seat)[0]).startswith("take")
    True
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence

from google.protobuf.message import Message
from serai.game import (
    Game,
    GameInfo,
    InvalidOptions,
    OptionValue,
    Outcome,
    Presentation,
    Provides,
    Seat,
    Strategy,
)

from . import codec, heuristics, rules, tensor, views
from . import jaipur_pb2 as pb
from .cards import Good
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood, label
from .present import GUIDE, move_steps, present_view
from .state import RoundResult, State
from .views import JaipurView, PlayerView, determinize, view

__all__ = [
    "Exchange",
    "Good",
    "JaipurGame",
    "JaipurView",
    "Move",
    "PlayerView",
    "RoundResult",
    "Sell",
    "State",
    "TakeCamels",
    "TakeGood",
]


MAX_MOVE_BYTES = 64
"""The largest move, an exchange of five cards each way, is 16 bytes (22 with its repeated
fields unpacked): a fourfold margin over the canonical form."""

MAX_LEGAL_MOVES = 167
"""Exact: the most legal moves of any (market, hand, camels that may be given) there is, found by
listing the moves of all 462 markets x 1,716 hands x 8 camel counts (:mod:`.legal`)."""


class JaipurGame(Game[State, Move, JaipurView]):
    """The Jaipur plugin: two merchants, goods and camels, first to two Seals of Excellence."""

    info = GameInfo(
        name="jaipur",
        title="Jaipur",
        min_players=2,
        max_players=2,
        version="1.0.0",
        summary=(
            "Two merchants compete to become the Maharaja's trader. Each turn take cards from a "
            "market of five (one good, all the camels, or an exchange of two or more) or sell "
            "cards of one good for tokens that lose value as the stack goes down; big sales earn "
            "bonus tokens. The richer merchant of a round wins a Seal of Excellence; the first to "
            "two seals wins the match."
        ),
        max_move_bytes=MAX_MOVE_BYTES,
        max_legal_moves=MAX_LEGAL_MOVES,
        guide=GUIDE,
        provides=Provides(
            determinize=True,
            evaluation=True,
            view_tensor=True,
            present=True,
            strategies=("greedy",),
            observation=True,
            redeal=True,
        ),
    )

    # --- the rules -------------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> State:
        self.check_players(players)
        if options:
            raise InvalidOptions(f"Jaipur takes no options, got: {', '.join(sorted(options))}")
        return rules.new_match(seed)

    def to_act(self, state: State) -> tuple[Seat, ...]:
        return () if state.turn is None else (state.turn,)

    # The rules' own functions, called without a method frame in between (the inner loop).
    legal_moves = staticmethod(rules.legal_moves)
    apply = staticmethod(rules.apply)

    def view(self, state: State, seat: Seat | None) -> JaipurView:
        return view(state, seat)

    def observation(self, state: State, seat: Seat | None) -> Hashable:
        return views.observation(state, seat)

    def redeal(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        return views.redeal(state, seat, rng)

    def players(self, state: State) -> int:
        return rules.PLAYERS

    def outcome(self, state: State) -> Outcome | None:
        winner = rules.winner(state)
        if winner is None:
            return None
        loser = 1 - winner
        seals = state.seals
        return Outcome(
            scores=tuple(seals),
            ranks=tuple(0 if seat == winner else 1 for seat in range(rules.PLAYERS)),
            summary=f"seat {winner} wins {seals[winner]} seals to {seals[loser]}",
            details={"seals": list(seals), "rounds": [_result_details(r) for r in state.results]},
        )

    def announcements(self, before: State, after: State) -> Sequence[str]:
        news = [_round_news(result) for result in after.results[len(before.results) :]]
        if after.turn is None and before.turn is not None:
            winner = rules.winner(after)
            assert winner is not None
            news.append(
                f"seat {winner} wins the match, {after.seals[winner]} seals to "
                f"{after.seals[1 - winner]}"
            )
        return tuple(news)

    def determinize(self, view: JaipurView, rng: random.Random) -> State:
        return determinize(view, rng)

    def evaluation(self) -> heuristics.JaipurEvaluation:
        return heuristics.JaipurEvaluation(self)

    def strategy(self, name: str, rng: random.Random) -> Strategy[JaipurView, Move]:
        if name != "greedy":
            return super().strategy(name, rng)
        return heuristics.GreedyStrategy(rng)

    def view_tensor(self, view: JaipurView) -> tuple[float, ...]:
        return tensor.view_tensor(view)

    # --- words and bytes -------------------------------------------------------------------------

    def label(self, move: Move) -> str:
        return label(move)

    def present(self, view: Message) -> Presentation:
        assert isinstance(view, pb.View)
        return present_view(view)

    def move_steps(self, move: Move) -> tuple[str, ...]:
        return move_steps(move)

    def encode_state(self, state: State) -> bytes:
        return codec.encode_state(state)

    def decode_state(self, data: bytes) -> State:
        return codec.decode_state(data)

    def move_to_proto(self, move: Move) -> Message:
        return codec.move_to_proto(move)

    def move_from_proto(self, message: Message) -> Move:
        return codec.move_from_proto(message)

    def view_to_proto(self, view: JaipurView) -> Message:
        return codec.view_to_proto(view)

    def view_from_proto(self, message: Message) -> JaipurView:
        return codec.view_from_proto(message)

    def view_bytes(self, view: JaipurView) -> bytes:
        return codec.view_bytes(view)  # the same bytes, without a message parsed and written

    @property
    def move_message(self) -> type[Message]:
        return pb.Move

    @property
    def view_message(self) -> type[Message]:
        return pb.View


def _result_details(result: RoundResult) -> dict[str, object]:
    return {
        "round": result.round,
        "deal": result.deal,
        "starter": result.starter,
        "ended_by": result.ended_by,
        "rupees": list(result.rupees),
        "goods_tokens": [list(values) for values in result.goods_tokens],
        "bonus_tokens": [list(values) for values in result.bonus_tokens],
        "camels": list(result.camels),
        "camel_token": result.camel_token,
        "winner": result.winner,
    }


def _round_news(result: RoundResult) -> str:
    ended = (
        "three goods stacks are empty"
        if result.ended_by == "stacks"
        else "the deck cannot refill the market"
    )
    rupees = result.rupees
    if result.winner is None:
        return (
            f"round {result.round} ends ({ended}): a complete tie at {rupees[0]} rupees; "
            "no seal, the round is played again"
        )
    winner = result.winner
    return (
        f"round {result.round} ends ({ended}): seat {winner} wins a seal, "
        f"{rupees[winner]} rupees to {rupees[1 - winner]}"
    )
