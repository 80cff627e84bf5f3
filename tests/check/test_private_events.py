"""Private announcements reach only the seats they are addressed to, on every door a match leaves
by: Watch (read live, through the polling source and the hub, and caught up), Play, GetMatch,
GetTranscript and ``serai export``. The peek game's Watcher tells its player alone the card it
saw; the same match played where that private text differs must give every other seat and the
spectator the same bytes, and the watcher its own text."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import peek_game
import pytest
from serai.api import match_service_pb2 as pb
from serai.game import Private
from serai.registry import Registry
from waiting import wait_until

pytestmark = pytest.mark.store("memory")  # the core's doors; no redis-server needed

WATCHER_SEAT, OTHER_SEAT = 0, 1
PEEK = f"play a Watcher on seat {OTHER_SEAT}"


class Retold(peek_game.PeekGame):
    """The peek game with other words in what a private announcement tells seat 0 alone."""

    def announcements(self, before: Any, after: Any) -> Sequence[str | Private]:
        return [_retold(said) for said in super().announcements(before, after)]


def _retold(said: str | Private) -> str | Private:
    if isinstance(said, Private) and said.to == (WATCHER_SEAT,):
        return replace(said, text=f"{said.text} (retold)")
    return said


def _first_seed_with_a_watcher() -> int:
    """A seed where seat 0 holds a Watcher on its first turn (so it can peek at once)."""
    game = peek_game.PeekGame()
    return next(s for s in range(100) if peek_game.WATCHER in game.setup(2, s, {}).hands[0])


SEED = _first_seed_with_a_watcher()


@dataclass
class Received:
    """Everything one match sent, by door and viewer ("spectator", "seat 0", "seat 1")."""

    live: dict[str, list[bytes]] = field(default_factory=dict)
    """Events read while the match was played (batching varies: snapshots left out)."""
    caught_up: dict[str, list[bytes]] = field(default_factory=dict)
    """Watch and Play of the finished match, whole."""
    snapshots: dict[str, list[bytes]] = field(default_factory=dict)
    """GetMatch after every move."""
    transcripts: dict[str, str] = field(default_factory=dict)
    """GetTranscript and export, mid-match (after the peek) and at the end."""


VIEWERS = {"spectator": None, "seat 0": 0, "seat 1": 1}


def _event_bytes(event: pb.MatchEvent, *, snapshot: bool) -> bytes:
    """The event without what differs between two servers (ids, times, the match's id)."""
    event = copy.deepcopy(event)
    event.event_id = ""
    if event.HasField("snapshot") and snapshot:
        event.snapshot.ClearField("match")
        event.snapshot.last_event_id = ""
        event.snapshot.move_deadline_ms = 0
    else:
        event.ClearField("snapshot")
    return event.SerializeToString(deterministic=True)


def _update_bytes(update: pb.PlayUpdate, *, snapshot: bool) -> bytes:
    update = copy.deepcopy(update)
    if update.HasField("event"):
        update.event.CopyFrom(
            pb.MatchEvent.FromString(_event_bytes(update.event, snapshot=snapshot))
        )
    if not snapshot:
        update.ClearField("legal_moves")
    return update.SerializeToString(deterministic=True)


def _transcript(text: str) -> str:
    """The transcript without what differs between two servers (ids, times, seed material)."""
    document = json.loads(text)
    for key in ("match_id", "seed", "seed_commitment", "deal_hash"):
        document.pop(key, None)
    for seat in document["seats"]:
        seat.pop("joined", None)
    for move in document["moves"]:
        move.pop("state_hash", None)
    return json.dumps(document, sort_keys=True)


class Reader:
    """A stream read in a thread until it ends."""

    def __init__(self, stream: Iterable[Any], as_bytes: Callable[[Any], bytes]) -> None:
        self.stream, self.as_bytes = stream, as_bytes
        self.items: list[bytes] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for item in self.stream:
            self.items.append(self.as_bytes(item))

    def finish(self) -> list[bytes]:
        self.thread.join(60)
        assert not self.thread.is_alive(), "a stream did not end with its match"
        return self.items


def _play_open(match_id: str, token: str) -> Iterable[pb.PlayRequest]:
    return iter([pb.PlayRequest(open=pb.PlayOpen(match_id=match_id, seat_token=token))])


def play_the_match(start_service: Any, game: peek_game.PeekGame, *, hub: bool) -> Received:
    """Seat 0 peeks at seat 1's card first, then each seat plays its first legal move."""
    server = start_service(registry=Registry({"peek": game}))
    if hub:

        async def use_hub() -> Any:
            return server.matches.use_watch_hub(server.store.event_feed())

        watch_hub = server.run(use_hub())
    stub = server.stub()
    request = pb.CreateMatchRequest(game="peek", seats=2, seed=SEED)
    match_id = stub.CreateMatch(request).match.match_id
    tokens = [
        stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, player_name=f"p{i}")).seat_token
        for i in range(2)
    ]
    token_of = {"spectator": "", "seat 0": tokens[0], "seat 1": tokens[1]}
    got = Received()
    readers = {
        f"watch {name}": Reader(
            stub.Watch(pb.WatchRequest(match_id=match_id, seat_token=token)),
            lambda e: _event_bytes(e, snapshot=False),
        )
        for name, token in token_of.items()
    }
    readers |= {
        f"play {name}": Reader(
            stub.Play(_play_open(match_id, token_of[name])),
            lambda u: _update_bytes(u, snapshot=False),
        )
        for name in ("seat 0", "seat 1")
    }
    # Each stream has the events so far (created, 2 joined, started) before any move is made.
    wait_until(lambda: all(len(r.items) >= 4 for r in readers.values()), "the streams to start")
    peeked = False
    while True:
        for name, token in token_of.items():
            snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=token))
            snapshot.ClearField("match")
            snapshot.last_event_id = ""
            snapshot.move_deadline_ms = 0
            got.snapshots.setdefault(name, []).append(
                snapshot.SerializeToString(deterministic=True)
            )
        if not snapshot.to_act:
            break
        seat = snapshot.to_act[0]
        listed = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        ).moves
        pick = listed[0]
        if not peeked:
            assert seat == WATCHER_SEAT
            pick = next(move for move in listed if move.label == PEEK)
        stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[seat], move_id=pick.id)
        )
        if not peeked:
            peeked = True
            for name in ("seat 0", "seat 1"):
                asked = pb.GetTranscriptRequest(match_id=match_id, seat_token=token_of[name])
                got.transcripts[f"mid-match {name}"] = stub.GetTranscript(asked).transcript
                exported = server.run(server.matches.export(match_id, VIEWERS[name]))
                got.transcripts[f"mid-match export {name}"] = json.dumps(exported)
    got.live = {name: reader.finish() for name, reader in readers.items()}
    for name, token in token_of.items():
        watched = stub.Watch(pb.WatchRequest(match_id=match_id, seat_token=token))
        got.caught_up[f"watch {name}"] = [_event_bytes(e, snapshot=True) for e in watched]
        asked = pb.GetTranscriptRequest(match_id=match_id, seat_token=token)
        got.transcripts[f"end {name}"] = stub.GetTranscript(asked).transcript
        exported = server.run(server.matches.export(match_id, VIEWERS[name]))
        got.transcripts[f"end export {name}"] = json.dumps(exported)
        if token:
            played = stub.Play(_play_open(match_id, token))
            got.caught_up[f"play {name}"] = [_update_bytes(u, snapshot=True) for u in played]
    if hub:
        server.run(watch_hub.close())
    return got


