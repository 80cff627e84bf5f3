"""The workload floor.py and submit_cpu.py time: recorded Jaipur matches, replayed as SubmitMoves.

Over gRPC (``GrpcTable``) or through ``Matches`` in this process (``MatchesTable``) alike.
Recording plays each match once with ListLegalMoves and a random (seeded) SubmitMove by id and
keeps its seed and move ids. Replaying creates fresh matches with the same seeds, joins them and
builds each match's SubmitMove requests (move id, expected version, request id), as a bot would
send them; the server then computes the legal moves itself, as for any SubmitMove by id.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches import Matches


@dataclass
class Played:
    seed: int
    move_ids: list[tuple[int, str]]  # (seat, move id) in order


class Table(Protocol):
    """A way to play on serai: a gRPC stub (``GrpcTable``) or a ``Matches`` (``MatchesTable``)."""

    async def new_match(self, seed: int) -> tuple[str, list[str]]:
        """A two-seat Jaipur match, both seats joined: its id and the seat tokens."""
        ...

    async def to_act(self, match_id: str) -> list[int]: ...

    async def legal_moves(self, match_id: str, token: str) -> tuple[int, list[str]]:
        """(version, legal move ids) for the seat of ``token``."""
        ...

    async def submit(self, request: pb.SubmitMoveRequest) -> list[int]:
        """Make the move; the seats to act after it."""
        ...


class GrpcTable:
    def __init__(self, stub: pb_grpc.MatchServiceStub) -> None:
        self.stub = stub

    async def new_match(self, seed: int) -> tuple[str, list[str]]:
        created = await self.stub.CreateMatch(
            pb.CreateMatchRequest(game="jaipur", seats=2, seed=seed)
        )
        match_id = created.match.match_id
        tokens = []
        for seat in range(2):
            joined = await self.stub.JoinMatch(
                pb.JoinMatchRequest(match_id=match_id, seat=seat, player_name=f"bot{seat}")
            )
            tokens.append(joined.seat_token)
        return match_id, tokens

    async def to_act(self, match_id: str) -> list[int]:
        return list((await self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).to_act)

    async def legal_moves(self, match_id: str, token: str) -> tuple[int, list[str]]:
        listed = await self.stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
        )
        return listed.version, [move.id for move in listed.moves]

    async def submit(self, request: pb.SubmitMoveRequest) -> list[int]:
        return list((await self.stub.SubmitMove(request)).snapshot.to_act)


class MatchesTable:
    def __init__(self, matches: Matches) -> None:
        self.matches = matches

    async def new_match(self, seed: int) -> tuple[str, list[str]]:
        record = await self.matches.create("jaipur", seats=2, seed=seed)
        tokens = [(await self.matches.join(record.match_id, seat)).token for seat in range(2)]
        return record.match_id, tokens

    async def to_act(self, match_id: str) -> list[int]:
        return list((await self.matches.get(match_id)).to_act)

    async def legal_moves(self, match_id: str, token: str) -> tuple[int, list[str]]:
        listed = await self.matches.legal_moves(match_id, token)
        return listed.version, [move.id for move in listed.moves]

    async def submit(self, request: pb.SubmitMoveRequest) -> list[int]:
        done = await self.matches.submit(
            request.match_id,
            request.seat_token,
            move_id=request.move_id,
            expected_version=request.expected_version,
            request_id=request.request_id,
        )
        return list(done.snapshot.to_act)


async def record_matches(
    tables: Sequence[Table], count: int, seed: int, moves: int
) -> list[Played]:
    """Play ``count`` matches at once with ListLegalMoves + random SubmitMove (up to ``moves``
    moves each, 0: to the end), over every table in turn; their seeds and move ids."""
    moves = moves or 1_000_000

    async def one(index: int) -> Played:
        table = tables[index % len(tables)]
        rng = random.Random(f"{seed}:{index}")
        match_seed = seed * 100_000 + index
        match_id, tokens = await table.new_match(match_seed)
        to_act = await table.to_act(match_id)
        played: list[tuple[int, str]] = []
        while to_act and len(played) < moves:
            seat = to_act[0]
            version, move_ids = await table.legal_moves(match_id, tokens[seat])
            move_id = rng.choice(move_ids)
            to_act = await table.submit(
                pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=tokens[seat],
                    move_id=move_id,
                    expected_version=version,
                    request_id=f"r{index}-{len(played)}",
                )
            )
            played.append((seat, move_id))
        return Played(match_seed, played)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def submit_requests(
    tables: Sequence[Table], played: list[Played], tag: str
) -> list[list[pb.SubmitMoveRequest]]:
    """Fresh matches with the recorded seeds, joined (match ``i`` on table ``i % len(tables)``):
    each one's SubmitMove requests in order."""
    jobs = []
    for index, game in enumerate(played):
        match_id, tokens = await tables[index % len(tables)].new_match(game.seed)
        jobs.append(
            [
                pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=tokens[seat],
                    move_id=move_id,
                    expected_version=int(move_id.partition(".")[0]),
                    request_id=f"{tag}{index}-{n}",
                )
                for n, (seat, move_id) in enumerate(game.move_ids)
            ]
        )
    return jobs
