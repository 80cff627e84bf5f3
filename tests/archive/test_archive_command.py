"""``serai archive stats`` and ``serai archive prune``, on the SQLite archive of a data folder."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from serai import cli
from serai.archive import ArchivedMatch
from serai.archive.opening import open_archive
from serai.store import MatchRecord, SeatRecord


def _put(data_dir: Path, match_id: str, created_ms: int, tenant: str) -> None:
    record = MatchRecord(
        match_id, "jaipur", {}, 1, created_ms, "finished", 3, (SeatRecord(),), tenant=tenant
    )

    async def put() -> None:
        archive = open_archive(None, data_dir)
        try:
            await archive.put(ArchivedMatch(record, (), created_ms))
        finally:
            await archive.close()

    asyncio.run(put())


def _serai(*argv: str) -> int:
    args = cli.build_parser().parse_args(list(argv))
    return int(args.run(args))


def test_stats_then_prune_one_tenant(tmp_path: Path, capsys) -> None:
    now = int(time.time() * 1000)
    _put(tmp_path, "old", now - 10 * 86_400_000, "acme")
    _put(tmp_path, "new", now, "acme")
    _put(tmp_path, "other", now - 10 * 86_400_000, "globex")
    assert _serai("archive", "stats", "--data-dir", str(tmp_path)) == 0
    assert "matches: 3\ntenants: 2\n" in capsys.readouterr().out
    pruned = _serai("archive", "prune", "--older-than", "7d", "--tenant", "acme",
                    "--data-dir", str(tmp_path))  # fmt: skip
    assert pruned == 0
    assert "pruned 1 matches of tenant 'acme'" in capsys.readouterr().out
    assert _serai("archive", "stats", "--data-dir", str(tmp_path)) == 0
    assert "matches: 2\n" in capsys.readouterr().out


def test_no_archive_is_said(tmp_path: Path, capsys) -> None:
    assert _serai("archive", "stats", "--data-dir", str(tmp_path / "none")) == 1
    assert "no archive in" in capsys.readouterr().err
