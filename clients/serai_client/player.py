"""The terminal player: a person plays a seat of any game, seeing what the seat's view holds.

Each screen is laid out by :mod:`serai_client.table_screen` from the presentation the server
sends with the seat's snapshot (zones of labelled cards, counts and values), so every game is
drawn without game code, and never shows more than the view (the opponent's hand is a count).
A move is picked step by step from the paths of choices listed with the legal moves
(:mod:`serai_client.step_picker`), with ``b`` to go back a step; Enter alone or ``r`` redraws
the screen and keeps the steps picked so far. Seats are called by their players' names. Until
every seat is taken no table is drawn: the deal is made when the match starts, so a hand shown
before would change under the person's eyes.

The seat is played over one Play stream where the server has it: the events, the presented
snapshots and, on the seat's turn, its legal moves arrive on it, and the moves (and a
resignation) go out on it. A server without Play (UNIMPLEMENTED) is played with GetMatch,
Watch, ListLegalMoves and SubmitMove instead; the screens are the same either way.

The screen goes to a :class:`Display` and the answers come from an :class:`InputLayer`, so a
test drives a whole match with :class:`ScriptedInput` and reads each screen from a
:class:`RecordingDisplay`; at a terminal, :class:`TerminalDisplay` redraws in place in the
alternate screen, at the terminal's size.

Example::

    player = TerminalPlayer(client, seat, ConsoleInput(console), TerminalDisplay(console))
    player.run()
"""

from __future__ import annotations

import os
import queue
import select
import sys
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

import grpc
from rich.console import Console
from rich.text import Text
from serai.api import match_service_pb2 as pb

from serai_client.client import PlaySession, SeraiClient
from serai_client.errors import IllegalMoveError, SeraiError, StaleVersionError
from serai_client.step_picker import StepPicker
from serai_client.table_screen import Frame, compose
from serai_client.types import (
    Event,
    LegalMove,
    LegalMoves,
    PlayAnswer,
    PlayUpdate,
    SeatHandle,
    Snapshot,
    event_is_after,
)
from serai_client.words import seat_names, with_names

SEED_WARNING = (
    "this match's seed was chosen by whoever created it, who can work out every hand: "
    "play only with someone you trust"
)
HELP = "a number picks · b back · m more · r redraw · q resign"
REMATCH_QUESTION = "r: rematch, q: quit"
REMATCH_WAIT = "rematch: waiting for the others to ask for it too"
RESIGN = "resign"
"""What a turn ends with besides a move: the person resigned (and confirmed)."""
NOT_DEALT = "the cards are dealt once every seat is taken"


class InputLayer(Protocol):
    """Where the player's answers come from. ``ask`` raises EOFError when there are no more.
    ``withdraw`` (from any thread) says no answer is wanted any more (the match is over): an
    ``ask`` waiting then, or made after, raises EOFError; ``reopen`` wants answers again (the
    rematch question, the next match)."""

    def ask(self, prompt: str) -> str: ...

    def withdraw(self) -> None: ...

    def reopen(self) -> None: ...


class ConsoleInput:
    """Answers typed at the terminal, on its last line. Where stdin is a file descriptor that
    ``select`` can wait on (not on Windows), a question is withdrawn as soon as the match ends,
    though nothing was typed; elsewhere :meth:`withdraw` holds from the next question."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()
        self._withdrawn = threading.Event()
        self._wake_read, self._wake_write = os.pipe()  # wakes a question's select
        self._typed = b""  # what was read past the last answer's line

    def ask(self, prompt: str) -> str:
        if self._withdrawn.is_set():
            raise EOFError("no answer is wanted any more")
        try:
            typed = sys.stdin.fileno()
            select.select([typed], [], [], 0)
        except (AttributeError, OSError, ValueError):
            return self.console.input(f"[bold]{prompt}[/] ")
        self.console.print(f"[bold]{prompt}[/] ", end="")
        while b"\n" not in self._typed:
            ready, _, _ = select.select([typed, self._wake_read], [], [])
            if self._wake_read in ready:
                raise EOFError("no answer is wanted any more")
            chunk = os.read(typed, 4096)
            if not chunk:
                if not self._typed:
                    raise EOFError("stdin is closed")
                break
            self._typed += chunk
        line, _, self._typed = self._typed.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")

    def withdraw(self) -> None:
        self._withdrawn.set()
        os.write(self._wake_write, b"!")

    def reopen(self) -> None:
        self._withdrawn.clear()
        os.set_blocking(self._wake_read, False)
        try:
            while os.read(self._wake_read, 64):  # the wake-ups of the withdrawals before
                pass
        except BlockingIOError:
            pass
        finally:
            os.set_blocking(self._wake_read, True)


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

    def withdraw(self) -> None:
        """Nothing to do: a scripted answer never waits."""

    def reopen(self) -> None:
        """Nothing to do: see :meth:`withdraw`."""


class Display(Protocol):
    """Where screens go. ``size`` is (columns, lines); ``show`` replaces the screen."""

    @property
    def size(self) -> tuple[int, int]: ...

    def show(self, lines: Sequence[Text]) -> None: ...


class TerminalDisplay:
    """Redraws the whole screen in place (in the alternate screen while the player runs)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    @property
    def size(self) -> tuple[int, int]:
        width, height = self.console.size
        return width, height

    def show(self, lines: Sequence[Text]) -> None:
        self.console.clear()
        self.console.print(Text("\n").join(lines), overflow="crop", no_wrap=True, crop=True)


