"""The terminal player: a person plays a seat, seeing exactly what the seat's view holds.

The screen is drawn with ``rich`` from the snapshot the server sent for the seat — the market,
the hand, the herd, the tokens, the opponent's public state (never their hand: the view does not
hold it), the numbered legal moves and the log of events. Input goes through a small
:class:`InputLayer`, so that a test can drive a whole match with :class:`ScriptedInput` and read
the screen from a recording console.

Example::

    player = TerminalPlayer(client, seat, ConsoleInput(), Console())
    player.run()
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Protocol

from google.protobuf import text_format
from google.protobuf.message import Message
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from serai.api import match_service_pb2 as pb

from serai_client.client import SeraiClient
from serai_client.errors import IllegalMoveError, SeraiError, StaleVersionError
from serai_client.types import Event, LegalMoves, SeatHandle, Snapshot, event_is_after


class InputLayer(Protocol):
    """Where the player's answers come from. ``ask`` raises EOFError when there are no more."""

    def ask(self, prompt: str) -> str: ...


class ConsoleInput:
    """Answers typed at the terminal."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()

    def ask(self, prompt: str) -> str:
        return self.console.input(f"[bold]{prompt}[/] ")


class ScriptedInput:
    """Answers from a list, for tests; EOFError once they run out. ``prompts`` records each ask."""

    def __init__(self, answers: Iterable[str]) -> None:
        self._answers: Iterator[str] = iter(answers)
        self.prompts: list[str] = []

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self._answers)
        except StopIteration:
            raise EOFError("no more scripted answers") from None


HELP = "a number plays that move; r redraws; q resigns"


class TerminalPlayer:
    """Plays ``seat`` for a person until the match ends (or input ends)."""

    def __init__(
        self,
        client: SeraiClient,
        seat: SeatHandle,
        inputs: InputLayer,
        console: Console,
        *,
        log_size: int = 12,
    ) -> None:
        self.client = client
        self.seat = seat
        self.inputs = inputs
        self.console = console
        self.log: deque[str] = deque(maxlen=log_size)
        self._last_event = ""
        self.message = ""

    def run(self) -> Snapshot:
        """Play until the match is over; the final snapshot. EOF on input stops, not resigning."""
        snapshot = self.client.get_match(self.seat)
        if snapshot.proto.match.seed_chosen:
            self.console.print(
                "[yellow]This match's seed was chosen by whoever created it, who can work out "
                "every hand from it: play it only with someone you trust.[/]"
            )
        try:
            while not snapshot.finished:
                self._catch_up(snapshot)
                if snapshot.acts(self.seat.seat):
                    snapshot = self._turn(snapshot)
                else:
                    self.draw(snapshot, None)
                    self.console.print("[dim]waiting for the other seat...[/]")
                    snapshot = self._wait(snapshot)
        except EOFError:
            return self.client.get_match(self.seat)
        self._catch_up(snapshot)
        self.draw(snapshot, None)
        return snapshot

    # --- one turn --------------------------------------------------------------------------------

    def _turn(self, snapshot: Snapshot) -> Snapshot:
        moves = self.client.legal_moves(self.seat)
        if moves.version != snapshot.version:
            return self.client.get_match(self.seat)
        self.draw(snapshot, moves)
        answer = self.inputs.ask(f"your move (1-{len(moves)}, r, q):").strip().lower()
        if answer in ("q", "quit", "resign"):
            if self.inputs.ask("resign the match? (y/n)").strip().lower().startswith("y"):
                return self.client.resign(self.seat)
            return snapshot
        if answer in ("r", ""):
            return self.client.get_match(self.seat)
        if not answer.isdigit() or not 1 <= int(answer) <= len(moves):
            self.message = f"'{answer}' is not a move: {HELP}"
            return snapshot
        chosen = moves.moves[int(answer) - 1]
        try:
            result = self.client.submit(self.seat, chosen.id, expected_version=moves.version)
        except StaleVersionError:
            self.message = "the match moved on before your move arrived: choose again"
            return self.client.get_match(self.seat)
        except IllegalMoveError as error:
            self.message = f"refused: {error}"
            return self.client.get_match(self.seat)
        self.message = f"you played: {result.label}"
        return result.snapshot

    def _wait(self, snapshot: Snapshot) -> Snapshot:
        events = self.client.watch(self.seat, self._last_event)
        try:
            for event in events:
                self._record(event)
                fresh = event.snapshot
                if fresh is not None and fresh.version >= snapshot.version:
                    snapshot = fresh
                    if snapshot.finished or snapshot.acts(self.seat.seat):
                        return snapshot
        finally:
            events.close()
        return self.client.get_match(self.seat)

    def _catch_up(self, snapshot: Snapshot) -> None:
        """Read the events up to the snapshot's newest into the log."""
        until = snapshot.last_event_id
        if not until or not event_is_after(until, self._last_event):
            return
        events = self.client.watch(self.seat, self._last_event)
        try:
            for event in events:
                self._record(event)
                if not event_is_after(until, event.id):
                    break
        finally:
            events.close()

    def _record(self, event: Event) -> None:
        self._last_event = event.id
        self.log.append(event.describe())

    # --- the screen ------------------------------------------------------------------------------

    def draw(self, snapshot: Snapshot, moves: LegalMoves | None) -> None:
        self.console.print(self.screen(snapshot, moves))
        if self.message:
            self.console.print(self.message)
            self.message = ""

    def screen(self, snapshot: Snapshot, moves: LegalMoves | None) -> RenderableType:
        """Everything on screen for one snapshot (and the moves, when it is the seat's turn)."""
        parts: list[RenderableType] = [self._header(snapshot)]
        if snapshot.view is not None and snapshot.view.DESCRIPTOR.full_name == JAIPUR_VIEW:
            parts.extend(render_view(snapshot.view, self.seat.seat))
        else:  # every other game as the server describes it for people
            described = self.client.get_match(self.seat, presentation=True).proto.presentation
            parts.extend(render_presentation(described, self.seat.seat))
        if moves is not None:
            parts.append(render_moves(moves))
        if self.log:
            parts.append(Panel("\n".join(self.log), title="log", title_align="left"))
        if snapshot.outcome is not None:
            parts.append(Panel(Text(result_line(snapshot, self.seat.seat)), title="result"))
        return Group(*parts)

    def _header(self, snapshot: Snapshot) -> Text:
        if snapshot.finished:
            turn = "match over"
        elif snapshot.acts(self.seat.seat):
            turn = "your turn"
        else:
            turn = "seat " + ", ".join(map(str, snapshot.to_act)) + " to act"
        return Text(
            f"{snapshot.game} · match {snapshot.match_id} · you are seat {self.seat.seat} · "
            f"version {snapshot.version} · {turn}",
            style="bold",
        )


