"""Duplicate deals in the arena: one deal per series, the seats rotated, the series one result."""

from __future__ import annotations

import json

import pytest
from serai.cli import main as serai_main
from serai_client import SeraiClient
from serai_client.arena import (
    MatchResult,
    iterations_of,
    ratings,
    run_arena,
    scored_units,
    seating,
    series_of,
    strategy_of,
    summarize,
)


def _result(a_seat: int, ranks: tuple[int, ...], series: int | None = None) -> MatchResult:
    scores = tuple(10 - rank for rank in ranks)
    winners = tuple(seat for seat, rank in enumerate(ranks) if rank == 0)
    return MatchResult("a", "b", a_seat, 7, "m", scores, winners, 10, ranks, series)


def test_seating_rotates_every_entrant_through_every_seat():
    """Match i seats entrant 0 (a) at seat i % seats, and every entrant moves one seat on."""
    rotations = [seating(index, 3) for index in range(3)]
    assert rotations == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    for entrant in range(3):
        assert sorted(r.index(entrant) for r in rotations) == [0, 1, 2]
    assert [seating(index, 2) for index in range(2)] == [[0, 1], [1, 0]]


def test_a_series_is_one_match_per_seat_on_the_same_deal():
    assert [series_of(index, 3, True) for index in range(7)] == [0, 0, 0, 1, 1, 1, 2]
    assert series_of(5, 3, False) is None


def test_with_more_seats_a_scores_against_each_b_seat():
    """a second of three: ahead of one b seat, behind the other."""
    assert _result(1, (0, 1, 2)).a_score == 0.5
    assert _result(0, (0, 1, 2)).a_score == 1.0
    assert _result(2, (0, 0, 2)).a_score == 0.0
    assert _result(0, (0, 0, 1)).a_score == 0.75  # level with one, ahead of the other
    assert _result(0, (0, 1, 2)).a_margin == 10 - (9 + 8) / 2


def test_two_seats_score_as_before_from_winners_alone():
    old = MatchResult("a", "b", 1, 7, "m", (3, 5), (1,), 10)  # no ranks recorded
    assert old.a_score == 1.0 and old.a_margin == 2
    assert MatchResult("a", "b", 0, 7, "m", (5, 5), (0, 1), 10).a_score == 0.5


def test_a_duplicate_series_counts_once_with_its_mean_score():
    """The deal gave seat 0 the win both times: a won once and lost once, a level series."""
    played = [_result(0, (0, 1), series=0), _result(1, (0, 1), series=0)]
    assert scored_units(played) == [0.5]
    (pairing,) = summarize(played, ["a", "b"])
    assert (pairing.matches, pairing.series, pairing.a_wins, pairing.b_wins) == (2, 1, 1, 1)
    assert pairing.elo_diff == 0.0
    independent = [_result(0, (0, 1)), _result(1, (0, 1))]
    assert scored_units(independent) == [1.0, 0.0]
    assert summarize(independent, ["a", "b"])[0].series == 0


def test_ratings_count_series_not_matches():
    """Ten series a won 2-0 are ten results, as ten won matches would be."""
    series = [
        _result(seat, (0, 1) if seat == 0 else (1, 0), s) for s in range(10) for seat in (0, 1)
    ]
    won = [_result(seat, (0, 1) if seat == 0 else (1, 0)) for seat in (0, 1) * 5]
    by_series = {r.bot: r for r in ratings(series, ["a", "b"], seed=1)}
    by_match = {r.bot: r for r in ratings(won, ["a", "b"], seed=1)}
    assert by_series["b"].elo == pytest.approx(by_match["b"].elo)
    assert by_series["b"].games == 20 and by_match["b"].games == 10


def test_the_arena_plays_each_deal_once_per_seat_rotated(service):
    """Three seats of Nile: every match of a series has the series' seed, a in each seat once;
    the simple bot plays the same cards the same way, so against itself every series is level."""
    with SeraiClient(service.address) as client:
        played = run_arena(
            client, "nile", ["simple", "simple#2"], 6, seed=4, seats=3, duplicate=True
        )
    assert [r.series for r in played] == [0, 0, 0, 1, 1, 1]
    assert [r.a_seat for r in played] == [0, 1, 2, 0, 1, 2]
    assert len({r.seed for r in played[:3]}) == 1 and played[0].seed != played[3].seed
    assert all(len(r.scores) == 3 for r in played)
    assert scored_units(played) == [0.5, 0.5]
    (pairing,) = summarize(played, ["simple", "simple#2"])
    assert pairing.series == 2 and pairing.elo_diff == 0.0


def test_independent_deals_are_not_level_where_the_deal_favours_a_seat(service):
    """The same bots on independent deals: each match its own seed, scored alone."""
    with SeraiClient(service.address) as client:
        played = run_arena(client, "nile", ["simple", "simple#2"], 4, seed=4)
    assert len({r.seed for r in played}) == 4
    assert all(r.series is None for r in played)
    assert sorted(set(scored_units(played))) != [0.5]


def test_the_arena_command_refuses_a_duplicate_count_that_splits_a_series(capsys):
    arena = ["arena", "--game", "nile", "--bots", "simple,random", "--seats", "3"]
    assert serai_main([*arena, "--matches", "4", "--duplicate"]) == 2
    assert "multiple of --seats (3), not 4" in capsys.readouterr().err
    assert serai_main([*arena, "--seats", "1"]) == 2
    assert "--seats must be 2 or more" in capsys.readouterr().err


def test_the_arena_command_reports_duplicate_series(service, capsys):
    arena = ["arena", "--game", "nile", "--bots", "simple,simple", "--matches", "2"]
    code = serai_main([*arena, "--duplicate", "--server", service.address, "--quiet", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    report = json.loads(out[out.index("{") :])
    (pairing,) = report["pairings"]
    assert (pairing["matches"], pairing["series"]) == (2, 1)
    assert [m["series"] for m in report["matches"]] == [0, 0]
    assert report["matches"][0]["seed"] == report["matches"][1]["seed"]


def test_an_entrant_names_its_search_budget():
    assert (strategy_of("search@200"), iterations_of("search@200")) == ("search", 200)
    assert (strategy_of("search@20#2"), iterations_of("search@20#2")) == ("search", 20)
    assert iterations_of("search") is None and strategy_of("random#2") == "random"
    with pytest.raises(ValueError, match="1 or more"):
        iterations_of("search@0")


def test_the_arena_command_plays_two_search_budgets_in_one_run(service, capsys):
    arena = ["arena", "--game", "jaipur", "--bots", "search@1,search@2", "--matches", "2"]
    code = serai_main([*arena, "--server", service.address, "--quiet", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    report = json.loads(out[out.index("{") :])
    assert {rating["bot"] for rating in report["ratings"]} == {"search@1", "search@2"}
    assert serai_main(["arena", "--game", "jaipur", "--bots", "random@5,greedy"]) == 2
    assert "only the search bot takes a budget" in capsys.readouterr().err