class RecordingDisplay:
    """Keeps every screen as plain text lines, for tests: ``screens[-1]`` is the one shown."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.size = (width, height)
        self.screens: list[list[str]] = []

    def show(self, lines: Sequence[Text]) -> None:
        self.screens.append([line.plain for line in lines])

    @property
    def text(self) -> str:
        return "\n\n".join("\n".join(screen) for screen in self.screens)


class TerminalPlayer:
    """Plays ``seat`` for a person until the match ends (or input ends).

    ``seed_is_yours``: the person chose the match's seed, so there is nothing to warn about;
    ``rematch``: the match is a rematch (the others join it by asking for it too).
    """

    def __init__(
        self,
        client: SeraiClient,
        seat: SeatHandle,
        inputs: InputLayer,
        display: Display,
        *,
        seed_is_yours: bool = False,
        rematch: bool = False,
    ) -> None:
        self.client = client
        self.rematch = rematch
        self.seat = seat
        self.inputs = inputs
        self.display = display
        self.seed_is_yours = seed_is_yours
        # The log's lines, each with whether its "seat N" reads as the player's name when drawn
        # (not a join's "as seat N": the name is already there).
        self.log: deque[tuple[str, bool]] = deque(maxlen=20)
        self._last_event = ""
        self.message = ""
        self.connection = ""  # what the reachability watcher says, while it matters
        self._frame: Frame | None = None
        self._prompting = False
        self._lock = threading.Lock()

    def run(self) -> Snapshot:
        """Play until the match is over; the final snapshot. EOF on input stops, not resigning."""
        try:
            return self._run_over_play()
        except SeraiError as error:
            if error.code != grpc.StatusCode.UNIMPLEMENTED or self._last_event:
                raise
        return self._run_unary()

    def _run_unary(self) -> Snapshot:
        """:meth:`run` on a server without Play: GetMatch, Watch, ListLegalMoves, SubmitMove."""
        snapshot = self._fetch()
        if snapshot.proto.match.seed_chosen and not self.seed_is_yours:
            self.message = SEED_WARNING
        try:
            while not snapshot.finished:
                self._catch_up(snapshot)
                if snapshot.acts(self.seat.seat):
                    snapshot = self._turn(snapshot)
                else:
                    self.draw(snapshot)
                    snapshot = self._wait(snapshot)
        except EOFError:
            return self.client.get_match(self.seat)
        self._catch_up(snapshot)
        self.draw(snapshot)
        return snapshot

    def wants_rematch(self, final: Snapshot) -> bool:
        """Ask, on the finished match's screen, whether to play the same players again (each
        of them asks: :meth:`serai_client.client.SeraiClient.rematch`): True for ``r``, False
        for ``q`` or when input ends."""
        self.inputs.reopen()
        while True:
            self.draw(final)
            try:
                answer = self._ask(REMATCH_QUESTION).strip().lower()
            except EOFError:
                return False
            if answer in ("r", "rematch"):
                return True
            if answer in ("q", "quit"):
                return False
            if answer:
                said = answer if len(answer) <= 12 else answer[:11] + "…"
                self.message = f"'{said}' is not an answer: {REMATCH_QUESTION}"

    def say(self, text: str) -> None:
        """A line from outside (the connection's state): shown at once unless a prompt is open."""
        with self._lock:
            self.connection = "" if text.startswith(("reconnected", "connected")) else text
            frame = self._frame
            if frame is not None and not self._prompting:
                frame.status = self.connection or text
                self._show(frame)

    # --- one turn --------------------------------------------------------------------------------

    def _turn(self, snapshot: Snapshot) -> Snapshot:
        moves = self.client.legal_moves(self.seat)
        if moves.version != snapshot.version:
            return self._fetch()
        chosen = self._choose(snapshot, moves)
        if not isinstance(chosen, LegalMove):
            self.client.resign(self.seat)
            return self._fetch()
        try:
            result = self.client.submit(self.seat, chosen.id, expected_version=moves.version)
        except StaleVersionError:
            self.message = "the match moved on before your move arrived: choose again"
            return self._fetch()
        except IllegalMoveError as error:
            self.message = f"refused: {error}"
            return self._fetch()
        self.message = f"you played: {result.label}"
        return self._fetch()

    def _choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove | str:
        """The person's move, step by step; or RESIGN (confirmed)."""
        picker = StepPicker(moves)
        page = 0
        while True:
            choices = picker.choices()
            self.draw(snapshot, picker=picker, page=page)
            answer = self._ask(f"your move (1-{len(choices)}, b, q):").strip().lower()
            if answer in ("q", "quit", "resign"):
                if self._ask("resign the match? (y/n)").strip().lower().startswith("y"):
                    return RESIGN
                continue
            if answer in ("r", ""):
                continue  # drawn again at the top, the steps picked so far kept
            if answer in ("b", "back"):
                if not picker.back():
                    self.message = "nothing to go back to: this is the first step"
                page = 0
                continue
            if answer in ("m", "more", ">"):
                page += 1
                continue
            if not answer.isdigit() or not 1 <= int(answer) <= len(choices):
                said = answer if len(answer) <= 12 else answer[:11] + "…"
                self.message = f"'{said}' is not on the list: {HELP}"
                continue
            chosen = picker.pick(int(answer) - 1)
            page = 0
            if chosen is not None:
                return chosen

    def _ask(self, prompt: str) -> str:
        with self._lock:
            self._prompting = True
        try:
            return self.inputs.ask(prompt)
        finally:
            with self._lock:
                self._prompting = False

    def _wait(self, snapshot: Snapshot) -> Snapshot:
        events = self.client.watch(self.seat, self._last_event)
        try:
            for event in events:
                self._record(event)
                fresh = event.snapshot
                if fresh is not None and fresh.version >= snapshot.version:
                    if fresh.finished or fresh.acts(self.seat.seat):
                        return self._fetch()
                    snapshot = self._fetch()
                    self.draw(snapshot)
        finally:
            events.close()
        return self._fetch()

    def _fetch(self) -> Snapshot:
        return self.client.get_match(self.seat, presentation=True)

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
        if event.kind == "joined":
            joined = event.proto.joined
            name = joined.player_name or "someone"
            self.log.append((f"{name} joined as seat {joined.seat}", False))
        elif event.kind == "started":
            self.log.append(("the match started: the cards are dealt", False))
        elif event.kind not in ("", "created"):  # "": a resumed stream's restatement
            self.log.append((event.describe(), True))

    # --- over one Play stream --------------------------------------------------------------------

    def _run_over_play(self) -> Snapshot:
        """:meth:`run` over a Play stream. After a move (or a resignation) is sent, the events
        that come before its answer are logged but not drawn: the screen after a move says how
        it went ("you played: …"), as the unary path's does."""
        final: Snapshot | None = None
        sent: str | None = None  # the request id of the move or resignation not answered yet
        held: PlayUpdate | None = None  # the newest snapshot that came meanwhile
        offered: PlayUpdate | None = None  # the last turn, offered again after a refusal
        with self.client.open_play(self.seat, steps=True, presentation=True) as session:
            try:
                for update in self._read_ahead(session):
                    if update.event is not None:
                        self._record(update.event)
                        snapshot = update.snapshot
                        if snapshot is None:
                            continue
                        seed_chosen = snapshot.proto.match.seed_chosen
                        if final is None and seed_chosen and not self.seed_is_yours:
                            self.message = SEED_WARNING
                        final = snapshot
                        if sent is not None:
                            held = update
                            continue
                    elif update.answer is not None and update.answer.request_id == sent:
                        sent = None
                        again = self._answered(update.answer)
                        if held is not None:
                            update, held = held, None
                        elif again and offered is not None:
                            update = offered
                        else:
                            continue
                    else:
                        continue
                    offered = update
                    sent = self._on_snapshot(session, update)
            except EOFError:
                return self.client.get_match(self.seat)
        if final is None or not final.finished:
            final = self._fetch()  # the stream was closed before the match's end
        self.draw(final)
        return final

    def _read_ahead(self, session: PlaySession) -> Iterator[PlayUpdate]:
        """The session's updates, read on a thread of their own: while the person is asked for
        a move, the match may end (the other seat resigns), and the question is then withdrawn
        (EOFError from the input) rather than left waiting for the keyboard for ever."""
        updates: queue.SimpleQueue[PlayUpdate | BaseException | None] = queue.SimpleQueue()

        def read() -> None:
            try:
                for update in session:
                    updates.put(update)
                    if update.snapshot is not None and update.snapshot.finished:
                        self.inputs.withdraw()
            except BaseException as error:  # handed to the player's thread, raised there
                updates.put(error)
            else:
                updates.put(None)

        threading.Thread(target=read, name="play-stream", daemon=True).start()
        while (item := updates.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item

    def _on_snapshot(self, session: PlaySession, update: PlayUpdate) -> str | None:
        """Draw the update's snapshot, or play the seat's turn in it; the request id sent."""
        snapshot = update.snapshot
        assert snapshot is not None
        if snapshot.finished:
            return None  # drawn once the stream has ended, after the match's last event
        if not snapshot.acts(self.seat.seat) or not update.moves:
            self.draw(snapshot)
            return None
        chosen = self._choose(snapshot, update.moves)
        if isinstance(chosen, LegalMove):
            return session.move(chosen, expected_version=update.moves.version)
        return session.resign()

    def _answered(self, answer: PlayAnswer) -> bool:
        """Say how a move went; True when it was refused as illegal (the turn is offered again).
        Errors other than a stale version or an illegal move end the player."""
        if answer.submitted is not None:
            self.message = f"you played: {answer.submitted.label}"
        elif isinstance(answer.error, StaleVersionError):
            self.message = "the match moved on before your move arrived: choose again"
        elif isinstance(answer.error, IllegalMoveError):
            self.message = f"refused: {answer.error}"
            return True
        elif answer.error is not None:
            raise answer.error
        return False

    # --- the screen ------------------------------------------------------------------------------

    def draw(self, snapshot: Snapshot, *, picker: StepPicker | None = None, page: int = 0) -> None:
        presented = snapshot.proto.presentation
        if snapshot.proto.match.status == pb.MATCH_STATUS_OPEN:
            presented = pb.Presentation(headline=NOT_DEALT)  # no placeholder deal
        names = names_of(snapshot)
        frame = Frame(
            header=self.header(snapshot),
            presentation=presented,
            seat=self.seat.seat,
            names=names,
            log=[with_names(line, names) if named else line for line, named in self.log],
            choices=picker.choices() if picker is not None else None,
            path=picker.path if picker is not None else (),
            page=page,
            status=self.connection or self.message or self._joining(snapshot),
            outcome=result_line(snapshot, self.seat.seat, names),
            hints="b back · q resign" if picker is not None and picker.path else "q resign",
        )
        self.message = ""
        with self._lock:
            self._frame = frame
            self._show(frame)

    def _show(self, frame: Frame) -> None:
        width, height = self.display.size
        self.display.show(compose(frame, width, height))

    def _joining(self, snapshot: Snapshot) -> str:
        if snapshot.proto.match.status != pb.MATCH_STATUS_OPEN:
            return ""
        if self.rematch:
            return REMATCH_WAIT
        return f"the others join with --match {snapshot.match_id}"

    def header(self, snapshot: Snapshot) -> str:
        """Game, match, you, and whose turn (or who the match waits for), by name."""
        match = snapshot.proto.match
        names = names_of(snapshot)
        seat = self.seat.seat
        mine = names[seat] if seat < len(names) else f"seat {seat}"
        you = f"{mine} (you)" if mine.startswith("seat ") else f"{mine} (you, seat {seat})"
        if snapshot.finished:
            turn = "match over"
        elif match.status == pb.MATCH_STATUS_OPEN:
            turn = "waiting for an opponent to join"
        elif snapshot.acts(seat):
            turn = "your turn"
        else:
            acting = [names[s] if s < len(names) else f"seat {s}" for s in snapshot.to_act]
            turn = " and ".join(acting) + (" are" if len(acting) > 1 else " is") + " thinking…"
        short = snapshot.match_id[:8]  # the whole id is on the status line while others join
        return f"{snapshot.game} · match {short} · {you} · {turn}"


def names_of(snapshot: Snapshot) -> list[str]:
    """Each seat of the match by its player's name (see :func:`serai_client.words.seat_names`)."""
    seats = sorted(snapshot.proto.match.seats, key=lambda info: info.seat)
    return seat_names((info.player_name, info.joined) for info in seats)


def result_line(snapshot: Snapshot, seat: int, names: list[str] | None = None) -> str:
    outcome = snapshot.outcome
    if outcome is None:
        return ""
    verdict = "you win" if seat in outcome.winners else "you lose"
    if not outcome.winners:
        verdict = "nobody wins"
    summary = with_names(outcome.summary, names or names_of(snapshot))
    return f"{verdict} — {summary}"  # the verdict first: a long summary is cut
