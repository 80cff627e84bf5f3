"""Tells a person at a command when the server cannot be reached, and counts down to each retry.

The SDK retries a call that finds no server on its own, silently; a person at ``serai play``,
``serai bot`` or ``serai arena`` would see nothing happen. :class:`Reachability` watches the
channel's connectivity instead and says what is wrong within a couple of seconds — "cannot reach
HOST:PORT — is `serai serve` running? retrying in 3s…" with the seconds counting down — and
"reconnected" once the server answers again; the SDK's own retries go on underneath, so a match
resumes where it was. With a ``connect_timeout`` (``--connect-timeout``: a script's ``serai bot``
must not hang for ever) it gives up after that many seconds without a server, at the start or
later, with UnavailableError.

Example::

    with reachable_client("localhost:50051", say=StatusLine()) as client:
        ...                                          # the server answered; drops are told too
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import grpc

from serai_client.client import SeraiClient
from serai_client.errors import UnavailableError

RETRY_EVERY = 3
"""Seconds between tries while the server cannot be reached."""

FIRST_TRY = 1.0
"""Seconds the first connection may take before the person is told (within the 2 they wait)."""


def unreachable_message(target: str, seconds: int) -> str:
    return f"cannot reach {target} — is `serai serve` running? retrying in {seconds}s…"


def reconnected_message(target: str) -> str:
    return f"reconnected to {target}"


def gave_up_message(target: str, seconds: float) -> str:
    return f"no answer from {target} for {seconds:g}s, the --connect-timeout"


def open_channel(target: str) -> grpc.Channel:
    """A channel that tries to reconnect at least every ``RETRY_EVERY`` seconds (gRPC's own
    backoff would wait up to two minutes after a long outage)."""
    return grpc.insecure_channel(
        target,
        options=[
            ("grpc.initial_reconnect_backoff_ms", 500),
            ("grpc.min_reconnect_backoff_ms", 500),
            ("grpc.max_reconnect_backoff_ms", RETRY_EVERY * 1000),
        ],
    )


class StatusLine:
    """Says each status on one stream: rewritten in place on a terminal, a line per try when
    the stream is a pipe or a file (the countdown's ticks would only be noise in a log)."""

    def __init__(self, stream: TextIO | None = None, prefix: str = "") -> None:
        self.stream = stream or sys.stderr
        self.prefix = prefix
        self._open = False

    def close(self) -> None:
        """End a line being rewritten in place, so that what is printed next starts afresh."""
        if self._open:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._open = False

    def __call__(self, text: str) -> None:
        tty = self.stream.isatty()
        counting = "retrying in" in text
        if not tty and counting and not text.endswith(f"in {RETRY_EVERY}s…"):
            return
        if tty and counting:
            self.stream.write(f"\r\x1b[2K{self.prefix}{text}")
            self._open = True
        else:
            if self._open:
                self.stream.write("\r\x1b[2K")
                self._open = False
            self.stream.write(f"{self.prefix}{text}\n")
        self.stream.flush()


class Reachability:
    """Watches ``channel`` and calls ``say`` with what a person should know about reaching it.

    ``say`` gets "cannot reach … retrying in Ns…" once a second while the server is out of reach,
    then "reconnected to …"; ``wait_until_reachable`` blocks until the first connection.
    """

    def __init__(
        self,
        target: str,
        channel: grpc.Channel,
        say: Callable[[str], None],
        *,
        retry_every: int = RETRY_EVERY,
    ) -> None:
        self.target = target
        self.channel = channel
        self.say = say
        self.retry_every = retry_every
        self._down = threading.Event()
        self._stopped = threading.Event()
        self._watching = False
        self._state: grpc.ChannelConnectivity | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Reachability:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_until_reachable(self, timeout: float | None = None) -> bool:
        """True once the server answers; meanwhile say so, counting down to each retry. False
        when it has not answered within ``timeout`` seconds (None: wait for ever)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        first = FIRST_TRY if timeout is None else min(FIRST_TRY, timeout)
        if not self._ready(first):
            if not self._count_down_until_ready(deadline):
                return False
            self.say(f"connected to {self.target}")
        self._watch()
        return True

    def close(self) -> None:
        self._stopped.set()
        self._down.set()
        if self._watching:
            self.channel.unsubscribe(self._changed)
            self._watching = False

    # --- plumbing --------------------------------------------------------------------------------

    def _watch(self) -> None:
        """From now on, a drop (the channel failing to connect) starts the countdown."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, daemon=True, name="reachability")
        self._thread.start()
        self.channel.subscribe(self._changed, try_to_connect=False)
        self._watching = True

    def _changed(self, state: grpc.ChannelConnectivity) -> None:
        self._state = state
        if state == grpc.ChannelConnectivity.TRANSIENT_FAILURE:
            self._down.set()

    def _loop(self) -> None:
        while not self._stopped.is_set():
            self._down.wait()
            if self._stopped.is_set():
                return
            self._down.clear()
            if self._count_down_until_ready():
                self.say(reconnected_message(self.target))

    def _count_down_until_ready(self, deadline: float | None = None) -> bool:
        """Count down to each try until one connects: True; False if closed meanwhile, or once
        ``deadline`` (time.monotonic) has passed."""
        while not self._stopped.is_set():
            for seconds in range(self.retry_every, 0, -1):
                if self._state == grpc.ChannelConnectivity.READY:
                    return True
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                self.say(unreachable_message(self.target, seconds))
                if self._stopped.wait(1.0):
                    return False
            if self._ready(1.0):
                return True
        return False

    def _ready(self, timeout: float) -> bool:
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            return False
        return True


@contextlib.contextmanager
def reachable_client(
    target: str,
    say: Callable[[str], None],
    *,
    connect_timeout: float | None = None,
    **options: Any,
) -> Iterator[SeraiClient]:
    """A client of ``target`` once the server answers; while it does not (at first or later),
    ``say`` is told so with a countdown, and the client's calls wait rather than fail.

    ``connect_timeout`` (seconds; None or 0: for ever): UnavailableError when the server has not
    answered for that long, at the start (here) or after a drop (from the client's calls)."""
    limit = connect_timeout or None
    channel = open_channel(target)
    options.setdefault("unavailable_for", math.inf if limit is None else limit)
    with (
        SeraiClient(target, channel=channel, **options) as client,
        Reachability(target, channel, say) as reach,
    ):
        if not reach.wait_until_reachable(limit):
            close = getattr(say, "close", None)
            if close is not None:
                close()
            raise UnavailableError(gave_up_message(target, limit or 0))
        yield client
