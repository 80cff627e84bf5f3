"""Protobuf messages from the lifecycle's values: the one place that knows both shapes.

The game's own views and moves are packed into ``google.protobuf.Any`` as the plugin encodes
them; nothing here decides anything about a match. Example::

    message = snapshot(await matches.get(match_id, token))   # a pb.MatchSnapshot
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf import any_pb2

from serai.api import match_service_pb2 as pb
from serai.game import GameInfo, OptionSpec, TableGuide
from serai.matches import fairness
from serai.matches.replay import Steps
from serai.matches.values import Snapshot
from serai.presentation import presentation
from serai.store import MatchRecord, Status, StoredEvent

STATUS_TO_PB: dict[Status, pb.MatchStatus] = {
    "open": pb.MATCH_STATUS_OPEN,
    "running": pb.MATCH_STATUS_RUNNING,
    "finished": pb.MATCH_STATUS_FINISHED,
}
PB_TO_STATUS: dict[pb.MatchStatus, Status] = {value: key for key, value in STATUS_TO_PB.items()}
POLICY_FROM_PB = {
    pb.TIMEOUT_POLICY_UNSPECIFIED: "lose",
    pb.TIMEOUT_POLICY_LOSE: "lose",
    pb.TIMEOUT_POLICY_DEFAULT_MOVE: "default_move",
    pb.TIMEOUT_POLICY_LOSE_OR_CANCEL: "lose_or_cancel",
}
POLICY_TO_PB = {policy: number for number, policy in POLICY_FROM_PB.items() if number}
TYPE_URL_PREFIX = "type.googleapis.com/"  # Any.Pack's default


def option_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def game_info(info: GameInfo) -> pb.GameInfo:
    return pb.GameInfo(
        name=info.name,
        title=info.title,
        min_players=info.min_players,
        max_players=info.max_players,
        version=info.version,
        summary=info.summary,
        playable=info.playable,
        options=[_game_option(spec) for spec in info.options],
        guide=_guide(info.guide),
    )


def _guide(guide: TableGuide) -> pb.TableGuide:
    return pb.TableGuide(
        how_to_play=guide.how_to_play,
        zones=dict(guide.zones),
        looks=[
            pb.ItemLook(word=look.word, colour=look.colour, symbol=look.symbol, help=look.help)
            for look in guide.looks
        ],
    )


def _game_option(spec: OptionSpec) -> pb.GameOption:
    option = pb.GameOption(
        name=spec.name,
        description=spec.description,
        default_value=option_text(spec.default),
        choices=[option_text(choice) for choice in spec.choices],
    )
    if spec.bounds:
        option.minimum, option.maximum = spec.bounds
    return option


def summary(record: MatchRecord) -> pb.MatchSummary:
    message = pb.MatchSummary(
        match_id=record.match_id,
        game=record.game,
        status=STATUS_TO_PB[record.status],
        seats=[
            pb.SeatInfo(
                seat=i, player_name=s.name, joined=s.joined, resigned=s.resigned, bank_ms=s.bank_ms
            )
            for i, s in enumerate(record.seats)
        ],
        version=record.version,
        options={name: option_text(value) for name, value in record.options.items()},
        created_at_ms=record.created_ms,
        move_seconds=record.move_seconds,
        timeout_policy=(
            POLICY_TO_PB[record.timeout_policy]
            if record.move_seconds
            else pb.TIMEOUT_POLICY_UNSPECIFIED
        ),
        seed_chosen=record.seed_chosen,
        bank_seconds=record.bank_seconds,
        spectator_delay_moves=record.spectator_delay_moves,
    )
    if record.server_seed:
        message.seed_commitment = fairness.commitment(record.server_seed)
    if record.status == "finished":
        message.seed_reveal.CopyFrom(seed_reveal(record))
    return message


def seed_reveal(record: MatchRecord) -> pb.SeedReveal:
    """The seed material of a match: only ever sent once it is finished."""
    return pb.SeedReveal(
        server_seed=record.server_seed,
        seat_entropy=[s.entropy for s in record.seats],
        seed=record.seed,
    )


def outcome(data: Mapping[str, Any]) -> pb.Outcome:
    ranks = list(data["ranks"])
    cancelled = bool(data.get("cancelled"))
    return pb.Outcome(
        scores=list(data["scores"]),
        ranks=ranks,
        winners=[] if cancelled else [seat for seat, rank in enumerate(ranks) if rank == 0],
        summary=data.get("summary", ""),
        cancelled=cancelled,
    )


def pack_view(target: any_pb2.Any, snap: Snapshot) -> None:
    """Set ``target`` as ``Any.Pack(view_to_proto(view), deterministic=True)`` would, from
    Game.view_bytes (which a game may give without building the message, as Jaipur does)."""
    game = snap.game
    target.type_url = TYPE_URL_PREFIX + game.view_message.DESCRIPTOR.full_name
    entry = snap.entry
    if entry is not None and entry.game is game and entry.view_for(snap.viewer_seat) is snap.view:
        target.value = entry.view_bytes_for(snap.viewer_seat)  # kept for the version and seat
    else:
        target.value = game.view_bytes(snap.view)


def snapshot(snap: Snapshot, *, presented: bool = False) -> pb.MatchSnapshot:
    """The snapshot as the wire's message; ``presented``: with the view described for people."""
    view = any_pb2.Any()
    pack_view(view, snap)
    message = pb.MatchSnapshot(
        match=summary(snap.record),
        version=snap.version,
        to_act=list(snap.to_act),
        view=view,
        last_event_id=snap.record.last_event_id,
        move_deadline_ms=snap.record.deadline_ms if snap.to_act else 0,
    )
    if snap.viewer_seat is not None:
        message.viewer_seat = snap.viewer_seat
    if snap.outcome is not None:
        message.outcome.CopyFrom(outcome(snap.outcome))
    if presented:
        message.presentation.CopyFrom(presentation(snap.game, view.value))
    return message


