"""The send fast path of the store's connections: commands packed in one piece and written
without a timeout task when the write cannot wait (about a third of redis-py's packing CPU)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from redis import exceptions as redis_errors
from redis.asyncio.connection import AbstractConnection

# Formatting a number as bytes is most of the CPU of packing an argument (a move's commit has
# about twenty): the lengths most arguments have, and the small integers, are formatted once.
_KEPT = 1024
_LENGTHS = tuple(b"$%d" % size for size in range(_KEPT))
_DIGITS = tuple(b"%d" % number for number in range(_KEPT))


class QuickSend(AbstractConnection):
    """Packs a command of plain arguments in one piece, and sends a command without arming the
    socket timeout when the write cannot wait.

    redis-py packs each argument through its encoder and a few joins: about three times the
    CPU of :meth:`pack_command` here, whose bytes are the same (arguments other than bytes, str
    and int take redis-py's way).

    redis-py wraps every send in ``asyncio.wait_for`` (a new Task each time) so that a peer not
    reading cannot hold it for ever; but a write that leaves the transport's buffer under its
    high-water mark never waits (``drain`` returns at once, or raises if the connection is lost).
    Such sends go straight out here; any other (a health check due, a full buffer, not yet
    connected) takes redis-py's way, timeout included.
    """

    def pack_command(self, *args: Any) -> list[bytes]:
        first = args[0]
        if type(first) is not str or " " in first:  # "CONFIG GET": redis-py splits it
            return super().pack_command(*args)
        encoding, errors = self.encoder.encoding, self.encoder.encoding_errors
        utf8 = encoding == "utf-8" and errors == "strict"  # str.encode's defaults: its fast path
        parts = [b"*%d" % len(args)]
        append = parts.append
        for arg in args:
            kind = type(arg)
            if kind is bytes:
                value = arg
            elif kind is str:
                value = arg.encode() if utf8 else arg.encode(encoding, errors)
            elif kind is int:
                value = _DIGITS[arg] if 0 <= arg < _KEPT else b"%d" % arg
            else:  # memoryview, float, bool (refused), ...: as redis-py does
                return super().pack_command(*args)
            size = len(value)
            append(_LENGTHS[size] if size < _KEPT else b"$%d" % size)
            append(value)
        append(b"")  # the last argument's CRLF
        return [b"\r\n".join(parts)]

    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        writer = self._writer
        if (
            writer is None
            or (check_health and self.health_check_interval)
            or not isinstance(command, list)
            or writer.transport.get_write_buffer_size() + sum(map(len, command))
            > writer.transport.get_write_buffer_limits()[1]
        ):
            return await super().send_packed_command(command, check_health)
        try:
            writer.writelines(command)
            await writer.drain()  # under the high-water mark: does not wait
        except OSError as error:  # as redis-py words it
            await self.disconnect(nowait=True)
            number, message = ("UNKNOWN", *error.args) if len(error.args) == 1 else error.args[:2]
            raise redis_errors.ConnectionError(
                f"Error {number} while writing to socket. {message}."
            ) from error
        except BaseException:
            await self.disconnect(nowait=True)
            raise


def quick_send(connection_class: type[AbstractConnection]) -> type[AbstractConnection]:
    """``connection_class`` (TCP, TLS or Unix socket) with :class:`QuickSend`'s send."""
    return type(connection_class.__name__, (QuickSend, connection_class), {})


def packed(packer: AbstractConnection, *args: Any) -> bytes:
    """One command as ``packer`` packs it, in one piece (for Multiplexed.execute)."""
    pieces = packer.pack_command(*args)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)
