"""What a change to a running match writes, worked out without I/O: a move (by id or payload)
or a forfeit becomes one :class:`serai.store.Commit` and the state after it.

Move ids are ``"<version>.<index>"``: the index in the plugin's ``legal_moves`` at that version,
so an id can never silently mean another move once the match has moved on.

A forfeit (a resignation, or a loss on time) ends the match at once (a game cannot in general go
on with a seat missing): the seats that lost rank last, tied, and every other seat shares first
place (rank 0); scores are all 0, since the game's own scoring applies only to a match played out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from serai.game import Game, IllegalMove, MalformedMove, Outcome, Seat
from serai.matches import events as event
from serai.matches.cache import Entry
from serai.matches.errors import MatchNotRunning, MoveNotFound, NotYourTurn, StaleVersion
from serai.matches.requests import quoted
from serai.matches.values import PackedMove
from serai.store import Commit, LogEntry, MatchRecord, SeatRecord, Status


class Deadlines(Protocol):
    """The turn clock's part in a commit (see :class:`serai.matches.clocks.Clocks`)."""

    def deadline(
        self,
        record: MatchRecord,
        running: bool,
        to_act: tuple[Seat, ...] = (),
        seats: tuple[SeatRecord, ...] | None = None,
    ) -> int | None: ...

    def idle_ms_with(self, record: MatchRecord, deadline: int | None) -> int: ...

    def spent(self, record: MatchRecord, mover: Seat) -> tuple[SeatRecord, ...] | None: ...


def plan_move(
    entry: Entry,
    seat: Seat,
    move_id: str,
    payload: PackedMove | None,
    expected_version: int,
    request_id: str,
    clocks: Deadlines,
) -> tuple[Commit, Any]:
    """Check and apply the move on ``entry``: the commit to write and the state after it."""
    record, game = entry.record, entry.game
    move = _chosen_move(entry, seat, move_id, payload, expected_version)
    state = game.apply(entry.state, seat, move)
    label = game.label(move)
    version = record.version + 1
    events = [event.moved(seat, label)]
    events += [event.announcement(said) for said in game.announcements(entry.state, state)]
    outcome = game.outcome(state)
    status: Status | None = None
    outcome_dict: dict[str, Any] | None = None
    if outcome is not None:
        status, outcome_dict = "finished", outcome_data(outcome)
        events.append(event.finished(outcome_dict))
    encoded = game.encode_state(state)
    move_bytes = game.move_to_proto(move).SerializeToString(deterministic=True)
    seats = clocks.spent(record, seat)  # a time bank drawn on past move_seconds
    to_act = tuple(game.to_act(state)) if record.bank_seconds else ()  # whose bank counts next
    deadline = clocks.deadline(record, outcome is None, to_act, seats)
    commit = Commit(
        state=encoded,
        seats=seats,
        status=status,
        outcome=outcome_dict,
        log=(LogEntry(version, seat, move_bytes),),
        events=events,
        request_seat=seat,
        request_id=request_id,
        answer=label,
        deadline_ms=deadline,
        idle_ms=clocks.idle_ms_with(record, deadline),
    )
    return commit, state


def _chosen_move(
    entry: Entry, seat: Seat, move_id: str, payload: PackedMove | None, expected_version: int
) -> Any:
    """The move ``seat`` asks for, by id or payload, once the match, the version and the turn
    allow it (else the error that says which does not)."""
    record, game = entry.record, entry.game
    match_id = record.match_id
    if record.status != "running":
        raise MatchNotRunning(not_running(record))
    if expected_version and expected_version != record.version:
        raise StaleVersion(
            f"the move was chosen at version {expected_version}, but match {match_id} is at "
            f"version {record.version}{lost_since(record, expected_version)}: fetch the match "
            "again and choose again"
        )
    # A move id names a version: listed at another one, it is stale (ABORTED) whoever's turn it
    # is now, and the id is checked before any game code runs.
    index = move_index(record, move_id) if move_id else 0
    to_act = game.to_act(entry.state)
    if seat not in to_act:
        waiting = ", ".join(map(str, to_act)) or "nobody"
        raise NotYourTurn(
            f"it is not seat {seat}'s turn in match {match_id} (waiting for seat {waiting}): "
            "Watch the match to learn when it is"
        )
    if not move_id:
        assert payload is not None
        return unpack(game, payload)
    moves = entry.legal_for(seat)
    if index >= len(moves):
        raise MoveNotFound(
            f"no move {move_id} at version {record.version}: there are {len(moves)} legal "
            "moves; take an id from ListLegalMoves"
        )
    return moves[index]


def move_index(record: MatchRecord, move_id: str) -> int:
    """The index in the seat's legal moves that a well-formed ``move_id`` (see
    :func:`serai.matches.requests.check_move_choice`) names, once it is known to name the
    record's version (StaleVersion for another version's)."""
    version_text, _, index_text = move_id.partition(".")
    if int(version_text) != record.version:
        raise StaleVersion(
            f"move id {move_id} was listed at version {version_text}, but match "
            f"{record.match_id} is at version {record.version}"
            f"{lost_since(record, int(version_text))}: list the legal moves again"
        )
    return int(index_text)


