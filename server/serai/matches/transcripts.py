"""Transcripts: a match as one self-contained JSON document that anyone can check offline with the
game plugin installed (``serai verify``), so that a player need not trust the server's word.

A finished match's transcript holds the seed material (see :mod:`.fairness`), every move's bytes,
seat and label, and a hash chain over the encoded state: ``chain[0]`` hashes the deal, and each
move's ``state_hash`` the state after it, chained to the one before::

    h(0) = SHA-256("serai/v1/transcript" 0x00 || commitment || encoded deal)
    h(i) = SHA-256("serai/v1/transcript" 0x00 || h(i-1) || encoded state after move i)

A seat's transcript of a running match holds only what that seat saw: the seats, each move's seat
and label (every watcher sees those), and the bytes of its own moves; no seed material and no state
hashes (a hash of a state is a test any guess of the hidden cards could be checked against).

Each move lists the announcements it caused as the transcript's seat (or, with none, a spectator)
read them on Watch: a private one's text only for the seats it was addressed to, the others
reading what the rules let them see (``"withheld": true``), even in a finished match's transcript.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from serai.game import Announcement, Game, GameError, Private, Seat
from serai.matches import access, fairness, planning
from serai.matches.cache import Entry
from serai.matches.entries import Entries
from serai.matches.errors import BadRequest, Unauthenticated
from serai.store import LogEntry, MatchRecord

FORMAT = "serai-transcript/1"
CHAIN_PREFIX = b"serai/v1/transcript\x00"


def chain_hash(previous: bytes, encoded_state: bytes) -> bytes:
    """The next link of the hash chain: ``previous`` is the commitment (or b"") for the deal."""
    return hashlib.sha256(CHAIN_PREFIX + previous + encoded_state).digest()


def build(
    record: MatchRecord,
    game: Game[Any, Any, Any],
    log_entries: Sequence[LogEntry],
    seat: Seat | None,
) -> dict[str, Any]:
    """The transcript of a match: the whole of a finished one (``seat`` only names who asked),
    else what ``seat`` saw (a running or open match's transcript is a seat's, never the whole)."""
    finished = record.status == "finished"
    if not finished and seat is None:
        raise ValueError("a match not finished has only seats' transcripts")
    commitment = fairness.commitment(record.server_seed) if record.server_seed else b""
    document: dict[str, Any] = {
        "format": FORMAT,
        "match_id": record.match_id,
        "game": record.game,
        "plugin_version": game.info.version,
        "status": record.status,
        "options": dict(record.options),
        "seats": [
            {"seat": i, "player": s.name, "joined": s.joined} for i, s in enumerate(record.seats)
        ],
        "seed_chosen": record.seed_chosen,
        "seed_commitment": commitment.hex(),
    }
    if not finished:
        document["viewer_seat"] = seat
        state = game.setup(len(record.seats), record.seed, record.options)
        seen = []
        for item in log_entries:
            move_seen, state = _seen_move(game, state, item, seat)
            seen.append(move_seen)
        document["moves"] = seen
        return document
    document["seed"] = {
        "server_seed": record.server_seed.hex(),
        "seat_entropy": [s.entropy.hex() for s in record.seats],
        "seed": record.seed,
    }
    state = game.setup(len(record.seats), record.seed, record.options)
    link = chain_hash(commitment, game.encode_state(state))
    document["deal_hash"] = link.hex()
    moves = []
    for item in log_entries:
        entry: dict[str, Any] = {"version": item.version, "seat": item.seat}
        if item.ended is not None:
            entry["ended"] = item.ended
        else:
            move = _decode(game, item.move or b"")
            before, state = state, game.apply(state, item.seat, move)
            link = chain_hash(link, game.encode_state(state))
            entry |= {
                "move": base64.b64encode(item.move or b"").decode(),
                "label": game.label(move),
                "state_hash": link.hex(),
            }
            entry |= _announcements(game.announcements(before, state), seat)
        moves.append(entry)
    document["moves"] = moves
    document["outcome"] = dict(record.outcome) if record.outcome is not None else None
    return document


def _seen_move(
    game: Game[Any, Any, Any], state: Any, item: LogEntry, seat: Seat | None
) -> tuple[dict[str, Any], Any]:
    """A move as ``seat`` saw it: the seat and label (as Watch shows everyone), its bytes only
    when it is the seat's own, the announcements as it read them; and the state after it."""
    entry: dict[str, Any] = {"version": item.version, "seat": item.seat}
    if item.ended is not None:
        entry["ended"] = item.ended
        return entry, state
    move = _decode(game, item.move or b"")
    after = game.apply(state, item.seat, move)
    entry["label"] = game.label(move)
    if item.seat == seat:
        entry["move"] = base64.b64encode(item.move or b"").decode()
    entry |= _announcements(game.announcements(state, after), seat)
    return entry, after


