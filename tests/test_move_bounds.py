"""A move costs at most a small, constant amount of work, for every installed game.

The service refuses a payload larger than the game's ``max_move_bytes`` before parsing it, and
each game refuses a message naming more things than its rules allow by the count, before reading
them. Shown without clocks: the refusal comes before the plugin is called at all, or with the same
number of Python calls however long the message is.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serai import registry
from serai.game import Game, GameError, MalformedMove
from serai.matches import PackedMove
from serai.matches.planning import unpack
from serai_jaipur import jaipur_pb2
from serai_nile import nile_pb2
from serai_sobek import sobek_pb2
from short_game import short_game

GAMES = {**registry.load().games, "peek": short_game()}
NAMES = sorted(GAMES)


def _type_url(game: Game[Any, Any, Any]) -> str:
    return f"type.googleapis.com/{game.move_message.DESCRIPTOR.full_name}"


def _playout(game: Game[Any, Any, Any], players: int, seed: int, steps: int) -> Iterator[Any]:
    """The states of a random legal match (``seed`` deals and chooses), ``steps`` moves at most."""
    rng = random.Random(seed)
    state = game.setup(players, seed, game.resolve_options({}))
    for _ in range(steps):
        yield state
        to_act = game.to_act(state)
        if not to_act:
            return
        seat = to_act[0]
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))


def _reachable(game: Game[Any, Any, Any], steps: int = 12) -> tuple[Any, int]:
    """A state a few moves into a seeded match (fewer if the match ends sooner), and a seat to
    act in it."""
    *_, state = (s for s in _playout(game, game.info.min_players, 5, steps) if game.to_act(s))
    return state, game.to_act(state)[0]


def _longest_legal_move(game: Game[Any, Any, Any]) -> bytes:
    state, seat = _reachable(game)
    moves = game.legal_moves(state, seat)
    return max((game.move_to_proto(m).SerializeToString() for m in moves), key=len)


class _Spied:
    """The game with its move_from_proto and apply replaced by recorders of their calls."""

    def __init__(self, game: Game[Any, Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        for name in ("move_from_proto", "apply"):
            monkeypatch.setattr(game, name, self._recorder(name, getattr(game, name)))

    def _recorder(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def record(*args: Any) -> Any:
            self.calls.append(name)
            return method(*args)

        return record


# --- the declared bound fits every legal move ------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_legal_move_fits_the_declared_bound(name):
    """Over random playouts at every player count, each legal move, encoded, fits
    ``max_move_bytes``: the bound never refuses a move the rules allow."""
    game = GAMES[name]
    limit, largest = game.info.max_move_bytes, 0
    for players in range(game.info.min_players, game.info.max_players + 1):
        for seed in range(4):
            for state in _playout(game, players, seed, 150):
                for seat in game.to_act(state):
                    for move in game.legal_moves(state, seat):
                        size = len(game.move_to_proto(move).SerializeToString())
                        assert size <= limit, (game.label(move), size)
                        largest = max(largest, size)
    assert largest > 0


def test_a_game_that_declares_no_bound_gets_the_small_default():
    """A plugin cannot forget the bound: GameInfo gives one, and refuses a bound that is none."""
    from serai.game import DEFAULT_MAX_MOVE_BYTES, GameInfo

    info = GameInfo("g", "G", 2, 2, "1", "a game")
    assert info.max_move_bytes == DEFAULT_MAX_MOVE_BYTES <= 4096
    for bad in (0, -1, 2.5, None):
        with pytest.raises(ValueError, match="max_move_bytes"):
            GameInfo("g", "G", 2, 2, "1", "a game", max_move_bytes=bad)  # type: ignore[arg-type]


# --- over the byte bound: refused before the plugin reads a thing ------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


@st.composite
def _oversized(draw: st.DrawFn, limit: int, legal: bytes) -> bytes:
    """Bytes longer than ``limit``: a legal move repeated (protobuf merges repeated fields, so
    this is one move with many entries), huge varints, one long bytes field, or noise."""
    over = limit + 1 + draw(st.integers(0, 4 * limit))
    kind = draw(st.sampled_from(["repeated", "varints", "long", "noise"]))
    if kind == "repeated":
        return legal * (over // len(legal) + 1)
    if kind == "varints":
        field = draw(st.integers(1, 15))
        entry = _varint(field << 3) + _varint(draw(st.integers(2**63, 2**64 - 1)))
        return entry * (over // len(entry) + 1)
    if kind == "long":
        field = draw(st.integers(1, 15))
        body = draw(st.binary(min_size=over, max_size=over))
        return _varint(field << 3 | 2) + _varint(over) + body
    return draw(st.binary(min_size=over, max_size=over + 64))


@pytest.mark.parametrize("name", NAMES)
def test_an_oversized_payload_is_refused_before_the_game_reads_it(name, monkeypatch):
    """Any payload larger than the bound is MalformedMove naming the limit, and neither
    move_from_proto nor apply is ever called for it."""
    game = GAMES[name]
    limit, url, legal = game.info.max_move_bytes, _type_url(game), _longest_legal_move(game)
    spied = _Spied(game, monkeypatch)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_oversized(limit, legal))
    def refused(payload: bytes) -> None:
        assert len(payload) > limit
        with pytest.raises(MalformedMove, match=f"at most {limit} bytes"):
            unpack(game, PackedMove(url, payload))
        assert spied.calls == []

    refused()


@pytest.mark.parametrize("name", NAMES)
def test_a_payload_within_the_bound_raises_only_the_contracts_errors(name):
    """Whatever fits the bound is read and checked on a reachable state with no error but
    the contract's own (the fuzz targets in tests/fuzz go further)."""
    game = GAMES[name]
    limit, url = game.info.max_move_bytes, _type_url(game)
    state, seat = _reachable(game)

    @settings(max_examples=300, deadline=None)
    @given(st.binary(max_size=limit))
    def checked(payload: bytes) -> None:
        with contextlib.suppress(GameError):
            game.apply(state, seat, unpack(game, PackedMove(url, payload)))

    checked()