def _for(got: Received, viewer: str) -> dict[str, Any]:
    """What ``viewer`` received on every door, normalized."""
    return {
        "live": {k: v for k, v in got.live.items() if k.endswith(viewer)},
        "caught_up": {k: v for k, v in got.caught_up.items() if k.endswith(viewer)},
        "snapshots": got.snapshots[viewer],
        "transcripts": {
            k: _transcript(v) for k, v in got.transcripts.items() if k.endswith(viewer)
        },
    }


_PLAYED: dict[str, tuple[Received, Received]] = {}


@pytest.fixture(params=["polling", "hub"])
def matches(request: pytest.FixtureRequest, start_service: Any) -> tuple[Received, Received]:
    """The match played twice (once per watch source for the module), the private text told
    seat 0 in other words the second time."""
    kind = request.param
    if kind not in _PLAYED:
        _PLAYED[kind] = (
            play_the_match(start_service, peek_game.PeekGame(), hub=kind == "hub"),
            play_the_match(start_service, Retold(), hub=kind == "hub"),
        )
    return _PLAYED[kind]


@pytest.mark.parametrize("viewer", ["spectator", "seat 1"])
def test_others_receive_the_same_bytes_whatever_the_private_text(matches, viewer):
    told, retold = matches
    mine, theirs = _for(told, viewer), _for(retold, viewer)
    for door in mine:
        assert mine[door] == theirs[door], f"{viewer} tells the private text apart by {door}"
    assert mine["live"] and mine["caught_up"] and mine["snapshots"] and mine["transcripts"]


