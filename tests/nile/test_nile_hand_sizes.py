"""Hand sizes: hidden by default, as on Board Game Arena (option ``hand_sizes``), or public.

Hidden means hidden everywhere a seat reads the match: its view bytes, the presentation of them,
and what a move reads (label and announcements). Changing how many cards the other seats hold,
and nothing else, must leave all of that unchanged."""

import json
import random
from dataclasses import replace

from nile_support import GAME, random_playout, table
from serai_nile.state import NileState


def seen_by(state: NileState, seat: int | None) -> tuple[bytes, str]:
    """What ``seat`` receives of ``state``: the view bytes and their presentation."""
    data = GAME.view_bytes(GAME.view(state, seat))
    message = GAME.view_message.FromString(data)
    return data, repr(GAME.present(message))


def moved_between_hands(state: NileState, giver: int, taker: int) -> NileState:
    """``state`` with one card of ``giver``'s hand in ``taker``'s: the same cards, other sizes."""
    hands = [list(hand) for hand in state.hands]
    hands[taker].append(hands[giver].pop())
    return replace(state, hands=tuple(tuple(sorted(hand)) for hand in hands))


def midgame(players: int, seed: int, plies: int) -> NileState:
    steps = random_playout(players, seed, random.Random(seed))
    return steps[min(plies, len(steps) - 2)][0]


def test_hand_sizes_are_hidden_by_default_and_public_as_an_option():
    """Board Game Arena's option 100, "Show count of cards in hand", is off by default."""
    (spec,) = [option for option in GAME.info.options if option.name == "hand_sizes"]
    assert spec.default == "hidden" and spec.choices == ("hidden", "public")
    assert GAME.setup(3, 1, {}).hide_hand_sizes
    assert not GAME.setup(3, 1, {"hand_sizes": "public"}).hide_hand_sizes


def test_other_hand_sizes_are_absent_from_the_view_and_its_presentation():
    state = table(players=3, hands=[["wheat"], ["castor"] * 3, ["flax"] * 2])
    message = GAME.view_to_proto(GAME.view(state, 0))
    mine, *others = message.players_view
    assert mine.hand_size == 1 and not any(p.HasField("hand_size") for p in others)
    assert "cards in hand" not in repr(GAME.present(message))
    spectator = GAME.view_to_proto(GAME.view(state, None))
    assert not any(p.HasField("hand_size") for p in spectator.players_view)
    public = GAME.view_to_proto(GAME.view(replace(state, hide_hand_sizes=False), 0))
    assert [p.hand_size for p in public.players_view] == [1, 3, 2]
    assert "cards in hand" in repr(GAME.present(public))


def test_changing_the_other_hand_sizes_changes_nothing_a_seat_receives():
    """Under the default, one card moved from seat 1's hand to seat 2's leaves seat 0's and the
    spectator's bytes and presentation as they were, and the next move reads the same; with
    hand sizes public, the same change shows."""
    for seed in range(6):
        state = midgame(3, seed, plies=12 + 5 * seed)
        assert state.hide_hand_sizes and state.hands[1]
        other = moved_between_hands(state, 1, 2)
        for observer in (0, None):
            assert seen_by(other, observer) == seen_by(state, observer), (seed, observer)
        seat = GAME.to_act(state)[0]
        if seat == 0:
            for move in list(GAME.legal_moves(state, 0))[:20]:
                after, after_other = GAME.apply(state, 0, move), GAME.apply(other, 0, move)
                assert GAME.announcements(state, after) == GAME.announcements(other, after_other)
                assert seen_by(after, 0) == seen_by(after_other, 0)
        public, public_other = (replace(s, hide_hand_sizes=False) for s in (state, other))
        assert seen_by(public_other, 0) != seen_by(public, 0)


def test_determinize_deals_the_hidden_hands_and_keeps_the_view():
    """The cards no one sees go to the deck and to the other hands, at random; the sampled
    state gives the seat exactly its view, and the hands it deals vary in size."""
    for players in (2, 3, 5):
        state = midgame(players, players, plies=25)
        view = GAME.view(state, 0)
        sizes = set()
        for sample in range(8):
            world = GAME.determinize(view, random.Random(sample))
            assert GAME.view(world, 0) == view
            assert world.all_cards() == state.all_cards()
            assert world.hide_hand_sizes
            sizes.add(tuple(len(hand) for hand in world.hands))
        if players == 2:
            assert sizes == {tuple(len(hand) for hand in state.hands)}, "two seats: one sum"
        else:
            assert len(sizes) > 1


def test_the_option_is_stored_and_older_stored_states_keep_public_hand_sizes():
    state = GAME.setup(2, 5, {})
    assert GAME.decode_state(GAME.encode_state(state)) == state
    public = GAME.setup(2, 5, {"hand_sizes": "public"})
    assert GAME.decode_state(GAME.encode_state(public)) == public
    older = json.loads(GAME.encode_state(state))
    del older["hand_sizes"]  # stored before the option existed, when sizes were shown
    assert not GAME.decode_state(json.dumps(older).encode()).hide_hand_sizes


def test_serai_check_passes_with_either_setting():
    """The secrecy checks (``serai check nile``) with hand sizes hidden (the default) and
    public: no seat's bytes, presentation, moves or news differ between worlds it cannot tell
    apart, and determinize samples the hidden hands."""
    from serai.checking import Settings, check_game

    for choice in ("hidden", "public"):
        settings = Settings(seeds=1, moves=30, players=3, options={"hand_sizes": choice})
        report = check_game(GAME, settings)
        assert not report.failed, report.render()
