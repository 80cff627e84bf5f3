"""The Python SDK's part in fair play: each join adds random entropy to the committed deal, and a
seat (or anyone, once finished) gets the match's transcript, which ``serai verify`` accepts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from serai import registry
from serai.matches import fairness, transcripts
from serai.store import MatchRecord
from serai_client import AsyncSeraiClient, SeraiClient


def test_the_sdk_adds_fresh_entropy_to_each_join_and_gets_verifiable_transcripts(service: Any):
    with SeraiClient(service.address, timeout=10) as client:
        match = client.create_match("jaipur")
        seats = [client.join(match.match_id), client.join(match.match_id)]
        record = service.run(service.matches.store.load(match.match_id))
        assert isinstance(record, MatchRecord)
        entropy = [s.entropy for s in record.seats]
        assert [len(e) for e in entropy] == [16, 16] and entropy[0] != entropy[1]
        assert record.seed == fairness.match_seed(record.server_seed, entropy)

        seen = json.loads(client.transcript(seats[0]))
        assert seen["viewer_seat"] == 0 and "seed" not in seen
        client.resign(seats[1])
        whole = json.loads(client.transcript(match.match_id))
    assert transcripts.verify(whole, registry.load().games).ok

    async def from_the_async_client() -> str:
        async with AsyncSeraiClient(service.address, timeout=10) as sdk:
            return await sdk.transcript(match.match_id)

    assert json.loads(asyncio.run(from_the_async_client())) == whole
