"""Bots: the random bot plays any game to the end, greedy beats random, and the search bot
chooses from its own view alone."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from typing import Any

import pytest
from serai import registry
from serai.cli import main as serai_main
from serai_client import SeraiClient
from serai_client.arena import ratings, run_arena, summarize
from serai_client.bots import make_strategy, play_seat, strategies_for
from serai_client.bots.local import moves_for, play_local, snapshot_for
from serai_client.bots.random_bot import RandomStrategy
from serai_client.bots.search import SearchStrategy
from serai_jaipur import JaipurGame


def play_through_server(address: str, game: str, strategies: list[Any], seed: int) -> Any:
    """Every seat played by its own bot thread (the last one polls instead of watching)."""
    with SeraiClient(address) as client:
        match = client.create_match(game, seats=len(strategies), seed=seed)
        seats = [client.join(match.match_id, player_name=s.name) for s in strategies]
        finals: dict[int, Any] = {}

        def run(index: int) -> None:
            poll = 0.01 if index == len(strategies) - 1 else None
            finals[index] = play_seat(client, seats[index], strategies[index], poll=poll)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(strategies))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert len(finals) == len(strategies), "a bot did not finish"
        return client.get_match(match.match_id)


def test_random_bots_play_jaipur_to_the_end_through_the_server(service):
    final = play_through_server(
        service.address, "jaipur", [RandomStrategy(1), RandomStrategy(2)], seed=31
    )
    assert final.finished
    assert sorted(final.outcome.scores, reverse=True)[0] == 2  # two seals win a match
    assert len(final.outcome.winners) == 1


@pytest.mark.parametrize(("game", "seats"), [("sobek", 3), ("nile", 3)])
def test_the_random_bot_plays_games_it_knows_nothing_about(service, game, seats):
    # It knows no rules: ids and labels from ListLegalMoves, and to_act to know when to move,
    # whichever seat the game asks (a seat may be asked again, or asked to choose mid-turn).
    final = play_through_server(
        service.address, game, [RandomStrategy(seed) for seed in range(seats)], seed=8
    )
    assert final.finished and final.outcome is not None


def test_greedy_beats_random_in_process():
    wins = 0
    for index in range(12):
        greedy, rand = make_strategy("greedy", "jaipur", index), RandomStrategy(seed=100 + index)
        seat = index % 2
        players = [greedy, rand] if seat == 0 else [rand, greedy]
        result = play_local("jaipur", players, seed=500 + index)
        wins += seat in result.outcome.winners
    assert wins >= 11


def test_the_search_bot_plays_a_match_through_the_server(service):
    final = play_through_server(
        service.address,
        "jaipur",
        [SearchStrategy(3, game="jaipur", iterations=12, time_limit=None), RandomStrategy(4)],
        seed=12,
    )
    assert final.finished


@pytest.mark.parametrize("game", ["nile", "sobek"])
def test_the_search_bot_plays_nile_and_sobek_through_the_server(service, game):
    """It reads each game's view off the wire and submits one of the listed moves by id."""
    search = make_strategy("search", game, 3, iterations=4, time_limit=None)
    final = play_through_server(service.address, game, [search, RandomStrategy(4)], seed=12)
    assert final.finished and final.outcome is not None


def world_pair(seed: int) -> tuple[Any, Any, int]:
    """Two full states that differ in hidden cards but give one seat the very same view."""
    game = JaipurGame()
    rng = random.Random(seed)
    state = game.setup(2, seed, {})
    for _ in range(9):
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    seat = game.to_act(state)[0]
    view = game.view(state, seat)
    for attempt in range(50):
        other = game.determinize(view, random.Random(attempt))
        if other.hands[1 - seat] != state.hands[1 - seat] and other.deck != state.deck:
            return state, other, seat
    raise AssertionError("no second world found")