def result_line(snapshot: Snapshot, seat: int) -> str:
    outcome = snapshot.outcome
    if outcome is None:
        return ""
    verdict = "you win" if seat in outcome.winners else "you lose"
    return f"{outcome.summary} — {verdict}"


def render_moves(moves: LegalMoves, columns: int | None = None) -> Table:
    """The legal moves, numbered from 1; in two columns when there are many."""
    columns = columns or (2 if len(moves) > 16 else 1)
    table = Table(title="your moves", title_justify="left", show_header=False, box=None)
    for _ in range(columns):
        table.add_column(justify="right", style="cyan")
        table.add_column()
    rows = -(-len(moves) // columns)
    for row in range(rows):
        cells: list[str] = []
        for column in range(columns):
            index = column * rows + row
            if index < len(moves):
                cells += [f"{index + 1}.", moves.moves[index].label]
            else:
                cells += ["", ""]
        table.add_row(*cells)
    return table


JAIPUR_VIEW = "serai.games.jaipur.v1.View"


def render_presentation(described: pb.Presentation, seat: int) -> list[RenderableType]:
    """A presentation as one compact table: a row per zone, its items on one wrapped line."""
    table = Table(show_header=False, box=None, padding=(0, 1))
    table.add_column(style="bold", no_wrap=True, max_width=26)
    table.add_column()
    for zone in described.zones:
        mine = zone.HasField("owner") and zone.owner == seat
        table.add_row(Text(zone.title, style="green" if mine else ""), _items(zone))
    title = described.headline or "table"
    return [Panel(table, title=title, title_align="left")]


def _items(zone: pb.Zone) -> str:
    texts = []
    for item in zone.items:
        if item.kind == "text" or (item.count == 0 and item.value):
            texts.append(f"{item.label}: {item.value}" if item.value else item.label)
            continue
        count = f"{item.count}x " if item.count != 1 or item.hidden else ""
        hidden = " (hidden)" if item.hidden else ""
        value = f" [{item.value}]" if item.value else ""
        texts.append(f"{count}{item.label}{hidden}{value}")
    return ", ".join(texts) or "—"


def render_view(view: Message | None, seat: int) -> list[RenderableType]:
    """The view drawn for people: Jaipur by hand, any other game as its message text."""
    if view is None:
        return []
    if view.DESCRIPTOR.full_name == "serai.games.jaipur.v1.View":
        from serai_client.jaipur_screen import jaipur_panels

        return jaipur_panels(view, seat)  # type: ignore[arg-type]
    return [Panel(text_format.MessageToString(view), title="view", title_align="left")]


def play_match(
    client: SeraiClient, seat: SeatHandle, inputs: InputLayer, console: Console
) -> Snapshot:
    """Run a :class:`TerminalPlayer` and say how it ended."""
    try:
        return TerminalPlayer(client, seat, inputs, console).run()
    except SeraiError as error:
        console.print(f"[red]{type(error).__name__}: {error}[/]")
        raise
