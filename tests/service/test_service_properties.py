"""Properties of the match lifecycle, with two replicas on one store and careless clients (on the
in-memory store, which tests/store/test_store_contract.py holds to Redis's behaviour).

Whatever mix of replicas, stale versions, repeated request ids and illegal moves the clients send,
the stored match is exactly the plugin's state after the moves that were accepted, each accepted
once, and ``replay`` reproduces it.
"""

from __future__ import annotations

import asyncio

from google.protobuf import any_pb2, wrappers_pb2
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from serai.game import IllegalMove
from serai.matches import MatchError, Matches, PackedMove
from serai.store.memory import MemoryStore
from tiny_game import DECK, TinyGame, tiny_registry

attempt = st.tuples(
    st.integers(0, 1),  # the replica the client talks to
    st.sampled_from(["turn", "turn", "turn", 0, 1, 2]),  # whose token: often a seat to act
    st.integers(0, 5),  # which card: an index into the seat's hand, or a card nobody holds
    st.sampled_from(["current", "current", "stale", "none"]),  # expected_version
    st.sampled_from(["", "new", "repeat"]),  # request id
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attempts=st.lists(attempt, min_size=1, max_size=40), seed=st.integers(0, 10**6))
def test_accepted_moves_are_applied_once_and_replay_reproduces_the_match(attempts, seed):
    accepted, replayed = asyncio.run(_scenario(attempts, seed))
    event(f"moves accepted: {min(accepted, 4)}{'+' if accepted >= 4 else ''}")
    event(f"retries answered from memory: {min(replayed, 1)}+")


async def _scenario(attempts, seed):
    game, games = TinyGame(), tiny_registry()
    store = MemoryStore()  # shared: each replica keeps its own cache of the match
    replicas = [Matches(store, games) for _ in range(2)]
    options = {"hand": "4", "plays": "4", "simultaneous": str(seed % 2 == 0).lower()}
    record = await replicas[0].create("tiny", seats=3, seed=seed, options=options)
    match_id = record.match_id
    tokens = [(await replicas[i % 2].join(match_id)).token for i in range(3)]
    state = game.setup(3, seed, game.resolve_options(options))
    version = 3
    accepted = replayed = 0
    accepted_ids = {}  # seat -> the request id of its last accepted move that had one
    for number, (replica, whose, card_index, expected, request) in enumerate(attempts):
        to_act = game.to_act(state)
        seat = whose if whose != "turn" else to_act[number % len(to_act)] if to_act else 0
        hand = state.hands[seat]
        card = hand[card_index] if card_index < len(hand) else DECK[-1 - card_index]
        payload = any_pb2.Any()
        payload.Pack(wrappers_pb2.StringValue(value=card))
        request_id = {"": "", "new": f"r{number}", "repeat": accepted_ids.get(seat, "")}[request]
        repeat = request == "repeat" and bool(request_id)
        legal = seat in game.to_act(state) and card in hand
        try:
            done = await replicas[replica].submit(
                match_id,
                tokens[seat],
                payload=PackedMove(payload.type_url, payload.value),
                expected_version={"current": version, "stale": version - 1, "none": 0}[expected],
                request_id=request_id,
            )
        except (MatchError, IllegalMove):
            assert not repeat, "a repeated request id must answer its first answer"
            continue
        assert done.replayed == repeat
        if repeat:
            replayed += 1
            continue
        assert legal and expected != "stale"
        state = game.apply(state, seat, card)
        version += 1
        accepted += 1
        assert done.snapshot.version == version
        if request_id:
            accepted_ids[seat] = request_id
    stored = await store.load(match_id)
    assert stored.version == version
    assert stored.state == game.encode_state(state)
    assert len(await store.read_log(match_id)) == accepted
    report = await replicas[1].replay(match_id)
    assert report.ok and report.moves == accepted
    await store.close()
    return accepted, replayed