def test_the_search_bot_chooses_from_the_snapshot_alone():
    game = JaipurGame()
    real, other, seat = world_pair(seed=2)
    snaps = [snapshot_for(game, world, seat, 9) for world in (real, other)]
    assert snaps[0].proto.view == snaps[1].proto.view  # the seat cannot tell them apart
    choices = [
        SearchStrategy(7, game="jaipur", iterations=40, time_limit=None).choose(
            snap, moves_for(game, w, seat, 9)
        )
        for snap, w in zip(snaps, (real, other), strict=True)
    ]
    assert choices[0].id == choices[1].id  # so the bot, seeing only the view, cannot either


def test_the_search_bot_samples_worlds_only_from_the_view_it_received(monkeypatch):
    game = JaipurGame()
    real, _, seat = world_pair(seed=5)
    snapshot = snapshot_for(game, real, seat, 9)
    bot = SearchStrategy(1, game="jaipur", iterations=10, time_limit=None)
    given: list[Any] = []
    original = bot.game.determinize

    def spy(view: Any, rng: random.Random) -> Any:
        given.append(view)
        return original(view, rng)

    monkeypatch.setattr(bot.game, "determinize", spy)
    bot.choose(snapshot, moves_for(game, real, seat, 9))
    assert len(given) == 10
    expected = game.view_from_proto(snapshot.view)
    assert all(view == expected for view in given)
    assert expected.players[1 - seat].hand is None  # the opponent's cards were never there


def test_greedy_scores_moves_from_its_own_view(service):
    strategy = make_strategy("greedy", "jaipur", seed=1)
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=2)
        seats = [client.join(match.match_id), client.join(match.match_id)]
        snapshot = client.get_match(seats[0])
        seat = seats[0] if snapshot.acts(0) else seats[1]
        result = client.play(seat, strategy.choose)
        assert result.label


def test_a_bot_cannot_be_asked_to_play_greedy_at_a_game_it_does_not_know():
    with pytest.raises(ValueError, match="Jaipur only"):
        make_strategy("greedy", "sobek")
    assert "sobek" in registry.load()


def test_each_game_offers_the_strategies_that_can_play_it():
    """Random for all, greedy where one was written, search where the game can determinize;
    every strategy offered is one make_strategy builds for that game."""
    games = registry.load()
    assert strategies_for("jaipur") == ("random", "greedy", "search")
    assert strategies_for("a game nobody wrote") == ("random",)
    for name in games.games:
        offered = strategies_for(name, games.get(name))
        assert offered == strategies_for(name) and offered[0] == "random"
        for strategy in offered:
            make_strategy(strategy, name, 1)


def test_the_arena_reproduces_with_a_seed_and_rates_the_bots(service):
    with SeraiClient(service.address) as client:
        runs = [run_arena(client, "jaipur", ["random", "greedy"], 2, seed=3) for _ in range(2)]
    first, second = runs
    key = [(r.seed, r.a_seat, r.scores, r.moves) for r in first]
    assert key == [(r.seed, r.a_seat, r.scores, r.moves) for r in second]
    assert [r.a_seat for r in first] == [0, 1]
    (pairing,) = summarize(first, ["random", "greedy"])
    assert pairing.matches == 2 and pairing.b_wins == 2
    table = ratings(first, ["random", "greedy"], seed=3)
    assert table[0].bot == "greedy" and table[0].elo > 0 and table[0].low <= table[0].elo


def _serai_bot_against_random(service: Any, *flags: str) -> int:
    """``serai bot FLAGS`` on seat 0 of a new Jaipur match, a random bot on seat 1; its code."""
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=6)
        other = client.join(match.match_id, seat=1)
        thread = threading.Thread(target=play_seat, args=(client, other, RandomStrategy(9)))
        thread.start()
        code = serai_main(["bot", "--server", service.address, "--match", match.match_id, *flags])
        thread.join(60)
    return code


def test_serai_bot_joins_a_match_and_plays_it_to_the_end(service, capsys):
    assert _serai_bot_against_random(service, "--strategy", "greedy") == 0
    out = capsys.readouterr().out
    assert "greedy-bot plays seat 0" in out
    assert "wins 2 seals to" in out


