"""The findings of ``serai check``: one line per check, passed or failed, with its first
counterexample.

Each check counts how often it ran and failed, and keeps only the first failure's description,
which the caller writes only when told it is wanted, so that a passing run formats nothing::

    report = Report("jaipur")
    if not report.record("contract.listed", ok=False, where="seed 3, after 17 moves"):
        report.explain("contract.listed", "'take 1 gold' raised KeyError")
    print(report.render())
"""

from __future__ import annotations

from dataclasses import dataclass, field

from serai.checking.checks import CHECKS


@dataclass
class Tally:
    """One check: how many times it ran, how many failed, the first failure and why it skipped."""

    name: str
    title: str
    runs: int = 0
    failures: int = 0
    first: str | None = None
    explained: bool = False
    skipped: str | None = None

    @property
    def status(self) -> str:
        if self.failures:
            return "FAIL"
        if self.runs:
            return "pass"
        return "skip"


@dataclass
class Report:
    """Every check of one game's run, in the order of :data:`CHECKS`, plus run statistics."""

    game: str
    tallies: dict[str, Tally] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    playouts: int = 0
    positions: int = 0
    worlds: int = 0
    redealt: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        for name, title in CHECKS.items():
            self.tallies.setdefault(name, Tally(name, title))

    def record(self, name: str, ok: bool, where: str = "") -> bool:
        """Count one run of check ``name``; keep where it first failed. Returns ``ok``."""
        tally = self.tallies[name]
        tally.runs += 1
        if not ok:
            tally.failures += 1
            if tally.first is None:
                tally.first = where
        return ok

    def explain(self, name: str, text: str) -> None:
        """Say what went wrong at the first failure of ``name`` (later calls are ignored)."""
        tally = self.tallies[name]
        if tally.first is not None and not tally.explained:
            tally.first = f"{tally.first}: {text}" if tally.first else text
            tally.explained = True

    def skip(self, name: str, why: str) -> None:
        self.tallies[name].skipped = why

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    @property
    def failed(self) -> bool:
        return any(tally.failures for tally in self.tallies.values())

    def render(self) -> str:
        """The report for a person: a header, one line per check, counterexamples indented."""
        lines = [
            f"serai check {self.game}: {_count(self.playouts, 'playout')}, "
            f"{self.positions} positions, {self.worlds} sampled worlds, "
            f"{self.redealt} re-dealt positions, {self.seconds:.1f} s"
        ]
        for tally in self.tallies.values():
            counts = (
                f"{tally.failures} of {tally.runs} failed" if tally.failures else f"{tally.runs} ok"
            )
            if tally.status == "skip":
                counts = tally.skipped or "never ran"
            lines.append(f"  {tally.status:<4}  {tally.title} ({counts})")
            if tally.first is not None:
                lines.extend(f"          {line}" for line in tally.first.splitlines())
        lines.extend(f"  note: {text}" for text in self.notes)
        lines.append("FAILED" if self.failed else "OK")
        return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