def _announcements(said: Sequence[Announcement], seat: Seat | None) -> dict[str, Any]:
    """``{"announcements": [...]}`` as ``seat`` read them on Watch (nothing when none)."""
    read: list[dict[str, Any]] = []
    for announcement in said:
        if isinstance(announcement, Private):
            mine = seat in announcement.to
            shown: dict[str, Any] = {
                "text": announcement.read_by(seat),
                "to": list(announcement.to),
            }
            read.append(shown if mine else shown | {"withheld": True})
        else:
            read.append({"text": announcement})
    return {"announcements": read} if read else {}


def dumps(document: dict[str, Any]) -> str:
    """The transcript as JSON text."""
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


async def for_caller(
    entries: Entries, match_id: str, token: str, tenant: str | None = None
) -> dict[str, Any]:
    """GetTranscript: a seat's (with its token), or anyone's once the match is finished; only
    ``tenant``'s matches (see :func:`serai.matches.access.check_tenant`)."""
    entry = await entries.load(match_id)
    access.check_tenant(entry, tenant)
    seat = access.authenticate(entry, token)
    if seat is None and entry.record.status != "finished":
        raise Unauthenticated(
            f"match {match_id} is {entry.record.status}: until it is finished only its seats "
            "get a transcript; pass your seat_token, or ask again once it is over"
        )
    return await _built(entries, entry, seat)


async def for_operator(entries: Entries, match_id: str, seat: Seat | None) -> dict[str, Any]:
    """``serai export``: the whole of a finished match, or what ``seat`` saw of one not finished
    (the whole of that would show every hidden card)."""
    entry = await entries.load(match_id)
    record = entry.record
    if seat is not None and not 0 <= seat < len(record.seats):
        raise BadRequest(f"match {match_id} has seats 0 to {len(record.seats) - 1}, not {seat}")
    if seat is None and record.status != "finished":
        raise BadRequest(
            f"match {match_id} is {record.status}: its whole transcript would show every hidden "
            "card; export a seat's (--seat N), or the whole once it is finished"
        )
    return await _built(entries, entry, seat)


async def _built(entries: Entries, entry: Entry, seat: Seat | None) -> dict[str, Any]:
    return build(entry.record, entry.game, await entries.read_log(entry.record), seat)


def _decode(game: Game[Any, Any, Any], data: bytes) -> Any:
    message = game.move_message()
    message.ParseFromString(data)
    return game.move_from_proto(message)


@dataclass(frozen=True)
class Verdict:
    """What :func:`verify` found: ``ok``, and else ``where`` (e.g. "move 12 (version 15, seat
    1)", or "the seed") and ``problem``; ``notes`` are remarks that are not failures."""

    ok: bool
    where: str
    problem: str
    moves: int
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        notes = "".join(f"\nnote: {note}" for note in self.notes)
        if self.ok:
            return f"OK: {self.moves} moves replayed; the deal, every move and hash agree{notes}"
        return f"FAILED at {self.where}: {self.problem}{notes}"


class _Failed(Exception):
    def __init__(self, where: str, problem: str) -> None:
        super().__init__(problem)
        self.where, self.problem = where, problem


def verify(document: Any, games: Mapping[str, Game[Any, Any, Any]]) -> Verdict:
    """Replay a finished match's transcript with the installed ``games``: the commitment opens to
    the server seed, the seed is derived from it and the seats' entropy, each move is its seat's
    to make and legal, its label is the move's, and every state hash agrees; the first that does
    not is named."""
    notes: list[str] = []
    moves_done = 0
    try:
        game, seats, seed, commitment = _header(document, games, notes)
        state = game.setup(seats, seed, document["options"])
        link = chain_hash(commitment, game.encode_state(state))
        if _hex(document.get("deal_hash"), "the deal") != link:
            raise _Failed("the deal", "the hash of the deal differs (another seed or game rules)")
        resigned = False
        moves = document.get("moves")
        if not isinstance(moves, list):
            raise _Failed("the moves", "no list of moves")
        for number, entry in enumerate(moves, 1):
            state, link, ended = _check_move(game, state, link, entry, number)
            resigned = resigned or ended
            moves_done += 0 if ended else 1
        outcome = game.outcome(state)
        stated = document.get("outcome")
        if not resigned and (outcome is None) != (stated is None):
            raise _Failed("the end", "the plugin and the transcript disagree on whether it ended")
        if not resigned and outcome is not None and planning.outcome_data(outcome) != stated:
            raise _Failed("the end", "the outcome differs from the one the plugin gives")
    except _Failed as failure:
        return Verdict(False, failure.where, failure.problem, moves_done, tuple(notes))
    return Verdict(True, "", "", moves_done, tuple(notes))


