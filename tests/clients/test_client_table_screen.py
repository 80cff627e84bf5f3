"""The terminal screen laid out from a presentation: what it shows, what it cuts, what it hides."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.presentation import presentation
from serai_client.step_picker import AS_IS, StepPicker
from serai_client.table_screen import Frame, choice_grid, compose, item_text, zone_lines
from serai_client.types import LegalMove, LegalMoves
from serai_client.words import plural, seat_names


def _screen(game, state, seat: int | None, width: int = 80, height: int = 24) -> list[str]:
    described = presentation(game, game.view_bytes(game.view(state, seat)))
    frame = Frame(header="header", presentation=described, seat=seat, log=["seat 1: sell"])
    return [line.plain for line in compose(frame, width, height)]


def test_two_deals_differing_only_in_the_opponents_hand_draw_the_same_screen() -> None:
    """Seat 0's screen cannot show seat 1's hand: swap that hand for another, same screen."""
    game = registry.load().games["jaipur"]
    state = game.setup(2, 11, game.resolve_options({}))
    theirs = state.hands[1]
    other = tuple(sorted(theirs, reverse=True))
    if other == theirs:
        other = (sum(theirs),) + (0,) * (len(theirs) - 1)
    assert other != theirs and sum(other) == sum(theirs)
    swapped = dataclasses.replace(state, hands=(state.hands[0], other))
    assert _screen(game, state, 0) == _screen(game, swapped, 0)
    assert _screen(game, state, 1) != _screen(game, swapped, 1)  # the owner does see it


@pytest.mark.parametrize("name", ["jaipur", "nile", "sobek"])
@pytest.mark.parametrize("size", [(80, 24), (60, 16), (120, 40)])
def test_random_states_fit_the_terminal(name: str, size: tuple[int, int]) -> None:
    width, height = size
    game = registry.load().games[name]
    rng = random.Random(2)
    for seats in range(game.info.min_players, game.info.max_players + 1):
        state = game.setup(seats, seats, game.resolve_options({}))
        for _ in range(100):
            acting = game.to_act(state)
            for viewer in [None, *range(seats)]:
                lines = _screen(game, state, viewer, width, height)
                assert len(lines) <= height - 1 and all(len(x) <= width for x in lines)
            if not acting:
                break
            state = game.apply(
                state, acting[0], rng.choice(list(game.legal_moves(state, acting[0])))
            )


def test_counts_read_as_words() -> None:
    assert plural(1, "camel") == "1 camel" and plural(2, "camel") == "2 camels"
    assert plural(1, "match") == "1 match" and plural(3, "match") == "3 matches"
    assert item_text(pb.Item(label="card", count=7, hidden=True)) == "7 cards (hidden)"
    assert item_text(pb.Item(label="card", count=1, hidden=True)) == "1 card (hidden)"
    assert item_text(pb.Item(label="camel", count=2)) == "camel x2"
    assert item_text(pb.Item(label="deck", count=36, hidden=True)) == "deck: 36"
    assert item_text(pb.Item(label="score", value="12", kind="score")) == "score: 12"


def test_a_face_down_market_card_says_where_it_lies() -> None:
    """Issue 36: Sobek's face-down character read "character: 1", with no place in the row."""
    game = registry.load().games["sobek"]
    state = game.setup(2, 2, game.resolve_options({}))
    described = presentation(game, game.view_bytes(game.view(state, 0)))
    (market,) = [zone for zone in described.zones if zone.id == "market"]
    texts = [item_text(item) for item in market.items]
    face_down = [text for text in texts if text.startswith("character")]
    assert face_down, texts  # the deal puts characters in the row, face down
    assert all(re.fullmatch(r"character \(face down, position \d\)", t) for t in face_down), texts
    assert item_text(pb.Item(label="crop", count=3, value="row 2", hidden=True)) == (
        "crop: 3 (face down, row 2)"
    )


def test_a_long_zone_ends_in_how_many_more_it_holds() -> None:
    zone = pb.Zone(title="hand", items=[pb.Item(label=f"card{i}", count=1) for i in range(40)])
    lines = zone_lines(zone, 40, 2)
    assert len(lines) == 2 and all(len(line) <= 40 for line in lines)
    shown = sum(line.count("card") for line in lines)
    assert lines[-1].endswith(f" +{40 - shown} more")


def test_choices_that_do_not_fit_are_paged() -> None:
    choices = [f"move number {i}" for i in range(30)]
    first, after = choice_grid(choices, 80, 4, 0)
    assert len(first) == 4 and after == 30 - 12  # three columns of four
    _, after = choice_grid(choices, 80, 4, 2)
    assert after == 0


