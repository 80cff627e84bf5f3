"""The open phase of a match: making it, and claiming its seats until every one is taken.

A repeated CreateMatch or JoinMatch with the same ``request_id`` (a client retrying after a lost
answer) gets the first one's answer and changes nothing; the ids and tokens this takes are kept
only as hashes (see :mod:`.request_ids`).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import structlog

from serai.game import NotPlayable, Seat
from serai.matches import access, fairness, requests
from serai.matches import events as event
from serai.matches.cache import Entry
from serai.matches.clocks import Clocks
from serai.matches.entries import Change, Entries
from serai.matches.errors import (
    BadRequest,
    LimitExceeded,
    MatchNotFound,
    MatchNotRunning,
    SeatTaken,
    StaleVersion,
)
from serai.matches.limits import NO_LIMITS, Limits
from serai.matches.match_ids import new_match_id
from serai.matches.request_ids import created_match_id, join_id_of, seal
from serai.matches.requests import quoted
from serai.matches.values import Joined
from serai.store import (
    Commit,
    MatchIdTaken,
    MatchRecord,
    SeatRecord,
    TimeoutPolicy,
)

# Placeholder states kept (see Seating._placeholder): a few games, counts and option sets.
_PLACEHOLDERS_KEPT = 64


class Seating:
    """CreateMatch and JoinMatch."""

    def __init__(
        self,
        entries: Entries,
        clocks: Clocks,
        *,
        allow_chosen_seeds: bool,
        limits: Limits = NO_LIMITS,
    ) -> None:
        self.entries = entries
        self.clocks = clocks
        self.allow_chosen_seeds = allow_chosen_seeds
        # 0: no limit, for each
        self.limits = limits
        self._placeholders: dict[tuple[str, int, tuple[tuple[str, Any], ...]], tuple[Any, bytes]]
        self._placeholders = {}

    async def create(
        self,
        game: str,
        seats: int = 0,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        *,
        client_id: str = "",
        move_seconds: int = 0,
        timeout_policy: TimeoutPolicy = "lose",
        bank_seconds: int = 0,
        request_id: str = "",
        quota_key: str = "",
        tenant: str = "",
        max_open: int | None = None,
        spectator_delay_moves: int = 0,
    ) -> MatchRecord:
        """A new open match. ``seats`` 0 means the game's smallest player count.

        ``move_seconds`` > 0 gives it a turn clock, ``bank_seconds`` each seat a time bank on top
        (see :mod:`.clocks`); ``spectator_delay_moves`` shows spectators the match that many moves
        late (see :mod:`.spectating`). The match counts against three limits of unfinished
        matches (see :meth:`_claim`): the caller's (``quota_key``, e.g. ``peer:10.0.0.7``), the
        ``client_id``'s (a courtesy limit among cooperating bots), and the whole store's.
        ``tenant`` (the caller's API key's name) owns the match: only calls with that key see it;
        ``max_open`` replaces the per-caller limit for this caller (None: the server's).

        With a ``request_id``, the match id is derived from it, so a retried create answers the
        match the first one made, as it is now, instead of making a second one."""
        self._check_create(client_id, move_seconds, seed, request_id)
        requests.check_clock_extras(bank_seconds, move_seconds, spectator_delay_moves)
        match_id = created_match_id(client_id, request_id, tenant) if request_id else new_match_id()
        plugin, players, resolved = self._game_as_asked(game, seats, options)
        seed_chosen = seed is not None
        seed, state, encoded = self._first_deal(game, plugin, players, resolved, seed)
        record = MatchRecord(
            match_id=match_id,
            game=game,
            options=resolved,
            seed=seed,
            created_ms=self.clocks.now_ms(),
            status="open",
            version=0,
            seats=tuple(SeatRecord() for _ in range(players)),
            state=encoded,
            client_id=client_id,
            move_seconds=move_seconds,
            timeout_policy=timeout_policy,
            bank_seconds=bank_seconds,
            seed_chosen=seed_chosen,
            server_seed=b"" if seed_chosen else fairness.new_server_seed(),
            tenant=tenant,
            spectator_delay_moves=spectator_delay_moves,
        )
        if (made := await self._claimed(record, quota_key, max_open, request_id)) is not None:
            return made
        return await self._store_new(Entry(record, plugin, state), tenant if request_id else None)

    def _first_deal(
        self, game: str, plugin: Any, players: int, resolved: dict[str, Any], seed: int | None
    ) -> tuple[int, Any, bytes]:
        """The seed, state and its bytes a new match starts from. Without a chosen seed the deal
        is committed: the game deals from the seed derived at the start (see _Join), and is set
        up from a placeholder meanwhile."""
        if seed is None:
            state, encoded = self._placeholder(game, plugin, players, resolved)
            return fairness.PLACEHOLDER_SEED, state, encoded
        state = plugin.setup(players, seed, resolved)
        return seed, state, plugin.encode_state(state)

    def _game_as_asked(
        self, game: str, seats: int, options: Mapping[str, str] | None
    ) -> tuple[Any, int, dict[str, Any]]:
        """The game's plugin, the number of seats (0: its smallest) and its options resolved."""
        plugin = self.entries.game(game)
        if not plugin.info.playable:
            raise NotPlayable(
                f"{plugin.info.title} is registered but not playable yet; "
                "ListGames says which games are"
            )
        players = seats or plugin.info.min_players
        plugin.check_players(players)
        return plugin, players, plugin.resolve_options(dict(options or {}))

    def _check_create(
        self, client_id: str, move_seconds: int, seed: int | None, request_id: str
    ) -> None:
        requests.check_client_id(client_id)
        requests.check_move_seconds(move_seconds)
        if seed is not None and not self.allow_chosen_seeds:
            raise BadRequest(
                "this server does not take chosen seeds (whoever chose one could work out the "
                "deal): leave seed unset"
            )
        requests.check_secret_request_id(request_id, "CreateMatch", "the match it made")

    async def _claimed(
        self, record: MatchRecord, quota_key: str, max_open: int | None, request_id: str
    ) -> MatchRecord | None:
        """The new match's places claimed (see :meth:`_claim`): None, or the match a retry made.

        A retry is found by the create itself (the id is taken), not by a load before every
        create: a round trip fewer per set-up. Its claims change nothing (a place is held by the
        match id, which an unfinished match already holds); a finished match holds none, so a
        retry of one may be refused a place, and is answered with the match all the same."""
        try:
            await self._claim(record, quota_key, max_open)
        except LimitExceeded:
            if request_id and (made := await self._made_before(record.match_id, record.tenant)):
                return made
            raise
        return None

    async def _made_before(self, match_id: str, tenant: str) -> MatchRecord | None:
        """The match a create with this request id already made (a retry), as it is now."""
        first = await self.entries.store.load(match_id)
        if not isinstance(first, MatchRecord):
            return None
        entry = self.entries.remember(first)
        access.check_tenant(entry, tenant)
        await self.entries.index_again(first)
        return entry.record

    async def _store_new(self, entry: Entry, tenant: str | None) -> MatchRecord:
        """Store a new open match and its ``created`` event, cached and listed as open; when
        its id is taken and ``tenant`` is given (an id derived from a request id, for that
        tenant), the match that id made, as it is now (see :meth:`_made_before`)."""
        entries, store, record = self.entries, self.entries.store, entry.record
        players = len(record.seats)
        if entries.follow is not None:  # before: a replica killed after the create lost nothing
            await entries.follow(record)
        try:
            last = await store.create(
                record,
                [event.created(record.game, players)],
                idle_ms=self.clocks.idle_ms_with(record, None),
                listed=True,
            )
        except MatchIdTaken:
            made = None if tenant is None else await self._made_before(record.match_id, tenant)
            if made is None:
                raise
            return made  # the same request, retried (here or on another replica)
        record = replace(record, last_event_id=last)
        entries.cache.put(Entry(record, entry.game, entry.state))
        return record

    def _placeholder(
        self, name: str, plugin: Any, players: int, options: Mapping[str, Any]
    ) -> tuple[Any, bytes]:
        """The state (and its bytes) an open match with a committed deal shows until it starts:
        the same for every such match of one game, player count and options, so it is set up
        and encoded once (states are immutable), not on every create."""
        key = (name, players, tuple(sorted(options.items())))
        made = self._placeholders.get(key)
        if made is None:
            state = plugin.setup(players, fairness.PLACEHOLDER_SEED, options)
            made = (state, plugin.encode_state(state))
            if len(self._placeholders) >= _PLACEHOLDERS_KEPT:
                self._placeholders.clear()  # options beyond the usual few: start again
            self._placeholders[key] = made
        return made

    async def _claim(
        self, record: MatchRecord, quota_key: str, max_open: int | None = None
    ) -> None:
        """Count the match, about to be made, against each limit of unfinished matches, or raise
        LimitExceeded (having given back the places already claimed) for the first it would pass.

        Each claim is one atomic step in the store, so creates on any replica never pass a limit
        together. A caller's own limits come first: the one who is over them is refused before
        the server-wide cap is touched. A claim whose create then fails is dropped after a while.
        """
        store, match_id, now_ms = self.entries.store, record.match_id, record.created_ms
        client_id = record.client_id
        limits = self.limits
        if client_id and limits.max_open_matches > 0:
            most = limits.max_open_matches
            open_now = await store.claim_open_slot(client_id, match_id, now_ms, most)
            if open_now is not None:
                raise LimitExceeded(
                    f"client {quoted(client_id)} already has {open_now} unfinished matches, the "
                    f"most this server allows ({most}): finish or resign some first"
                )
        else:
            client_id = ""  # nothing claimed for it
        per_peer = limits.max_open_per_peer if max_open is None else max_open
        if quota_key and per_peer > 0:
            open_now = await store.claim_quota_slot(quota_key, match_id, now_ms, per_peer)
            if open_now is not None:
                await store.release_open_slots(match_id, client_id=client_id)
                raise LimitExceeded(
                    f"this caller ({_caller(quota_key)}) already has {open_now} unfinished "
                    f"matches, the most this server allows one caller "
                    f"({per_peer}): finish or resign some first (a new client_id "
                    "does not reset this limit)"
                )
        else:
            quota_key = ""
        if limits.max_open_total > 0:
            most = limits.max_open_total
            open_now = await store.claim_unfinished_slot(match_id, now_ms, most)
            if open_now is not None:
                await store.release_open_slots(match_id, client_id=client_id, quota_key=quota_key)
                raise LimitExceeded(
                    f"this server already holds {open_now} unfinished matches, the most it "
                    f"allows ({most}): join an open match (ListMatches), or try again once some "
                    "have finished"
                )

    async def join(
        self,
        match_id: str,
        seat: Seat | None = None,
        player_name: str = "",
        *,
        request_id: str = "",
        entropy: bytes = b"",
        tenant: str | None = None,
        player_id: str = "",
        player_key: str = "",
    ) -> Joined:
        """Claim ``seat`` (the lowest free one when None); the match starts when all are taken.

        ``player_id`` (the ``sub`` of a player token the caller's app signed, checked by the
        service) binds the seat to that player, who may :meth:`reclaim` it later and finds the
        match among theirs; a player holds at most one seat of a match. ``player_key``: the same
        given as its :func:`~serai.matches.access.player_key` (the matchmaking queue keeps no
        player id as such), used when ``player_id`` is empty.

        ``entropy`` (at most :data:`~serai.matches.fairness.MAX_ENTROPY` bytes) goes into the
        seed of a match with a committed deal (see :mod:`.fairness`); a match with a chosen seed
        ignores it.

        With a ``request_id``, a repeated join (a client retrying after a lost answer) answers
        the seat and token the first one claimed, whatever its seat and name say, and changes
        nothing; without one, a retry claims another seat. The seat keeps a hash of the id and
        the token sealed with a key derived from the id, so the store never holds either."""
        requests.check_player_name(player_name)
        requests.check_secret_request_id(request_id, "JoinMatch", "the seat token")
        if len(entropy) > fairness.MAX_ENTROPY:
            raise BadRequest(
                f"entropy is {len(entropy)} bytes; at most {fairness.MAX_ENTROPY} are taken "
                "(16 random bytes are plenty)"
            )
        requests.check_match_id(match_id)
        entry = self.entries.cache.get(match_id)
        look_again = None
        if entry is None or self.clocks.overdue(entry):
            entry = await self.clocks.current(match_id)
        else:  # as SubmitMove: plan on the cached match (often this process's own create),
            look_again = self.clocks.current  # and let the commit's compare-and-set say if stale
        access.check_tenant(entry, tenant)
        player = access.player_key(player_id) if player_id else player_key
        join = _Join(self, match_id, seat, player_name, request_id, entropy, player)
        joined = await self.entries.change(entry, join, look_again)
        if player:  # after the commit: a failure here leaves the seat theirs, unlisted
            record = joined.record
            await self.entries.store.index_player(
                record.tenant, player, record.match_id, record.created_ms
            )
        return joined

    async def reclaim(self, match_id: str, player_id: str, tenant: str | None = None) -> Joined:
        """The seat ``player_id`` holds in the match, with a new token: the seat's earlier token
        stops working (on every replica: the next commit or read finds the new record).
        MatchNotFound when the player holds no seat there; MatchNotRunning once it finished
        (a finished match's snapshot and transcript need no seat token)."""
        requests.check_match_id(match_id)
        entry = await self.clocks.current(match_id)
        access.check_tenant(entry, tenant)
        return await self.entries.change(entry, _Reclaim(access.player_key(player_id)))


def _caller(quota_key: str) -> str:
    """A quota key as an error message shows it to the caller it names: ``peer:10.0.0.7`` is
    "10.0.0.7" (its own address; nobody else sees the message)."""
    if quota_key.startswith("key:"):
        return f"API key {quota_key.removeprefix('key:')}"
    return quota_key.removeprefix("peer:")


class _Join(Change[Joined]):
    """A JoinMatch through the compare-and-set loop."""

    __slots__ = (
        "answer",
        "asked",
        "entropy",
        "join_id",
        "player",
        "player_name",
        "request_id",
        "seat",
        "seating",
        "token",
    )

    def __init__(
        self,
        seating: Seating,
        match_id: str,
        seat: Seat | None,
        player_name: str,
        request_id: str,
        entropy: bytes = b"",
        player: str = "",
    ) -> None:
        self.seating = seating
        self.entropy = entropy
        self.player = player  # access.player_key of the player to bind the seat to ("": none)
        self.asked = seat  # None: the lowest free one, found again at each attempt
        self.seat: Seat | None = None  # the seat the last plan chose
        self.player_name = player_name
        self.request_id = request_id
        self.join_id = join_id_of(match_id, request_id) if request_id else ""
        self.token = secrets.token_urlsafe(24)
        self.answer: Joined | None = None  # what a repeat of this join answers

    def plan(self, entry: Entry) -> tuple[Commit, Any] | None:
        record = entry.record
        match_id, request_id = record.match_id, self.request_id
        join_id = self.join_id
        if join_id:
            self.answer = access.joined_by(record, join_id, request_id)
            if self.answer is not None:
                return None
        chosen = self._seat_to_take(record)
        seats = list(record.seats)
        name = self.player_name or f"seat {chosen}"
        token = self.token
        seats[chosen] = SeatRecord(
            name=name,
            joined=True,
            token_hash=access.token_hash(token),
            join_id=join_id,
            sealed_token=seal(token, match_id, request_id) if request_id else "",
            entropy=self.entropy if record.server_seed else b"",
            player=self.player,
            bank_ms=record.bank_seconds * 1000,
        )
        events = [event.joined(chosen, name)]
        starts = all(s.joined for s in seats)
        state, encoded, seed = entry.state, None, None
        if starts:
            events.append(event.started())
            if record.server_seed:  # the committed deal is dealt now, from every seat's part
                seed = fairness.match_seed(record.server_seed, [s.entropy for s in seats])
                game = entry.game
                state = game.setup(len(seats), seed, record.options)
                encoded = game.encode_state(state)
        clocks = self.seating.clocks
        to_act = tuple(entry.game.to_act(state)) if starts else ()
        deadline = clocks.deadline(record, starts, to_act, tuple(seats))
        commit = Commit(
            state=encoded,
            seats=tuple(seats),
            status="running" if starts else None,
            events=events,
            deadline_ms=deadline,
            idle_ms=clocks.idle_ms_with(record, deadline),
            seed=seed,
        )
        self.seat = chosen
        return commit, state

    def _seat_to_take(self, record: MatchRecord) -> Seat:
        """The seat asked for (else the lowest free one), if this player may take it now."""
        match_id = record.match_id
        if self.player:
            held = access.player_seat(record, self.player)
            if held is not None:
                raise SeatTaken(
                    f"this player already holds seat {held} of match {match_id}: ReclaimSeat "
                    "gives its seat token again"
                )
        free = [i for i, s in enumerate(record.seats) if not s.joined]
        if record.status != "open" or not free:
            raise SeatTaken(
                f"every seat of match {match_id} is taken (it is {record.status}): "
                "create a new match, or watch this one as a spectator"
            )
        chosen = free[0] if self.asked is None else self.asked
        if not 0 <= chosen < len(record.seats):
            raise BadRequest(
                f"match {match_id} has seats 0 to {len(record.seats) - 1}, not {chosen}"
            )
        if record.seats[chosen].joined:
            raise SeatTaken(
                f"seat {chosen} of match {match_id} is taken; free seats: "
                f"{', '.join(map(str, free))} (or leave the seat unset for the lowest free one)"
            )
        return chosen

    def done(self, entry: Entry, commit: Commit) -> Joined:
        assert self.seat is not None  # the commit was planned for it
        structlog.contextvars.bind_contextvars(seat=self.seat)
        return Joined(self.seat, self.token, entry.record)

    async def settled(self, entry: Entry) -> Joined:
        assert self.answer is not None  # the join that was made
        await self.seating.entries.index_again(entry.record)
        structlog.contextvars.bind_contextvars(seat=self.answer.seat)
        return self.answer

    def exhausted(self, entry: Entry) -> Joined:
        # Another join (perhaps this very one, retried on another replica) came first each time.
        raise StaleVersion(
            f"match {entry.record.match_id} changed too often while joining; try again"
        )


class _Reclaim(Change[Joined]):
    """A ReclaimSeat through the compare-and-set loop: the player's seat gets a new token."""

    __slots__ = ("player", "seat", "token")

    def __init__(self, player: str) -> None:
        self.player = player  # access.player_key of the player
        self.token = secrets.token_urlsafe(24)
        self.seat: Seat | None = None

    def plan(self, entry: Entry) -> tuple[Commit, Any] | None:
        record = entry.record
        seat = access.player_seat(record, self.player)
        if seat is None:
            raise MatchNotFound(
                f"this player holds no seat of match {record.match_id}: JoinMatch with the "
                "player token takes one"
            )
        if record.status == "finished":
            raise MatchNotRunning(
                f"match {record.match_id} is finished: GetMatch and GetTranscript show it "
                "without a seat token"
            )
        seats = list(record.seats)
        # The join's request id no longer answers: its sealed token is the old one.
        seats[seat] = replace(
            seats[seat],
            token_hash=access.token_hash(self.token),
            join_id="",
            sealed_token="",
            replaced_token=seats[seat].token_hash,
        )
        self.seat = seat
        # An event, so that watchers see the version this makes (move ids name versions).
        commit = Commit(
            seats=tuple(seats),
            events=[event.reclaimed(seat)],
        )
        return commit, entry.state

    def done(self, entry: Entry, commit: Commit) -> Joined:
        assert self.seat is not None  # the commit was planned for it
        structlog.contextvars.bind_contextvars(seat=self.seat)
        return Joined(self.seat, self.token, entry.record)

    def exhausted(self, entry: Entry) -> Joined:
        raise StaleVersion(
            f"match {entry.record.match_id} changed too often while reclaiming the seat; try again"
        )
