"""The shape of what a client sends (ids, names, limits), checked before any work is done.

Every check raises :class:`BadRequest` (or :class:`MatchNotFound` for a match id no match can
have) with a message that says what a good value looks like.
"""

from __future__ import annotations

import re
import unicodedata

from serai.matches.errors import BadRequest, MatchNotFound, MoveNotFound
from serai.matches.values import PackedMove
from serai.quoting import quoted  # here too, where the core has always taken it from

# Checked with fullmatch, in ASCII only: "$" would let a trailing newline through, and "\d" other
# scripts' digits, which int() and Redis then refuse.
MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
EVENT_ID = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")  # a Redis stream id: two 64-bit numbers
MAX_NAME = 64
MAX_MOVE_ID = 30  # 20 digits of version, a dot, 9 of index
MAX_TOKEN = 64  # the server makes 32-character seat tokens
CLIENT_ID = re.compile(r"[\x21-\x7e]{1,64}")
MAX_MOVE_SECONDS = 14 * 24 * 3600  # correspondence play: up to a fortnight a move
MAX_BANK_SECONDS = 30 * 24 * 3600  # a reserve of up to a month on top
MAX_REQUEST_ID = 128
MIN_SECRET_REQUEST_ID = 16  # JoinMatch's and CreateMatch's: a repeat gets their answer
REQUEST_ID = re.compile(rf"[\x21-\x7e]{{1,{MAX_REQUEST_ID}}}")


def check_match_id(match_id: str) -> None:
    if not match_id:
        raise BadRequest("match_id is empty: pass the id CreateMatch or ListMatches gave")
    if not MATCH_ID.fullmatch(match_id):
        raise MatchNotFound(f"no match {quoted(match_id)}: match ids are letters, digits, - and _")


def is_event_id(text: str) -> bool:
    parts = EVENT_ID.fullmatch(text)
    return parts is not None and all(int(part) < 2**64 for part in parts.groups())


def check_event_id(after_event_id: str) -> None:
    """A Watch's starting point: "" (every event) or an event id the server sent."""
    if after_event_id and not is_event_id(after_event_id):
        raise BadRequest(
            f"after_event_id {quoted(after_event_id)} is not an event id (like 1712345678901-0): "
            "pass an event_id the server sent, or nothing for every event"
        )


def check_request_id(request_id: str) -> None:
    if request_id and not REQUEST_ID.fullmatch(request_id):
        raise BadRequest(
            f"request_id must be 1 to {MAX_REQUEST_ID} printable ASCII characters without "
            "spaces (a UUID will do)"
        )


def check_secret_request_id(request_id: str, method: str, what: str) -> None:
    """A request id that answers to anyone who repeats it must be hard to guess."""
    check_request_id(request_id)
    if request_id and len(request_id) < MIN_SECRET_REQUEST_ID:
        raise BadRequest(
            f"a {method} request_id gives {what} to whoever repeats it: use a random one of at "
            f"least {MIN_SECRET_REQUEST_ID} characters (a UUID will do)"
        )


def check_client_id(client_id: str) -> None:
    if client_id and not CLIENT_ID.fullmatch(client_id):
        raise BadRequest("client_id must be 1 to 64 printable ASCII characters without spaces")


def check_move_seconds(move_seconds: int) -> None:
    if not 0 <= move_seconds <= MAX_MOVE_SECONDS:
        raise BadRequest(f"move_seconds must be 0 (no clock) to {MAX_MOVE_SECONDS}")


def check_clock_extras(bank_seconds: int, move_seconds: int, spectator_delay_moves: int) -> None:
    """A time bank needs a clock; both it and a spectator delay have bounds."""
    check_bank_seconds(bank_seconds, move_seconds)
    check_spectator_delay(spectator_delay_moves)


def check_bank_seconds(bank_seconds: int, move_seconds: int) -> None:
    if not 0 <= bank_seconds <= MAX_BANK_SECONDS:
        raise BadRequest(f"bank_seconds must be 0 (no time bank) to {MAX_BANK_SECONDS}")
    if bank_seconds and not move_seconds:
        raise BadRequest("bank_seconds needs a clock: set move_seconds too")


MAX_SPECTATOR_DELAY = 1000  # moves


def check_spectator_delay(moves: int) -> None:
    if not 0 <= moves <= MAX_SPECTATOR_DELAY:
        raise BadRequest(
            f"spectator_delay_moves must be 0 (no delay) to {MAX_SPECTATOR_DELAY} moves"
        )


def check_player_name(player_name: str) -> None:
    """A name others see in events and snapshots: printable text, so it cannot break a log line
    or a terminal, reorder the text around it (bidi overrides), or hide in invisible characters.
    "" is allowed (the seat is then called "seat N"); a name of spaces alone is not, since it
    shows as no name at all. The refusal names the character, never the whole name."""
    if len(player_name) > MAX_NAME:
        raise BadRequest(f"player_name is {len(player_name)} characters; at most {MAX_NAME}")
    for position, char in enumerate(player_name):
        what = _UNPRINTABLE.get(unicodedata.category(char))
        if what is not None:
            raise BadRequest(
                f"player_name holds {what} (U+{ord(char):04X}) at position {position}: "
                "a name must be printable text"
            )
    if player_name and player_name.isspace():
        raise BadRequest(
            "player_name is only spaces: give a name, or none to be called by the seat number"
        )


# The Unicode categories a name may not hold, and what to call them in the refusal.
_UNPRINTABLE = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (such as a bidi override or a zero-width space)",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Co": "a private-use character",
    "Cs": "a lone surrogate",
}


def check_move_choice(move_id: str, payload: PackedMove | None) -> None:
    """Exactly one of a move id (well formed: ``"<version>.<index>"``) or a payload."""
    if bool(move_id) == (payload is not None):
        raise BadRequest(
            "give exactly one of move_id (from ListLegalMoves) or payload (the game's Move)"
        )
    if not move_id:
        return
    # str methods, not a regex: this runs on every move. ASCII only ("²".isdigit() is true, and
    # int() refuses it), and short enough for int() to read.
    short = len(move_id) <= MAX_MOVE_ID
    version, dot, index = move_id.partition(".") if short else ("", "", "")
    if not (
        dot
        and move_id.isascii()
        and version.isdigit()
        and index.isdigit()
        and len(version) <= 20
        and len(index) <= 9
    ):
        raise MoveNotFound(
            f"{quoted(move_id)} is not a move id (they look like 12.3): take one from "
            "ListLegalMoves"
        )


def check_list_limit(limit: int) -> None:
    if limit < 0:
        raise BadRequest(f"limit must be 0 (for 50) or more, not {limit}")
