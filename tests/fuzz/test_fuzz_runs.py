"""Each fuzz target runs a bounded number of inputs under atheris and finds nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .targets import targets

pytest.importorskip("atheris", reason="atheris (a wheel for Linux x86-64) is not installed")

ROOT = Path(__file__).resolve().parents[2]
RUNS = 3000


@pytest.mark.slow
def test_every_fuzz_target_runs_clean_for_a_while(tmp_path):
    """Bounded by inputs, not time: slow calls are reported in the table, never failed on."""
    command = [sys.executable, "-m", "tests.fuzz.run", "--runs", str(RUNS)]
    command += ["--workdir", str(tmp_path)]
    finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    print(finished.stdout)
    assert finished.returncode == 0, finished.stdout + finished.stderr[-4000:]
    rows = {line.split()[0]: line.split() for line in finished.stdout.splitlines()[2:]}
    assert set(rows) == set(targets())
    for name, (_, executions, *_rest) in rows.items():
        assert int(executions) >= RUNS, name
