"""Waiting on a condition, never on a fixed sleep: the suite runs on loaded 2-core machines, where
"half a second is ample" is sometimes not."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


def wait_until(condition: Callable[[], object], what: str, seconds: float = 30) -> None:
    """Return once ``condition()`` is true; fail saying ``what`` never happened in ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened within {seconds} s: {what}")
        time.sleep(0.02)


async def eventually(
    condition: Callable[[], object | Awaitable[object]], what: str, seconds: float = 30
) -> None:
    """:func:`wait_until` on an event loop; ``condition`` may be a coroutine function."""
    deadline = time.monotonic() + seconds
    while True:
        met = condition()
        if isinstance(met, Awaitable):
            met = await met
        if met:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened within {seconds} s: {what}")
        await asyncio.sleep(0.02)