def _moves(*paths: tuple[str, ...]) -> LegalMoves:
    moves = tuple(
        LegalMove(id=f"1.{i}", label=" ".join(p), payload=None, proto=pb.LegalMove(steps=p))
        for i, p in enumerate(paths)
    )
    return LegalMoves(seat=0, version=1, moves=moves)


def test_a_move_is_picked_step_by_step_and_back() -> None:
    picker = StepPicker(
        _moves(("sell", "spice", "1"), ("sell", "spice", "2"), ("sell", "gold", "2"), ("pass",))
    )
    assert picker.choices() == ["sell", "pass"]
    assert picker.pick(0) is None and picker.choices() == ["spice", "gold"]
    assert picker.pick(0) is None and picker.choices() == ["1", "2"]
    assert picker.back() and picker.path == ["sell"]
    move = picker.pick(1)
    assert move is None
    chosen = picker.pick(0)
    assert chosen is not None and chosen.id == "1.2"
    with pytest.raises(IndexError):
        StepPicker(_moves(("pass",))).pick(3)
    assert not StepPicker(_moves(("pass",))).back()


def test_a_move_that_ends_where_others_go_on_is_a_choice_of_its_own() -> None:
    picker = StepPicker(_moves(("plant",), ("plant", "2 flax")))
    assert picker.pick(0) is None
    assert picker.choices() == [AS_IS, "2 flax"]
    chosen = picker.pick(0)
    assert chosen is not None and chosen.id == "1.0"


def _plain(frame: Frame, width: int = 80, height: int = 24) -> list[str]:
    return [line.plain for line in compose(frame, width, height)]


def test_a_long_zone_wraps_onto_every_free_line_before_it_says_how_many_more() -> None:
    items = [pb.Item(label=f"card{i}", count=1) for i in range(60)]
    shown = pb.Presentation(zones=[pb.Zone(title="hand", items=items, owner=0)])
    lines = _plain(Frame(header="h", presentation=shown, seat=0))
    assert not any("more" in line for line in lines), lines  # 60 short cards fit in 7 lines
    assert sum(line.count("card") for line in lines) == 60


def test_lines_the_zones_leave_over_show_more_of_the_log() -> None:
    shown = pb.Presentation(zones=[pb.Zone(title="market", items=[pb.Item(label="gold")])])
    log = [f"{'abc'[i % 3]}: move {i}" for i in range(15)]
    lines = _plain(Frame(header="h", presentation=shown, seat=0, log=log))
    logged = [line for line in lines if line.startswith("· ")]
    assert len(logged) == 15 and logged[-1] == "· c: move 14"


def test_m_past_the_last_page_comes_back_to_the_first() -> None:
    choices = [f"move {i}" for i in range(5)]
    assert choice_grid(choices, 80, 4, 1) == choice_grid(choices, 80, 4, 0)
    many = [f"move number {i}" for i in range(30)]
    assert choice_grid(many, 80, 4, 3) == choice_grid(many, 80, 4, 0)


def test_the_choices_help_is_never_cut() -> None:
    shown = pb.Presentation(
        zones=[pb.Zone(title=f"z{i}", items=[pb.Item(label="x")]) for i in "ab"]
    )
    frame = Frame(
        header="h",
        presentation=shown,
        seat=0,
        choices=[f"a rather long choice number {i}" for i in range(80)],
        path=["exchange", "take 2 diamond and 1 gold", "give 3 camels"],
        hints="b back · q resign",
    )
    lines = _plain(frame)
    assert len(lines) <= 23 and all(len(line) <= 80 for line in lines)
    helps = [line for line in lines if "q resign" in line]
    assert helps and helps[0].endswith("more: m)"), lines


def test_the_games_seat_numbers_read_as_the_players_names() -> None:
    shown = pb.Presentation(
        headline="Seat 0 wins the match",
        zones=[pb.Zone(title="Seat 1: hand", items=[pb.Item(label="card", count=5, hidden=True)])],
    )
    lines = _plain(Frame(header="h", presentation=shown, seat=0, names=["ann", "seat 1"]))
    assert lines[1] == "ann wins the match"
    assert lines[2].startswith("Seat 1: hand")  # no name yet: the number stays
    assert seat_names([("ann", True), ("ann", True), ("", False)]) == [
        "ann (seat 0)",
        "ann (seat 1)",
        "seat 2",
    ]
