"""Spectator delay: while a match created with ``spectator_delay_moves`` N runs, a spectator (no
seat token: GetMatch, Watch) sees it as it was N moves ago, so that nobody watching can relay to
a player what the last moves revealed. Seats see everything at once; once the match is
finished, everyone sees all of it (transcripts of a running match are only ever a seat's).

The delayed match is rebuilt from the seed and the log (:func:`serai.matches.replay.rebuild`),
once per version and process (kept on the entry); a delayed watch holds back each event until
the delayed match reaches its version (:func:`serai.matches.watching.delayed_batches`).
"""

from __future__ import annotations

from dataclasses import replace

from serai.matches.cache import Entry
from serai.matches.entries import Entries
from serai.matches.replay import rebuild

_CHUNK = 100  # events per read when finding the delayed match's last event


def delayed(entry: Entry) -> bool:
    """Whether spectators see this match late now (it runs, with a delay)."""
    record = entry.record
    return record.spectator_delay_moves > 0 and record.status == "running"


async def spectator_entry(entries: Entries, entry: Entry) -> Entry:
    """The match as a spectator may see it at ``entry``'s version: ``entry`` itself unless it is
    :func:`delayed`, else the match as it was ``spectator_delay_moves`` moves before (before the
    first move when fewer were made), with no deadline (it would tell when the last move was)."""
    if not delayed(entry):
        return entry
    if entry.spectator is not None:
        return entry.spectator
    record, game = entry.record, entry.game
    log = await entries.read_log(record)
    late = record.spectator_delay_moves
    if not log:
        upto = record.version
    elif len(log) > late:
        upto = log[-late - 1].version
    else:
        upto = log[0].version - 1  # the match as it started
    state, _resigned = rebuild(record, game, log, upto)
    seen = Entry(
        replace(
            record,
            version=upto,
            state=b"",
            deadline_ms=0,
            last_event_id=await _last_event_at(entries, record.match_id, upto),
        ),
        game,
        state,
    )
    entry.spectator = seen
    return seen


async def _last_event_at(entries: Entries, match_id: str, version: int) -> str:
    """The id of the match's last event at or before ``version``."""
    last, after = "", ""
    while True:
        events = await entries.store.read_events(match_id, after, count=_CHUNK)
        for event in events:
            if event.version > version:
                return last
            last = event.event_id
        if len(events) < _CHUNK:
            return last
        after = events[-1].event_id
