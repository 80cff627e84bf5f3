"""Fixtures of the archive tests: each archive implementation, the PostgreSQL one on a server of
the tests' own (see postgres_server.py), skipped, saying why, only where PostgreSQL is not
installed."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_server import PostgresServer, find_binaries  # tests/archive, on sys.path

_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    binaries = find_binaries()
    if binaries is None:
        pytest.skip(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb nor initdb on "
            "PATH): apt-get install postgresql, as .ci/run does"
        )
    server = PostgresServer(binaries).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A new empty database on the tests' PostgreSQL."""
    return postgres_server.create_database(f"archive_{next(_databases)}")


@pytest.fixture(params=["sqlite", "postgresql"])
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty archive of each kind (``serve --archive-url``)."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'archive.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))
