"""Runs the fuzz targets of :mod:`.targets` under atheris (libFuzzer), each in a process of its
own, and prints what each did: executions, coverage, the slowest call, crashes.

    python -m tests.fuzz.run --seconds 60               # every target, a minute each
    python -m tests.fuzz.run --runs 2000 nile-move      # one target, a bounded number of inputs

A crash is an exception the contract does not allow: libFuzzer saves the input under the work
folder (``crash-<sha1>``) and the run fails. Fix it, and copy the input to
``tests/fuzz/found/<target>/``: tests/fuzz/test_fuzz_found.py replays every input there. A call
slower than ``--budget`` seconds is reported and its input saved (``slow-<sha1>``), but fails
nothing: speed on a shared machine is a figure, not a verdict.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
_INSTRUMENTED = ["serai", "serai_jaipur", "serai_nile", "serai_sobek", "tests.fuzz.targets"]


@dataclass
class Figures:
    """What one target's run printed, read back from libFuzzer's and the harness's lines."""

    name: str
    returncode: int = 0
    executions: int = 0
    per_second: int = 0
    coverage: int = 0
    features: int = 0
    corpus: int = 0
    slowest: float = 0.0
    slow_calls: int = 0
    crash: str = ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help="target names (default: all)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--seconds", type=int, default=0, help="run each target this long")
    length.add_argument("--runs", type=int, default=0, help="run each target on this many inputs")
    parser.add_argument("--budget", type=float, default=0.1, help="seconds a call may take")
    parser.add_argument("--workdir", type=Path, help="corpora and findings (default: a temp dir)")
    parser.add_argument("--list", action="store_true", help="print the target names and stop")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args)
    names = args.targets or _all_names()
    if args.list:
        print("\n".join(names))
        return 0
    if not (args.seconds or args.runs):
        args.seconds = 60
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="serai-fuzz-"))
    print(f"work folder: {workdir}")
    print(
        f"{'target':14} {'execs':>9} {'exec/s':>7} {'cov':>5} {'ft':>6} {'corpus':>6} "
        f"{'slowest':>8} {'slow':>4}  result"
    )
    failed = 0
    for name in names:
        figures = _run_child(name, args, workdir)
        result = "ok" if not figures.crash else f"CRASH {figures.crash}"
        failed += bool(figures.crash)
        print(
            f"{name:14} {figures.executions:9} {figures.per_second:7} {figures.coverage:5} "
            f"{figures.features:6} {figures.corpus:6} {figures.slowest:7.3f}s "
            f"{figures.slow_calls:4}  {result}",
            flush=True,
        )
    return 1 if failed else 0


def _all_names() -> list[str]:
    from tests.fuzz import targets  # not instrumented: this process only starts the others

    return list(targets.targets())


def _run_child(name: str, args: argparse.Namespace, workdir: Path) -> Figures:
    command = [sys.executable, "-m", "tests.fuzz.run", "--child", name, "--workdir", str(workdir)]
    command += ["--budget", str(args.budget)]
    command += ["--seconds", str(args.seconds)] if args.seconds else ["--runs", str(args.runs)]
    finished = subprocess.run(command, cwd=_ROOT, capture_output=True, text=True, check=False)
    output = finished.stdout + finished.stderr
    (workdir / f"{name}.log").write_text(output)
    return _figures(name, finished.returncode, output)


def _figures(name: str, returncode: int, output: str) -> Figures:
    figures = Figures(name, returncode)
    for match in re.finditer(r"cov: (\d+) ft: (\d+)(?: corp: (\d+))?", output):
        figures.coverage = max(figures.coverage, int(match[1]))
        figures.features = max(figures.features, int(match[2]))
        figures.corpus = max(figures.corpus, int(match[3] or 0))
    if found := re.search(r"stat::number_of_executed_units:\s+(\d+)", output):
        figures.executions = int(found[1])
    if found := re.search(r"stat::average_exec_per_sec:\s+(\d+)", output):
        figures.per_second = int(found[1])
    slowest = re.findall(r"^SLOWEST ([0-9.]+)", output, re.MULTILINE)
    figures.slowest = float(slowest[-1]) if slowest else 0.0
    figures.slow_calls = len(re.findall(r"^SLOW ", output, re.MULTILINE))
    if returncode != 0 or "Uncaught Python exception" in output:
        error = re.findall(r"^(\w+(?:Error|Exception)\b.*)$", output, re.MULTILINE)
        where = re.findall(r"Test unit written to (\S+)", output)
        figures.crash = " ".join([*(error[-1:] or [f"exit {returncode}"]), *where[-1:]])
    return figures


def _child(args: argparse.Namespace) -> int:
    import atheris

    with atheris.instrument_imports(include=_INSTRUMENTED):
        from tests.fuzz import targets

        target = targets.targets()[args.child]()  # loads the plugins: instrumented too
    folder = args.workdir / target.name
    corpus = folder / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for seed in target.seeds():
        (corpus / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    budget, slowest = args.budget, [0.0]

    def one_input(data: bytes) -> None:
        start = time.perf_counter()
        with contextlib.suppress(target.allowed):
            target.check(data)
        spent = time.perf_counter() - start
        if spent > slowest[0]:
            slowest[0] = spent
            print(f"SLOWEST {spent:.4f}", flush=True)
        if spent > budget:
            path = folder / f"slow-{hashlib.sha1(data).hexdigest()}"
            path.write_bytes(data)
            print(f"SLOW {spent:.3f}s {path}", flush=True)

    length = [f"-max_total_time={args.seconds}"] if args.seconds else [f"-runs={args.runs}"]
    atheris.Setup(
        [
            sys.argv[0],
            *length,
            f"-max_len={target.max_len}",
            "-print_final_stats=1",
            f"-artifact_prefix={folder}/",
            str(corpus),
        ],
        one_input,
    )
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