def _header(
    document: Any, games: Mapping[str, Game[Any, Any, Any]], notes: list[str]
) -> tuple[Game[Any, Any, Any], int, int, bytes]:
    """(game, seat count, seed, commitment) once the header and the seed material check out."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _Failed("the header", f"not a transcript of the {FORMAT} format")
    if document.get("status") != "finished":
        raise _Failed(
            "the header",
            "the match was not finished when this was exported: it holds no seed material to "
            "replay; export it again once the match is over",
        )
    game = games.get(str(document.get("game")))
    if game is None:
        raise _Failed("the header", f"the game {document.get('game')!r} is not installed")
    if document.get("plugin_version") != game.info.version:
        notes.append(
            f"exported with {game.info.name} {document.get('plugin_version')}, replayed with "
            f"{game.info.version}"
        )
    material = document.get("seed")
    seats = document.get("seats")
    if not isinstance(material, dict) or not isinstance(seats, list):
        raise _Failed("the seed", "no seed material or no seats")
    seed = material.get("seed")
    if type(seed) is not int:
        raise _Failed("the seed", "the seed is not a number")
    commitment = _hex(document.get("seed_commitment"), "the seed")
    if document.get("seed_chosen"):
        notes.append("the creator chose the seed: the deal was not committed nor jointly random")
        return game, len(seats), seed, commitment
    server_seed = _hex(material.get("server_seed"), "the seed")
    entropy = material.get("seat_entropy")
    if not isinstance(entropy, list) or len(entropy) != len(seats):
        raise _Failed("the seed", "the seats' entropy is not one value per seat")
    if not server_seed:
        notes.append("a match made before committed deals: its seed cannot be checked")
        return game, len(seats), seed, commitment
    if not fairness.opens(commitment, server_seed):
        raise _Failed("the seed", "the server seed does not open the published commitment")
    parts = [_hex(part, "the seed") for part in entropy]
    if not any(parts):
        notes.append("no seat added entropy: the server alone could have chosen this deal")
    derived = fairness.match_seed(server_seed, parts)
    if derived != seed:
        raise _Failed(
            "the seed", "the seed is not the one derived from the server seed and entropy"
        )
    return game, len(seats), seed, commitment


def _check_move(
    game: Game[Any, Any, Any], state: Any, link: bytes, entry: Any, number: int
) -> tuple[Any, bytes, bool]:
    """(state, chain link, whether the seat lost here) after one move, or _Failed naming it."""
    if not isinstance(entry, dict):
        raise _Failed(f"move {number}", "not a move")
    seat = entry.get("seat")
    where = f"move {number} (version {entry.get('version')}, seat {seat})"
    if type(seat) is not int or not 0 <= seat < game.players(state):
        raise _Failed(where, "no such seat")
    if "ended" in entry:
        if entry["ended"] not in ("resigned", "timed_out", "ended"):
            raise _Failed(where, f"an unknown ending {entry['ended']!r}")
        return state, link, True
    try:
        data = base64.b64decode(str(entry.get("move")), validate=True)
        move = _decode(game, data)
    except Exception:  # whatever a damaged move's bytes make the plugin's decoder raise
        raise _Failed(where, "the move's bytes do not decode") from None
    # The server logs a move as its deterministic encoding: any other bytes are not what it logged.
    if game.move_to_proto(move).SerializeToString(deterministic=True) != data:
        raise _Failed(where, "the move's bytes are not the move's own encoding")
    if seat not in game.to_act(state):
        raise _Failed(where, "it was not this seat's turn")
    listed = {
        game.move_to_proto(m).SerializeToString(deterministic=True)
        for m in game.legal_moves(state, seat)
    }
    if data not in listed:
        raise _Failed(where, "the plugin does not list this move as legal there")
    if entry.get("label") != game.label(move):
        raise _Failed(
            where, f"the label is {entry.get('label')!r}, the plugin's {game.label(move)!r}"
        )
    try:
        state = game.apply(state, seat, move)
    except GameError as error:
        raise _Failed(where, f"the plugin refuses the move: {error}") from None
    link = chain_hash(link, game.encode_state(state))
    if _hex(entry.get("state_hash"), where) != link:
        raise _Failed(where, "the state hash differs from the state the plugin reaches")
    return state, link, False


def _hex(value: Any, where: str) -> bytes:
    try:
        return bytes.fromhex(str(value))
    except ValueError:
        raise _Failed(where, f"{str(value)[:20]!r} is not hex") from None
