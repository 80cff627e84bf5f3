"""The data folder as one serai's own: a lock that its redis-server child holds too (two servers
writing one append-only file would lose each other's matches), and files that only their owner
may read (they may hold a password)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

from serai.store.embedded.settings import EmbeddedRedisError

# sun_path holds 108 bytes on Linux (104 on macOS), the terminating NUL included.
LONGEST_SOCKET_PATH = 103


def lock_folder(data_dir: Path) -> int:
    """An exclusive lock on ``data_dir`` (its ``serai.lock``), or EmbeddedRedisError if another
    serai holds it. A file descriptor: released when every process holding it has closed it."""
    path = data_dir / "serai.lock"
    try:
        lock = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise EmbeddedRedisError(f"cannot lock {path}: {error.strerror or error}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        owner = ""
        with contextlib.suppress(OSError, ValueError, KeyError):
            pid = json.loads((data_dir / "redis.json").read_text())["pid"]
            owner = f" (redis-server pid {pid})"
        raise EmbeddedRedisError(
            f"the data folder {data_dir} is in use by another serai{owner}: stop it, give "
            "another --data-dir, or point --redis-url at its Redis"
        ) from None
    return lock


def write_privately(path: Path, text: str) -> None:
    """Write ``path`` readable by its owner only (it may hold a password), whole or not at all:
    a new file, renamed over the old one (which may have had looser bits)."""
    fresh = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(fresh, path)
