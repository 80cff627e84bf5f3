"""The fast codec paths give the same bytes as the plain ones they replace.

``view_to_proto`` assembles wire bytes from cached parts, and ``encode_state`` lays out one-byte
varints at once; here both are checked against the straightforward code (a View built field by
field, the state written value by value) over random matches, to the byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from jaipur_playouts import playout
from serai_jaipur import JaipurGame, codec
from serai_jaipur import jaipur_pb2 as pb
from serai_jaipur.cards import GOODS, GOODS_TOKENS, Good
from serai_jaipur.views import JaipurView

game = JaipurGame()


def _cards(target: pb.Cards, counts: Sequence[int]) -> None:
    for good, count in zip(Good, counts, strict=False):
        setattr(target, good.name.lower(), count)


def reference_view(view: JaipurView) -> pb.View:
    """The View built field by field (the code the fast path replaced)."""
    message = pb.View(
        round=view.round, deal=view.deal, starter=view.starter, deck_size=view.deck_size
    )
    if view.viewer is not None:
        message.viewer = view.viewer
    if view.turn is not None:
        message.to_act = view.turn
    _cards(message.market, view.market)
    _cards(message.discards, view.discards)
    for good in GOODS:
        full = GOODS_TOKENS[good]
        values = full[len(full) - view.stacks[good] :]
        message.goods_stacks.add(good=good + 1, values=values)  # type: ignore[arg-type]
    message.bonus_left.three, message.bonus_left.four, message.bonus_left.five = view.bonus_left
    for seat, player in enumerate(view.players):
        entry = message.players.add(
            seat=seat, hand_size=player.hand_size, herd=player.herd, seals=player.seals
        )
        for token_good, value in player.goods_tokens:
            entry.goods_tokens.add(good=token_good + 1, value=value)  # type: ignore[arg-type]
        counts = entry.bonus_counts
        counts.three, counts.four, counts.five = player.bonus_counts
        if player.hand is not None:
            entry.hand.SetInParent()
            _cards(entry.hand, player.hand)
        for kind, value in player.bonus_tokens or ():
            entry.bonus_tokens.add(cards=kind, value=value)
    for result in view.results:
        item = message.results.add(
            round=result.round, deal=result.deal, starter=result.starter, ended_by=result.ended_by
        )
        for seat in range(2):
            item.scores.add(
                seat=seat,
                rupees=result.rupees[seat],
                goods_tokens=result.goods_tokens[seat],
                bonus_tokens=result.bonus_tokens[seat],
                camels=result.camels[seat],
                camel_token=result.camel_token == seat,
            )
        if result.winner is not None:
            item.winner = result.winner
    if view.turn is None:
        message.winner = 0 if view.players[0].seals > view.players[1].seals else 1
    return message


def test_views_are_the_same_message_as_built_field_by_field() -> None:
    checked = 0
    for seed in range(12):
        for state, _move in playout(seed, seed + 100):
            for seat in (0, 1, None):
                view = game.view(state, seat)
                fast = codec.view_to_proto(view)
                slow = reference_view(view)
                assert fast == slow
                assert fast.SerializeToString(deterministic=True) == slow.SerializeToString(
                    deterministic=True
                )
                for p in range(2):  # sub-messages present in the same places
                    assert fast.players[p].HasField("hand") == slow.players[p].HasField("hand")
                    assert fast.players[p].HasField("bonus_counts")
                assert fast.HasField("discards") and fast.HasField("bonus_left")
                checked += 1
    assert checked > 3000


def test_finished_views_match_too() -> None:
    for seed in range(6):
        *_, (state, move) = playout(seed, seed)
        state = game.apply(state, state.turn, move)  # type: ignore[arg-type]
        assert state.turn is None and state.results
        for seat in (0, 1, None):
            view = game.view(state, seat)
            assert codec.view_to_proto(view) == reference_view(view)


def test_view_bytes_are_the_view_message_written_by_protobuf() -> None:
    """What the service sends (Game.view_bytes) is the message protobuf writes, to the byte: no
    field protobuf would leave out (a 0 without presence), and every field in its order."""
    checked = zero_starter = 0
    for seed in range(12):
        *positions, (last, move) = playout(seed, seed + 400)
        finished = game.apply(last, last.turn, move)  # type: ignore[arg-type]
        for state in [*(state for state, _move in positions), last, finished]:
            for seat in (0, 1, None):
                view = game.view(state, seat)
                sent = game.view_bytes(view)
                assert sent == reference_view(view).SerializeToString(deterministic=True)
                assert pb.View.FromString(sent) == codec.view_to_proto(view)
                zero_starter += view.starter == 0
                checked += 1
    assert checked > 3000 and zero_starter > 0  # the zero case was met, not only assumed


def test_state_bytes_are_those_written_value_by_value() -> None:
    for seed in range(12):
        for state, _move in playout(seed, seed + 200):
            assert codec.encode_state(state) == codec._encode_state_slowly(state)
    # Values of 0x80 and more take the slow path, with the same bytes.
    *_, (state, move) = playout(3, 4)
    state = game.apply(state, state.turn, move)  # type: ignore[arg-type]
    big = replace(state, results=(replace(state.results[0], rupees=(200, 1000)),))
    assert codec.encode_state(big) == codec._encode_state_slowly(big)
    assert codec.decode_state(codec.encode_state(big)) == big
    negative = replace(state, seals=(-1, 0))
    try:
        codec.encode_state(negative)
    except ValueError:
        pass
    else:
        raise AssertionError("a negative value must not encode")


def test_move_messages_are_fresh_and_the_same_as_built() -> None:
    for seed in range(3):
        for state, _move in playout(seed, seed + 300, limit=60):
            for move in game.legal_moves(state, state.turn):  # type: ignore[arg-type]
                first = codec.move_to_proto(move)
                assert first == codec._move_message(move)
                first.Clear()  # a caller may change its message: the next one is whole again
                assert codec.move_to_proto(move) == codec._move_message(move)
                assert codec.move_from_proto(codec.move_to_proto(move)) == move
