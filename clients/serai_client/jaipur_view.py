"""A Jaipur view from the wire back into the plugin's :class:`~serai_jaipur.JaipurView`.

Why this exists: a search bot calls the plugin's ``determinize(view, rng)``, which takes the
plugin's own view value, while the server sends the view as a ``serai.games.jaipur.v1.View``.
The plugin offers ``view_to_proto`` only, so this is its inverse, written against the proto and
the plugin's dataclasses. It reads only the message a seat received: nothing hidden can get in.

Example::

    view = view_from_proto(snapshot.view)          # snapshot from SeraiClient.get_match(seat)
    state = JaipurGame().determinize(view, random.Random(1))
"""

from __future__ import annotations

from serai_jaipur import jaipur_pb2 as jpb
from serai_jaipur.cards import GOODS, NUM_GOODS, Good
from serai_jaipur.state import RoundResult
from serai_jaipur.views import JaipurView, PlayerView


def good_from_wire(value: int) -> Good:
    """The plugin's card type of a wire ``Good`` (the wire shifts by one for UNSPECIFIED)."""
    return Good(value - 1)


def _counts(cards: jpb.Cards, types: int) -> tuple[int, ...]:
    return tuple(getattr(cards, good.name.lower()) for good in list(Good)[:types])


def _bonus(counts: jpb.BonusCounts) -> tuple[int, ...]:
    return (counts.three, counts.four, counts.five)


def _player(entry: jpb.Player) -> PlayerView:
    own = entry.HasField("hand")
    return PlayerView(
        hand_size=entry.hand_size,
        herd=entry.herd,
        goods_tokens=tuple((int(good_from_wire(t.good)), t.value) for t in entry.goods_tokens),
        bonus_counts=_bonus(entry.bonus_counts),
        seals=entry.seals,
        hand=_counts(entry.hand, NUM_GOODS) if own else None,
        bonus_tokens=tuple((t.cards, t.value) for t in entry.bonus_tokens) if own else None,
    )


def _result(item: jpb.RoundResult) -> RoundResult:
    scores = sorted(item.scores, key=lambda score: score.seat)
    camel_token = next((s.seat for s in scores if s.camel_token), None)
    return RoundResult(
        round=item.round,
        deal=item.deal,
        starter=item.starter,
        ended_by=item.ended_by,
        goods_tokens=tuple(tuple(s.goods_tokens) for s in scores),
        bonus_tokens=tuple(tuple(s.bonus_tokens) for s in scores),
        camels=tuple(s.camels for s in scores),
        camel_token=camel_token,
        rupees=tuple(s.rupees for s in scores),
        winner=item.winner if item.HasField("winner") else None,
    )


def view_from_proto(message: jpb.View) -> JaipurView:
    """The plugin view a ``View`` message describes (the inverse of ``view_to_proto``)."""
    stacks = [0] * NUM_GOODS
    for stack in message.goods_stacks:
        stacks[good_from_wire(stack.good)] = len(stack.values)
    players = tuple(_player(entry) for entry in sorted(message.players, key=lambda p: p.seat))
    return JaipurView(
        viewer=message.viewer if message.HasField("viewer") else None,
        round=message.round,
        deal=message.deal,
        starter=message.starter,
        turn=message.to_act if message.HasField("to_act") else None,
        market=_counts(message.market, len(Good)),
        deck_size=message.deck_size,
        discards=_counts(message.discards, NUM_GOODS),
        stacks=tuple(stacks[good] for good in GOODS),
        bonus_left=_bonus(message.bonus_left),
        players=players,
        results=tuple(_result(item) for item in message.results),
    )
