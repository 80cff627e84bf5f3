"""The plugin contract checked on one position: what :mod:`serai.game` promises and the
framework relies on (listed moves apply, others are refused, apply never mutates, bytes
round-trip, views are deterministic, presentations and steps read only their input)."""

from __future__ import annotations

import random
from typing import Any

from serai.checking.position import (
    AnyGame,
    Position,
    as_text,
    attempt,
    payload,
    presented,
    steps,
    text_diff,
    view_bytes,
    who,
)
from serai.checking.report import Report


def check_position(
    report: Report, position: Position, sample: int, rng: random.Random
) -> dict[int, list[Any]]:
    """Run the contract checks on ``position``; return the moves tried per acting seat."""
    game, state = position.game, position.state
    where = position.where()
    encoded = game.encode_state(state)
    if not report.record(
        "contract.codec", game.encode_state(game.decode_state(encoded)) == encoded, where
    ):
        report.explain("contract.codec", "the bytes changed")

    acting = tuple(game.to_act(state))
    outcome = game.outcome(state)
    if not report.record("contract.end", (not acting) == (outcome is not None), where):
        report.explain("contract.end", f"to_act is {acting!r} but the outcome is {outcome!r}")
    for observer in (*range(position.players), None):
        _check_view(report, position, observer)

    tried: dict[int, list[Any]] = {}
    for seat in range(position.players):
        legal = list(game.legal_moves(state, seat))
        repeat = list(game.legal_moves(state, seat))
        if not report.record(
            "contract.moves",
            legal == repeat
            and len(set(legal)) == len(legal)
            and len(legal) <= (game.info.max_legal_moves or len(legal)),
            position.where(seat=seat),
        ):
            report.explain("contract.moves", _listing_fault(game, legal, repeat))
        if seat not in acting:
            if not report.record("contract.idle", not legal, position.where(seat=seat)):
                report.explain(
                    "contract.idle",
                    f"seat {seat} is not to act yet lists {len(legal)} moves, "
                    f"first {game.label(legal[0])!r}",
                )
            continue
        chosen = rng.sample(legal, min(sample, len(legal)))
        tried[seat] = chosen
        for move in chosen:
            _check_listed(report, position, seat, move, encoded)
        listed = set(legal)
        for probe in position.probes:
            if probe in listed:
                continue
            answer = attempt(game, state, seat, probe)
            if not report.record(
                "contract.unlisted", answer.startswith("refused "), position.where(seat=seat)
            ):
                report.explain(
                    "contract.unlisted",
                    f"{game.label(probe)!r} is not listed, yet apply answered {answer!r}",
                )
    for seat, moves in tried.items():
        for idle in range(position.players):
            if idle in acting or not moves:
                continue
            answer = attempt(game, state, idle, moves[0])
            if not report.record(
                "contract.idle", answer.startswith("refused "), position.where(seat=idle)
            ):
                report.explain(
                    "contract.idle",
                    f"seat {idle} (not to act) played seat {seat}'s move "
                    f"{game.label(moves[0])!r}: {answer}",
                )
    _check_present(report, position, tried)
    return tried


def _check_present(report: Report, position: Position, tried: dict[int, list[Any]]) -> None:
    """The presentation is a function of the view bytes and the steps of the move: asked again
    after the game has viewed and listed another state, they answer as before (a plugin that
    reads a state it kept aside, not its argument, answers for that state)."""
    game, state = position.game, position.state
    observers = (*range(position.players), None)
    sent = {observer: view_bytes(game, state, observer) for observer in observers}
    shown = {observer: presented(game, sent[observer]) for observer in observers}
    listed = {seat: list(game.legal_moves(state, seat)) for seat in tried}
    walked = {seat: [steps(game, move) for move in moves] for seat, moves in listed.items()}
    for seat, moves in tried.items():
        if not moves:
            continue
        after = game.apply(state, seat, moves[0])
        for observer in observers:
            view_bytes(game, after, observer)
        for other in game.to_act(after):
            list(game.legal_moves(after, other))
        break
    for observer in observers:
        again = presented(game, sent[observer])
        ok = again == shown[observer] and not isinstance(again, str)
        if not report.record("contract.present", ok, position.where(observer)):
            report.explain(
                "contract.present",
                f"{who(observer)}'s view: {again}"
                if isinstance(again, str)
                else f"{who(observer)}'s view bytes present differently when asked again:\n"
                + text_diff(as_text(shown[observer]), as_text(again)),
            )
    for seat, moves in listed.items():
        for move, first in zip(moves, walked[seat], strict=True):
            again_steps = steps(game, move)
            ok = again_steps == first and not isinstance(first, str)
            if not report.record("contract.present", ok, position.where(seat=seat)):
                report.explain(
                    "contract.present",
                    f"the steps of {game.label(move)!r} were {first!r}, "
                    f"asked again {again_steps!r}",
                )


def _listing_fault(game: AnyGame, legal: list[Any], repeat: list[Any]) -> str:
    bound = game.info.max_legal_moves
    if bound and len(legal) > bound:
        return f"{len(legal)} legal moves, more than the declared max_legal_moves {bound}"
    if legal != repeat:
        return "two calls listed different moves (or the same in another order)"
    seen: set[Any] = set()
    for move in legal:
        if move in seen:
            return f"{move!r} is listed twice"
        seen.add(move)
    return "no fault"


def _check_view(report: Report, position: Position, observer: int | None) -> None:
    game, state = position.game, position.state
    view = game.view(state, observer)
    sent = game.view_bytes(view)
    message = game.view_to_proto(view)
    expected = game.view_message
    if not report.record("contract.view", isinstance(message, expected), position.where(observer)):
        report.explain(
            "contract.view",
            f"view_to_proto gave {who(observer)} a {message.DESCRIPTOR.full_name}, not the game's "
            f"view_message {expected.DESCRIPTOR.full_name}: clients would read its bytes as the "
            "wrong message",
        )
        return
    written = message.SerializeToString(deterministic=True)
    if not report.record(
        "contract.view",
        sent == written == view_bytes(game, state, observer),
        position.where(observer),
    ):
        report.explain(
            "contract.view",
            f"{who(observer)}'s view bytes differ between calls or from view_to_proto",
        )


def _check_listed(report: Report, position: Position, seat: int, move: Any, encoded: bytes) -> None:
    game, state = position.game, position.state
    where = position.where(seat=seat)
    raw = payload(game, move)
    back = _read_back(game, raw)
    if not report.record(
        "contract.proto", back == move and len(raw) <= game.info.max_move_bytes, where
    ):
        report.explain(
            "contract.proto",
            f"{game.label(move)!r}: "
            + (
                f"{len(raw)} bytes, over max_move_bytes {game.info.max_move_bytes}"
                if back == move
                else f"read back as {back!r}"
            ),
        )
    answer = attempt(game, state, seat, move)
    if not report.record("contract.listed", answer == "accepted", where):
        report.explain("contract.listed", f"{game.label(move)!r}: {answer}")
    if not report.record("contract.mutation", game.encode_state(state) == encoded, where):
        report.explain(
            "contract.mutation", f"applying {game.label(move)!r} changed the state it was given"
        )


def _read_back(game: AnyGame, raw: bytes) -> Any:
    """The move a client sending ``raw`` would submit, or the error reading it raised."""
    try:
        return game.move_from_proto(game.move_message.FromString(raw))
    except Exception as error:
        return f"{type(error).__name__}: {error}"
