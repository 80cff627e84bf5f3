"""A Sobek view from the wire back into the plugin's :class:`~serai_sobek.views.SobekView`.

Why this exists: the search bot samples worlds with the plugin's ``determinize(view, rng)``,
which takes the plugin's own view value, while the server sends a ``serai.games.sobek.v1.View``
and the plugin offers ``view_to_proto`` only. This is its inverse, field by field (enum numbers
are the same on both sides); it reads only the message a seat received. Options come back typed
through the game's own ``resolve_options``.

Example::

    view = view_from_proto(snapshot.view)          # snapshot from SeraiClient.get_match(seat)
    state = SobekGame().determinize(view, random.Random(1))
"""

from __future__ import annotations

from collections.abc import Iterable

from serai_sobek import SobekGame
from serai_sobek import sobek_pb2 as spb
from serai_sobek.cards import Face, Goods, Kind
from serai_sobek.events import Event
from serai_sobek.state import Pending, PendingKind, Phase, RoundResult
from serai_sobek.views import HIDDEN, SeatView, SetView, SobekView


def _face(card: spb.Card) -> Face:
    return Face(Kind(card.kind), card.goods, card.scarabs, card.character)


def _faces(cards: Iterable[spb.Card]) -> tuple[Face, ...]:
    return tuple(_face(card) for card in cards)


def _seat(entry: spb.SeatView) -> SeatView:
    return SeatView(
        seat=entry.seat,
        score=entry.score,
        bonus=entry.bonus,
        hand_count=entry.hand_count,
        hand=_faces(entry.hand),
        corruption_count=(entry.corruption_count if entry.HasField("corruption_count") else HIDDEN),
        corruption=_faces(entry.corruption),
        sets=tuple(
            SetView(Goods(s.goods), _faces(s.cards), s.horizontal, s.points) for s in entry.sets
        ),
    )


def view_from_proto(message: spb.View) -> SobekView:
    """The plugin view a ``View`` message describes (the inverse of ``view_to_proto``)."""
    game = SobekGame()
    options = tuple(
        (option.name, game.resolve_options({option.name: option.value})[option.name])
        for option in message.options
    )
    return SobekView(
        viewer=message.viewer if message.HasField("viewer") else None,
        players=message.players,
        options=options,
        round=message.round,
        phase=Phase(message.phase),
        current=message.current,
        starter=message.starter,
        turn=message.turn,
        to_act=tuple(message.to_act),
        row=tuple(None if slot.face_down else _face(slot.card) for slot in message.row),
        deck_count=message.deck_count,
        discard=_faces(message.discard),
        removed_count=message.removed_count,
        unused_count=message.unused_count,
        tokens_left=message.tokens_left,
        tokens_seen=tuple(Event(t) for t in message.tokens_seen),
        used_tokens=tuple(Event(t) for t in message.used_tokens),
        seats=tuple(_seat(entry) for entry in sorted(message.seats, key=lambda s: s.seat)),
        pending=tuple(
            Pending(PendingKind(p.kind), p.actor, p.other if p.HasField("other") else -1)
            for p in message.pending
        ),
        finishing=tuple(message.finishing),
        results=tuple(
            RoundResult(
                r.round, tuple(r.points), tuple(r.corrupt), tuple(r.penalties), tuple(r.scores)
            )
            for r in message.results
        ),
        set_aside_count=message.set_aside_count,
    )