# --- within the byte bound, over the rules' count: refused by the count ------------------------


def _calls_to_refuse(game: Game[Any, Any, Any], message: Any) -> int:
    """Python function calls (and calls into C) made before move_from_proto refuses
    ``message``: the same for every length means no work proportional to it."""
    calls = 0

    def count(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        game.move_from_proto(message)
    except MalformedMove:
        refused = True
    else:
        refused = False
    finally:
        sys.setprofile(None)
    assert refused, message
    return calls


_OVER_COUNT: dict[str, dict[str, Callable[[int], Any]]] = {
    "jaipur": {
        "exchange take": lambda n: jaipur_pb2.Move(exchange=jaipur_pb2.Exchange(take=[1] * n)),
        "exchange give": lambda n: jaipur_pb2.Move(exchange=jaipur_pb2.Exchange(give=[7] * n)),
    },
    "nile": {
        "a card's crops": lambda n: nile_pb2.Move(
            speculate=nile_pb2.Speculate(cards=[nile_pb2.Card(kind=2, crops=[1] * n)])
        ),
        "a plant's count": lambda n: nile_pb2.Move(
            plant=nile_pb2.Plant(crops=[nile_pb2.CropCount(crop=2, count=200 * n)])
        ),
    },
    "sobek": {
        "pick cards": lambda n: sobek_pb2.Move(
            pick_cards=sobek_pb2.PickCards(cards=[sobek_pb2.Card(kind=2)] * (63 + n))
        ),
        "a set": lambda n: sobek_pb2.Move(
            play_set=sobek_pb2.PlaySet(goods=1, cards=[sobek_pb2.Card(kind=2)] * (63 + n))
        ),
    },
}


@pytest.mark.parametrize(
    ("name", "case"), [(name, case) for name in sorted(_OVER_COUNT) for case in _OVER_COUNT[name]]
)
def test_a_message_over_the_rules_count_is_refused_without_reading_its_entries(name, case):
    """Within the byte bound but over what the rules allow: refused with as many calls for a
    short excess as for a long one."""
    game, build = GAMES[name], _OVER_COUNT[name][case]
    short, long = build(6), build(60)
    assert len(long.SerializeToString()) <= game.info.max_move_bytes
    assert _calls_to_refuse(game, short) == _calls_to_refuse(game, long)


def test_every_game_of_this_repository_has_over_count_cases():
    """A new plugin under plugins/ adds its own rows to the table above (a game installed from
    outside has its own tests)."""
    plugins = Path(__file__).parents[1] / "plugins"
    ours = {
        name
        for name, game in GAMES.items()
        if Path(sys.modules[type(game).__module__].__file__ or "").is_relative_to(plugins)
    }
    assert ours and set(_OVER_COUNT) == ours