def test_the_arena_plays_a_game_only_random_plays_with_two_random_entrants(service, capsys):
    arena = ["arena", "--game", "sobek", "--bots", "random,random", "--matches", "2"]
    code = serai_main([*arena, "--server", service.address, "--quiet", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    played = json.loads(out[out.index("{") :])
    assert {bot["bot"] for bot in played["ratings"]} == {"random", "random#2"}
    assert sum(p["matches"] for p in played["pairings"]) == 2


def test_the_arena_refuses_a_bot_that_cannot_play_the_game_before_any_match(service, capsys):
    code = serai_main(
        ["arena", "--game", "nile", "--bots", "random,greedy", "--server", service.address]
    )
    assert code == 2
    said = capsys.readouterr()
    assert "the greedy bot plays Jaipur only" in said.err and "matches" not in said.err


def test_serai_bot_quiet_prints_only_the_result(service, capsys):
    assert _serai_bot_against_random(service, "--quiet") == 0
    out = capsys.readouterr().out.splitlines()
    lines = [line for line in out if line.strip() and "latency_ms=" not in line]  # not the server's
    assert len(lines) == 1 and "seals" in lines[0]


def test_serai_bot_create_quiet_prints_the_bare_match_id(service):
    """Its help says so: the id alone, for a script to hand to the other players."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "serai.cli", "bot", "--server", service.address]
    bot = subprocess.Popen(
        [*command, "--create", "--quiet", "--game", "jaipur", "--seed", "3"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert bot.stdout is not None
    match_id = bot.stdout.readline().strip()
    with SeraiClient(service.address) as client:
        other = client.join(match_id, seat=1)  # the bot may not have joined yet
        play_seat(client, other, RandomStrategy(2))
    rest, _ = bot.communicate(timeout=60)
    assert bot.returncode == 0
    assert len(match_id) == 32 and " " not in match_id
    assert "seals" in rest


class _ResignsTheOtherFirst:
    """Chooses only once the other seat has resigned (through its own client): the move then
    loses to the match's end, as a move racing a resignation or a clock does."""

    name = "late"

    def __init__(self, address: str, other: Any) -> None:
        self.address, self.other = address, other

    def choose(self, snapshot: Any, moves: Any) -> Any:
        with SeraiClient(self.address) as client:
            client.resign(self.other)
        return moves.moves[0]


def _seat_zero_starts() -> int:
    from serai_jaipur.rules import first_player

    return next(seed for seed in range(100) if first_player(seed) == 0)


@pytest.mark.parametrize("path", ["play", "watch"])
def test_a_bot_whose_move_loses_to_the_matchs_end_ends_with_the_match(service, monkeypatch, path):
    """The move is refused (the match is over); the bot returns the finished match, won by
    its seat, rather than failing: over Play, and over Watch + SubmitMove."""
    if path == "watch":
        from serai.rpc.play import PlayStreams
        from serai.rpc.status import Code, RpcError

        async def unimplemented(self: Any, requests: Any, ctx: Any) -> Any:
            raise RpcError(Code.UNIMPLEMENTED, "no Play here")
            yield

        monkeypatch.setattr(PlayStreams, "play", unimplemented)
    with SeraiClient(service.address) as client:
        match_id = client.create_match("jaipur", seed=_seat_zero_starts()).match_id
        me, other = client.join(match_id, seat=0), client.join(match_id, seat=1)
        final = play_seat(client, me, _ResignsTheOtherFirst(service.address, other))
    assert final.finished and list(final.outcome.ranks) == [0, 1]


def test_the_asyncio_bot_whose_move_loses_to_the_matchs_end_ends_with_the_match(service):
    from serai_client import AsyncSeraiClient
    from serai_client.bots.aio import play_seat_async

    with SeraiClient(service.address) as client:
        match_id = client.create_match("jaipur", seed=_seat_zero_starts()).match_id
        me, other = client.join(match_id, seat=0), client.join(match_id, seat=1)

    async def main() -> Any:
        async with AsyncSeraiClient(service.address) as client:
            return await play_seat_async(client, me, _ResignsTheOtherFirst(service.address, other))

    final = asyncio.run(main())
    assert final.finished and list(final.outcome.ranks) == [0, 1]
