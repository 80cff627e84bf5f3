"""The lifecycle's quick copy of a record is ``dataclasses.replace``, value for value."""

from __future__ import annotations

import dataclasses

import pytest
from serai.matches.entries import evolved as _evolved
from serai.store import MatchRecord, SeatRecord

RECORD = MatchRecord(
    match_id="m1",
    game="jaipur",
    options={"rounds": 3},
    seed=3,
    created_ms=1_700_000_000_123,
    status="running",
    version=4,
    seats=(SeatRecord("ann", True, False, "a" * 64), SeatRecord("bob", True, False, "b" * 64)),
    state=b"state",
    last_event_id="1700000000123-4",
    move_seconds=30,
    deadline_ms=1_700_000_030_000,
)


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"version": 5, "state": b"after", "last_event_id": "1700000000200-0"},
        {"status": "finished", "outcome": {"scores": [1, 0]}, "deadline_ms": 0},
    ],
)
def test_an_evolved_record_is_the_record_replace_gives(changes: dict[str, object]) -> None:
    evolved = _evolved(RECORD, **changes)
    assert evolved == dataclasses.replace(RECORD, **changes)  # type: ignore[arg-type]
    assert type(evolved) is MatchRecord and evolved is not RECORD
    assert RECORD.version == 4 and RECORD.state == b"state"  # the original is untouched


def test_an_evolved_record_is_as_frozen_as_any():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _evolved(RECORD, version=5).version = 6  # type: ignore[misc]


def test_the_record_has_nothing_an_instance_dict_copy_would_skip():
    # _evolved copies vars(); a __post_init__ or __slots__ on MatchRecord would need replace.
    assert not hasattr(MatchRecord, "__post_init__")
    assert not hasattr(MatchRecord, "__slots__")
    assert set(vars(RECORD)) == {field.name for field in dataclasses.fields(MatchRecord)}
