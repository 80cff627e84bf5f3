"""Measurement plumbing the benchmark scripts share, so that each script says only what it measures.

Figures and percentiles, CPU and steal time from ``/proc``, server processes started and awaited
until they log "… listening on HOST:PORT", and the processes and connections below them. Every
/proc reading degrades to "unknown" where there is no /proc (the scripts still run, without
their CPU columns).
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc


def pct(latencies: Sequence[float], p: float) -> float:
    """The ``p`` quantile (0..1) of latencies in seconds, in milliseconds; 0 when there are none."""
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000 if ordered else 0.0


@dataclass
class Figures:
    """One measured part: its calls, the window they filled, and what they cost."""

    name: str
    calls: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    server_cpu_ms: float | None = None  # per call, the server side (its process, plus Redis)
    client_cpu_ms: float | None = None
    steal: float | None = None  # the share of the machine's CPU time its hypervisor took

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    @property
    def steal_text(self) -> str:
        return "-" if self.steal is None else f"{self.steal:.0%}"

    def pct(self, p: float) -> float:
        return pct(self.latencies, p)


# --- CPU time -------------------------------------------------------------------------------------


def cpu_seconds(pid: int | None) -> float | None:
    """CPU time (user + system) a process used so far; None where /proc is not there."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    """CPU time (user + system) this process used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_ticks() -> tuple[int, int]:
    """(steal, all) CPU ticks of the whole machine so far, from /proc/stat; (0, 0) without it.

    Steal is the time a virtual machine's CPUs were ready to run but its hypervisor ran something
    else: on a shared host it comes in bursts that slow every part and lengthen the tail
    latencies, so each figure says how much there was while it was measured."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    # user nice system idle iowait irq softirq steal [guest guest_nice, already in user and nice]
    return (ticks[7] if len(ticks) > 7 else 0), sum(ticks[:8])


def steal_share(before: tuple[int, int], after: tuple[int, int]) -> float | None:
    """The share of the machine's CPU ticks between two ``machine_ticks`` that were stolen."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else None


# --- processes ------------------------------------------------------------------------------------


def start_process(
    command: list[str], log_path: Path, pattern: str, *, name: str = ""
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``command`` with its output in ``log_path``; wait (60 s at most) until it logs
    "``pattern`` on HOST:PORT" and return it with that address. A process that exits first or
    never says so is killed, and the run stops with its log."""
    with log_path.open("wb") as log:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(pattern + r" on (\S+):(\d+)", log_path.read_text(errors="replace"))
        if found:
            return process, f"{found[1]}:{found[2]}"
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise SystemExit(
        f"{name or command[:3]} did not start:\n{log_path.read_text(errors='replace')}"
    )


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children, theirs, ...), from /proc; none where it is not."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        below = parents.get(todo.pop(), [])
        found += below
        todo += below
    return found


def connections(pids: list[int], port: int) -> list[int]:
    """How many established TCP connections to ``port`` each process holds: how evenly the
    kernel spread the client's connections over a server's processes (SO_REUSEPORT)."""
    held: list[set[str]] = []
    for pid in pids:
        inodes = set()
        for fd in Path(f"/proc/{pid}/fd").glob("*"):
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        held.append(inodes)
    established = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if int(fields[1].rpartition(":")[2], 16) == port and fields[3] == "01":
                    established.add(fields[9])
    return [len(inodes & established) for inodes in held]


@dataclass
class Servers:
    """One server's processes on one address (several share the port with SO_REUSEPORT)."""

    name: str
    processes: list[subprocess.Popen[bytes]]
    address: str
    pids: list[int]  # whose CPU counts: every process of the server
    channels: list[grpc.aio.Channel] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.address.rpartition(":")[2])

    def connect(self, count: int) -> None:
        # a local subchannel pool: each channel its own TCP connection (they share one otherwise)
        options = [("grpc.use_local_subchannel_pool", 1)]
        self.channels = [
            grpc.aio.insecure_channel(self.address, options=options) for _ in range(count)
        ]

    def spread(self) -> str:
        """Connections per serving process, e.g. "51+49"."""
        serving = [pid for pid in self.pids if pid not in (p.pid for p in self.processes)]
        counts = connections(serving or self.pids, self.port)
        return "+".join(str(c) for c in counts)

    def stop(self, signum: int = signal.SIGTERM) -> None:
        for process in self.processes:
            process.send_signal(signum)
        for process in self.processes:
            process.wait(30)