def test_the_seat_told_receives_its_text_on_every_door(matches):
    told, retold = matches
    mine, theirs = _for(told, "seat 0"), _for(retold, "seat 0")
    for door in ("live", "caught_up", "transcripts"):
        for name, sent in mine[door].items():
            text = sent if isinstance(sent, str) else b"".join(sent).decode(errors="replace")
            assert f"seat {OTHER_SEAT} holds a " in text, (door, name)
            assert "(retold)" not in text, (door, name)
            other = theirs[door][name]
            other_text = other if isinstance(other, str) else b"".join(other).decode("latin-1")
            assert "(retold)" in other_text, (door, name)


def test_the_others_read_that_it_happened_and_for_whom(matches):
    told, _ = matches
    announcements = [
        event.announcement
        for sent in told.caught_up["watch seat 1"]
        if (event := pb.MatchEvent.FromString(sent)).HasField("announcement")
    ]
    peek = announcements[0]
    assert peek.text == f"seat {WATCHER_SEAT} looked at seat {OTHER_SEAT}'s card"
    assert list(peek.to_seats) == [WATCHER_SEAT] and peek.withheld
    mine = next(
        event.announcement
        for sent in told.caught_up["watch seat 0"]
        if (event := pb.MatchEvent.FromString(sent)).HasField("announcement")
    )
    assert mine.text.startswith(f"seat {OTHER_SEAT} holds a ") and not mine.withheld
    assert list(mine.to_seats) == [WATCHER_SEAT]
    document = json.loads(told.transcripts["end seat 1"])
    first = document["moves"][0]["announcements"][0]
    assert first == {"text": peek.text, "to": [WATCHER_SEAT], "withheld": True}


def test_a_private_announcement_must_name_its_seats():
    with pytest.raises(ValueError, match="`to` is a tuple of seats"):
        Private("a secret", to=())
    assert Private("a secret", to=(2,)).read_by(None) == "seat 2 was told something"
    assert Private("a secret", to=(0, 1)).read_by(1) == "a secret"


def test_a_stored_private_announcement_never_reaches_the_wire_unmade(matches):
    """Even the stored form's public text (what the others read) is all a converter could
    send: the told text is only under its own key."""
    from serai.matches import events
    from serai.rpc.convert import event as to_proto
    from serai.store import StoredEvent

    new = events.announcement(Private("secret card", to=(0,), others="seat 0 looked"))
    stored = StoredEvent("1-0", 3, new.kind, new.data)
    assert b"secret card" not in to_proto(stored).SerializeToString()
    (for_seat_1,) = events.seen_by([stored], 1)
    (for_seat_0,) = events.seen_by([stored], 0)
    assert b"secret card" not in to_proto(for_seat_1).SerializeToString()
    assert to_proto(for_seat_0).announcement.text == "secret card"


@pytest.mark.store("redis")
def test_on_redis_the_seat_told_alone_reads_it(start_service):
    """The same through the Redis store (its event encoding) and its stream-fed hub."""
    got = play_the_match(start_service, peek_game.PeekGame(), hub=True)
    for door in (got.live, got.caught_up):
        for name, sent in door.items():
            told = any(b"seat 1 holds a " in item for item in sent)
            assert told == name.endswith("seat 0"), name
    assert "holds a" not in got.transcripts["end export spectator"]
    assert "holds a" in got.transcripts["end export seat 0"]