def lost_since(record: MatchRecord, version: int) -> str:
    """What to add when a client names a version the match has not reached: the server gave it
    (only it makes versions), so the store lost the moves after the record's version."""
    if version <= record.version:
        return ""
    return (
        f", behind the version {version} the server gave you: the store lost the moves after "
        f"version {record.version} (a store failover; see deploy/README.md, durability)"
    )


def plan_forfeit(record: MatchRecord, losers: tuple[Seat, ...], *, timed_out: bool) -> Commit:
    """End the match with ``losers`` last, tied: a resignation, or a loss on time (every seat
    still to act when time ran out)."""
    players = len(record.seats)
    why = "ran out of time" if timed_out else "resigned"
    named = " and ".join(map(str, losers))
    outcome = {
        "scores": [0] * players,
        "ranks": [players - len(losers) if s in losers else 0 for s in range(players)],
        "summary": f"seat{'s' if len(losers) > 1 else ''} {named} {why}",
    }
    seats = list(record.seats)
    if not timed_out:
        for seat in losers:
            seats[seat] = replace(seats[seat], resigned=True)
    version = record.version + 1
    ended = event.timed_out if timed_out else event.resigned
    return Commit(
        status="finished",
        seats=tuple(seats),
        outcome=outcome,
        log=[
            LogEntry(version, seat, None, "timed_out" if timed_out else "resigned")
            for seat in losers
        ],
        events=[*(ended(seat) for seat in losers), event.finished(outcome)],
        deadline_ms=0 if record.move_seconds else None,
    )


def barely_begun(record: MatchRecord) -> bool:
    """Fewer moves made than the match has seats (each join is a version, then each change)."""
    return record.version - len(record.seats) < len(record.seats)


def plan_cancel(record: MatchRecord, late: tuple[Seat, ...]) -> Commit:
    """End a match that had barely begun when ``late`` let their clock run out: cancelled, an
    abandoned match rather than a lost one, with no winner (and no rating)."""
    players = len(record.seats)
    named = " and ".join(map(str, late))
    outcome = {
        "scores": [0] * players,
        "ranks": [0] * players,
        "summary": f"cancelled: seat{'s' if len(late) > 1 else ''} {named} did not move in time",
        "cancelled": True,
    }
    version = record.version + 1
    return Commit(
        status="finished",
        outcome=outcome,
        log=[LogEntry(version, seat, None, "timed_out") for seat in late],
        events=[*(event.timed_out(seat) for seat in late), event.finished(outcome)],
        deadline_ms=0,
    )


def plan_end(record: MatchRecord, by: Seat | None = None) -> Commit:
    """End a running match from outside it (an operator), or cancel an open one before it
    starts (the operator, or ``by``, a seat of it): no one wins or loses, every seat shares first
    place with a score of 0. The log notes it (as seat 0's entry for the operator, else as
    ``by``'s), so that a replay and a transcript stop there."""
    players = len(record.seats)
    who = "the operator" if by is None else f"seat {by}"
    outcome = {
        "scores": [0] * players,
        "ranks": [0] * players,
        "summary": f"cancelled by {who} before it started"
        if record.status == "open"
        else f"ended by {who}",
        "cancelled": True,  # not played out: no winner, no rating
    }
    version = record.version + 1
    return Commit(
        status="finished",
        seats=record.seats,
        outcome=outcome,
        log=[LogEntry(version, 0 if by is None else by, None, "ended")],
        events=[event.finished(outcome)],
        deadline_ms=0 if record.move_seconds else None,
    )


def no_longer_legal(error: Exception) -> bool:
    """A failure that a lost race explains: the move fitted the version it was chosen at."""
    if isinstance(error, MalformedMove):
        return False
    return isinstance(error, IllegalMove | NotYourTurn | MatchNotRunning | MoveNotFound)


def outcome_data(outcome: Outcome) -> dict[str, Any]:
    """The outcome as stored in the record and sent in the ``finished`` event."""
    return {
        "scores": list(outcome.scores),
        "ranks": list(outcome.ranks),
        "summary": outcome.summary,
    }


def not_running(record: MatchRecord) -> str:
    """Why a match that is not running takes no move, and what to do instead."""
    if record.status == "open":
        free = [str(i) for i, s in enumerate(record.seats) if not s.joined]
        return (
            f"match {record.match_id} has not started: seat(s) {', '.join(free)} still to be "
            "joined; Watch it to learn when it starts"
        )
    return f"match {record.match_id} is over: no more moves; GetMatch shows the outcome"


def unpack(game: Game[Any, Any, Any], payload: PackedMove) -> Any:
    """The game's move from a typed payload; MalformedMove if it is not one."""
    expected = game.move_message.DESCRIPTOR.full_name
    got = payload.type_url.rpartition("/")[2]
    if got != expected:
        raise MalformedMove(
            f"the payload is a {quoted(got) if got else 'message of no type'}, but "
            f"{game.info.name} moves are {expected}: pack a {expected} into the Any"
        )
    limit = game.info.max_move_bytes  # before parsing: reading a move must cost next to nothing
    if len(payload.value) > limit:
        raise MalformedMove(
            f"the {expected} payload is {len(payload.value)} bytes; {game.info.name} moves are "
            f"at most {limit} bytes"
        )
    message = game.move_message()
    try:
        message.ParseFromString(payload.value)
    except Exception as error:  # google.protobuf.message.DecodeError and friends
        raise MalformedMove(f"the {expected} payload cannot be decoded: {error}") from None
    return game.move_from_proto(message)