def event(stored: StoredEvent) -> pb.MatchEvent:
    message = pb.MatchEvent()
    fill_event(message, stored)
    return message


def fill_event(message: pb.MatchEvent, stored: StoredEvent) -> None:
    """``message`` (empty; e.g. a field of a larger message) made what :func:`event` builds."""
    message.event_id = stored.event_id
    message.version = stored.version
    data = stored.data
    kind = stored.kind
    if kind == "created":
        message.created.CopyFrom(pb.MatchCreated(game=data["game"], seats=data["seats"]))
    elif kind == "joined":
        message.joined.CopyFrom(pb.SeatJoined(seat=data["seat"], player_name=data["name"]))
    elif kind == "started":
        message.started.CopyFrom(pb.MatchStarted())
    elif kind == "move":
        message.move.CopyFrom(pb.MovePlayed(seat=data["seat"], label=data["label"]))
    elif kind == "announcement":
        # Private ones arrive made for this watcher (serai.matches.events.seen_by).
        message.announcement.CopyFrom(
            pb.Announcement(
                text=data["text"], to_seats=data.get("to", ()), withheld=data.get("withheld", False)
            )
        )
    elif kind == "resigned":
        message.resigned.CopyFrom(pb.SeatResigned(seat=data["seat"]))
    elif kind == "finished":
        message.finished.CopyFrom(pb.MatchFinished(outcome=outcome(data["outcome"])))
    elif kind == "timed_out":
        message.timed_out.CopyFrom(
            pb.SeatTimedOut(seat=data["seat"], default_move=data.get("move", ""))
        )


def replay_steps(steps: Steps) -> pb.GetReplayResponse:
    """A finished match step by step, each view described for people (see GetReplay)."""
    message = pb.GetReplayResponse(
        match=summary(steps.record),
        deal_checked=steps.check.ok,
        deal_check=str(steps.check),
    )
    for step in steps.steps:
        out = message.steps.add(
            version=step.version,
            label=step.label,
            presentation=presentation(steps.game, step.view),
        )
        if step.seat is not None:
            out.seat = step.seat
    return message
