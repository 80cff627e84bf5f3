"""serai vs boardgame.io: interleaved rounds of the same tic-tac-toe load on each, one at a time.

For each round, for each N (concurrent matches), the configurations run one after the other in
the order given (serai and boardgame.io alternating). Each run starts a fresh server (a fresh
embedded Redis with its append-only file for serai; a fresh Node process for boardgame.io),
drives it with its load generator (serai_load.py / bgio_load.js) for --warmup + --duration
seconds, then stops every process it started, by PID. Before each run the load average is
noted. Every run's JSON goes to --out/results.jsonl as it finishes, and a line to --out/run.log;
at the end the medians per (N, configuration) and the serai/boardgame.io ratios are written to
--out/summary.md.

Configurations:
  serai-list     ListLegalMoves + SubmitMove by id
  serai-submit   SubmitMove only (typed payload)
  serai-watch    SubmitMove only, each seat moving on its own Watch stream's push
  serai-play     each seat on one Play stream: pushed events and legal moves, moves sent on it
  serai-playkept the same, each seat's stream kept from match to match (PlayOpen.keep_open), as
                 the raw boardgame.io client keeps its sockets
  bgio-mem       boardgame.io Server, default in-memory storage, raw socket.io client
  bgio-flat      boardgame.io Server, FlatFile storage (node-persist files, each write at once),
                 raw socket.io client
  bgio-flatq     the same with FlatFile exactly as shipped (node-persist's write queue, flushed
                 once a second: about one move a second per match)
  bgio-official  boardgame.io Server, in-memory, boardgame.io/client Client (new per match)
  serai-setup    CreateMatch + 2 JoinMatch only (no moves), for the set-up's CPU
  bgio-setup     Lobby create + 2 join + 2 socket.io syncs only (no moves), for the same

Everything listens on 127.0.0.1 only; every run is bounded in time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CONFIGS = (
    "serai-list,bgio-mem,serai-submit,bgio-flat,serai-watch,bgio-official,serai-play,bgio-flatq"
)


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            found += [int(c) for c in text]
    except OSError:
        pass
    return found


def wait_line(log: Path, pattern: str, process: subprocess.Popen, timeout: float = 60) -> re.Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace"))
        if found:
            return found
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"server did not start ({pattern!r}):\n{log.read_text(errors='replace')}")


def stop(pids: list[int], timeout: float = 20) -> None:
    """SIGTERM the first PID (it stops its own children), then SIGKILL whatever is left."""
    if not pids:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pids[0], signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for pid in pids:
        while time.monotonic() < deadline and alive(pid):
            time.sleep(0.05)
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


class Server:
    def __init__(self, process: subprocess.Popen, pids: list[int], port: int) -> None:
        self.process = process
        self.pids = pids
        self.port = port

    def stop(self) -> None:
        stop(self.pids)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)


def start_serai(folder: Path, python: str, *extra: str) -> Server:
    log = folder / "serve.log"
    serai = str(Path(python).parent / "serai")
    process = subprocess.Popen(
        [serai, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(folder / "data"),
         "--log-format", "json", "--http-port", "off", *extra],
        stdout=log.open("w"), stderr=subprocess.STDOUT, cwd=folder,
    )  # fmt: skip
    found = wait_line(log, r"serai listening on 127\.0\.0\.1:(\d+)", process)
    redis = children(process.pid)
    return Server(process, [process.pid, *redis], int(found[1]))


def start_bgio(folder: Path, node: str, storage: str) -> Server:
    log = folder / "bgio.log"
    command = [node, str(HERE / "bgio_server.js"), "--port", "0"]
    if storage == "flat":
        command += ["--flatfile", str(folder / "flat")]
    elif storage == "flat-queued":
        command += ["--flatfile-queued", str(folder / "flat")]
    env = {**os.environ, "NODE_ENV": "production"}
    process = subprocess.Popen(
        command, stdout=log.open("w"), stderr=subprocess.STDOUT, cwd=folder, env=env
    )
    found = wait_line(log, r"bgio listening on 127\.0\.0\.1:(\d+)", process)
    return Server(process, [process.pid], int(found[1]))


def run_one(config: str, n: int, args: argparse.Namespace, folder: Path) -> dict:
    limit = args.warmup + args.duration + 60
    common = ["--matches", str(n), "--warmup", str(args.warmup), "--duration", str(args.duration)]
    if config.startswith("serai"):
        mode = config.removeprefix("serai-")
        # The load generator is one address playing N clients: serve's per-address limit of
        # unfinished matches (100) would refuse set-up-only runs after 100 set-ups, and at
        # N = 100 a slot's next CreateMatch racing the previous match's unindexing. Its channels
        # share one connection, whose move rate (1,000/s) a quiet box exceeds at N = 100.
        unlimited = ("--max-open-per-peer", "0", "--move-rate", "0", "--create-rate", "0")
        server = start_serai(folder, args.python, *unlimited)
        command = [args.python, str(HERE / "serai_load.py"), "--address",
                   f"127.0.0.1:{server.port}", "--pids", ",".join(map(str, server.pids)),
                   "--mode", mode, *common]  # fmt: skip
    else:
        storage = {"bgio-flat": "flat", "bgio-flatq": "flat-queued"}.get(config, "memory")
        server = start_bgio(folder, args.node, storage)
        command = [args.node, str(HERE / "bgio_load.js"), "--port", str(server.port),
                   "--pid", str(server.pids[0]), *common]  # fmt: skip
        if config == "bgio-official":
            command += ["--client", "official"]
        if config == "bgio-setup":
            command += ["--setup-only"]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=limit, cwd=folder, check=False
        )
    finally:
        server.stop()
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"{config} N={n}: load generator failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summarize(rows: list[dict], out: Path) -> str:
    by: dict[tuple[int, str], list[dict]] = {}
    for row in rows:
        by.setdefault((row["n"], row["config"]), []).append(row)

    def med(key: tuple[int, str], field: str) -> float | None:
        values = [r[field] for r in by.get(key, []) if r.get(field) is not None]
        return statistics.median(values) if values else None

    # The set-up's CPU per match (set-up-only runs), to estimate CPU per move without it.
    setup_cpu = {
        side: statistics.median(values)
        for side in ("serai", "bgio")
        if (
            values := [r["server_cpu_ms_per_match"] for r in rows if r["config"] == f"{side}-setup"]
        )
    }

    def without_setup(config: str, runs: list[dict]) -> str:
        side = config.split("-")[0]
        if side not in setup_cpu or config == "bgio-official" or config.endswith("-setup"):
            return "-"
        values = [
            r["server_cpu_ms_per_move"] - setup_cpu[side] * r["finished_matches"] / r["moves"]
            for r in runs
            if r["moves"]
        ]
        return f"{statistics.median(values):.3f}" if values else "-"

    lines = [
        "| N | configuration | moves/s | matches/s | p50 ms | p99 ms | server CPU ms/move "
        "| (of which Redis) | CPU ms/move without set-up (est.) | client CPU ms/move "
        "| server RSS MiB | runs | load avg (1 min) | other work (cores) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ns = sorted({n for n, _c in by})
    configs = list(dict.fromkeys(r["config"] for r in rows))
    for n in ns:
        for config in configs:
            key = (n, config)
            if key not in by:
                continue
            runs = by[key]
            setup = config.endswith("-setup")
            per = "server_cpu_ms_per_match" if setup else "server_cpu_ms_per_move"
            redis = []  # Redis's share of serai's server CPU, in the same unit
            for r in runs:
                each = r["server_cpu_ms_per_move_each"]
                if config.startswith("serai") and len(each) > 1 and sum(each):
                    redis.append(r[per] * each[1] / sum(each))
            redis_text = f"{statistics.median(redis):.3f}" if redis else "-"
            loads = ", ".join(r["load"].split()[0] for r in runs)
            others = ", ".join(f"{r['other_cores']:.1f}" for r in runs)
            rss = f"{med(key, 'server_rss_mib'):.0f}"
            if setup:
                lines.append(
                    f"| {n} | {config} | - | {med(key, 'matches_per_s'):.0f} set-ups/s | - | - "
                    f"| {med(key, per):.3f} per set-up | {redis_text} | - | - | {rss} "
                    f"| {len(runs)} | {loads} | {others} |"
                )
                continue
            lines.append(
                f"| {n} | {config} | {med(key, 'moves_per_s'):.0f} | "
                f"{med(key, 'matches_per_s'):.0f} | {med(key, 'p50_ms'):.2f} | "
                f"{med(key, 'p99_ms'):.2f} | {med(key, per):.3f} | {redis_text} | "
                f"{without_setup(config, runs)} | "
                f"{med(key, 'client_cpu_ms_per_move'):.3f} | {rss} | {len(runs)} | {loads} | "
                f"{others} |"
            )
    # Ratios within a round, then the median over rounds.
    pairs = [
        ("serai-list", "bgio-mem"),
        ("serai-submit", "bgio-mem"),
        ("serai-watch", "bgio-mem"),
        ("serai-submit", "bgio-flat"),
        ("serai-watch", "bgio-flat"),
        ("serai-play", "bgio-mem"),
        ("serai-play", "bgio-flat"),
        ("serai-playkept", "bgio-mem"),
        ("serai-playkept", "bgio-flat"),
        ("serai-setup", "bgio-setup"),
    ]
    lines += [
        "",
        "Ratios serai / boardgame.io, each taken within a round (the two runs minutes apart "
        "at most), median over rounds (throughput: >1 means serai is faster; latency and CPU: "
        ">1 means serai takes more):",
        "",
        "| N | serai vs bgio | moves/s | p50 | p99 | server CPU/move | rounds |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in ns:
        for a, b in pairs:
            rounds = sorted({r["round"] for r in rows if r["n"] == n and r["config"] in (a, b)})
            ratios: dict[str, list[float]] = {
                "moves_per_s": [], "p50_ms": [], "p99_ms": [], "cpu": [],
            }  # fmt: skip
            for rnd in rounds:
                ra = [r for r in rows if (r["n"], r["config"], r["round"]) == (n, a, rnd)]
                rb = [r for r in rows if (r["n"], r["config"], r["round"]) == (n, b, rnd)]
                if not ra or not rb:
                    continue
                ra, rb = ra[0], rb[0]
                field = (
                    "server_cpu_ms_per_match" if a.endswith("setup") else "server_cpu_ms_per_move"
                )
                rate = "matches_per_s" if a.endswith("setup") else "moves_per_s"
                if rb[rate]:
                    ratios["moves_per_s"].append(ra[rate] / rb[rate])
                for f in ("p50_ms", "p99_ms"):
                    if ra.get(f) and rb.get(f):
                        ratios[f].append(ra[f] / rb[f])
                if rb[field]:
                    ratios["cpu"].append(ra[field] / rb[field])
            if not ratios["moves_per_s"]:
                continue

            def m(values: list[float]) -> str:
                return f"{statistics.median(values):.2f}" if values else "-"

            lines.append(
                f"| {n} | {a} / {b} | {m(ratios['moves_per_s'])} | {m(ratios['p50_ms'])} | "
                f"{m(ratios['p99_ms'])} | {m(ratios['cpu'])} | {len(ratios['moves_per_s'])} |"
            )
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    return text


def _leave(signum: int, _frame: object) -> None:
    """SIGTERM: unwind, so that the running server is stopped and the load generator killed."""
    raise SystemExit(128 + signum)


def main() -> int:
    signal.signal(signal.SIGTERM, _leave)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ns", default="1,10,100", help="concurrent matches, comma-separated")
    parser.add_argument("--configs", default=DEFAULT_CONFIGS)
    parser.add_argument("--setup-n", type=int, default=10,
                        help="N for the set-up-only runs (serai-setup, bgio-setup) added to each "
                        "round; 0: none")  # fmt: skip
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--python", default=sys.executable, help="the venv's python (serai)")
    parser.add_argument("--node", default=shutil.which("node") or "node")
    parser.add_argument("--out", default=str(HERE / "results"))
    parser.add_argument("--summarize-only", action="store_true")
    parser.add_argument("--first-round", type=int, default=1,
                        help="number the rounds from this one; above 1, append to the results "
                        "already in --out instead of starting them anew")  # fmt: skip
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    if args.summarize_only:
        rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
        print(summarize(rows, out))
        return 0
    ns = [int(n) for n in args.ns.split(",")]
    configs = [c for c in args.configs.split(",") if c]  # "": only the set-up runs
    plan = [(n, c) for n in ns for c in configs]
    if args.setup_n:
        plan += [(args.setup_n, "serai-setup"), (args.setup_n, "bgio-setup")]
    rows: list[dict] = []
    log = out / "run.log"  # the progress lines, a line a run
    if args.first_round > 1 and results.exists():
        rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    else:
        results.write_text("")
        log.write_text("")
    started = time.time()
    for rnd in range(args.first_round, args.first_round + args.rounds):
        for n, config in plan:
            with tempfile.TemporaryDirectory(prefix=f"peer-{config}-{n}-") as tmp:
                load = loadavg()
                stamp = time.strftime("%H:%M:%S")
                try:
                    row = run_one(config, n, args, Path(tmp))
                except Exception as error:
                    failed = f"round {rnd} N={n} {config}: FAILED {error}"
                    print(failed, file=sys.stderr, flush=True)
                    with log.open("a") as f:
                        f.write(failed + "\n")
                    continue
            row.update(round=rnd, n=n, config=config, load=load, at=stamp)
            rows.append(row)
            with results.open("a") as f:
                f.write(json.dumps(row) + "\n")
            line = (
                f"[{time.time() - started:6.0f}s] round {rnd} N={n:<3} {config:<13} "
                f"load {load:<15} {row.get('moves_per_s', 0):7.0f} moves/s "
                f"{row.get('matches_per_s', 0):6.0f} matches/s "
                f"p50 {row.get('p50_ms') or 0:6.2f} p99 {row.get('p99_ms') or 0:7.2f} "
                f"cpu/move {row['server_cpu_ms_per_move']:.3f} ms cpu/match "
                f"{row['server_cpu_ms_per_match']:.3f} ms client "
                f"{row['client_cpu_ms_per_move']:.3f} rss {row['server_rss_mib']:.0f} MiB "
                f"other {row['other_cores']:.2f} steal "
                f"{row['steal_cores']:.2f} cores errors {row['slot_errors'] or '-'} "
                f"{row['window_errors'] or ''}"
            )
            print(line, file=sys.stderr, flush=True)
            with log.open("a") as f:
                f.write(line + "\n")
    print(summarize(rows, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
