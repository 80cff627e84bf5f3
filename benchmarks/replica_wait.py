"""The cost of --redis-wait-replicas: service_load.py against two serai servers on one Redis
primary with one replica, one acknowledging moves when the primary has them (the default), one
only once the replica confirmed them (``--redis-wait-replicas 1``), run in turns.

Starts the primary and its replica (embedded redis-servers on loopback, append-only files in a
temporary folder) and both servers, then runs ``service_load.py --matches N --server ...`` against
each in turn, ``--rounds`` times, alternating which goes first, and prints each run's moves per
second and SubmitMove latency with the load average. Example::

    python benchmarks/replica_wait.py --rounds 4 --matches 20
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis as redis_py
from serai.store.embedded import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"async": [], "wait 1": ["--redis-wait-replicas", "1"]}


def _serve(url: str, extra: list[str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    command = [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--redis-url", url]
    command += ["--move-rate", "0", "--log-level", "warning", "--chosen-seeds", "allow", *extra]
    env = {**os.environ, "SERAI_HTTP_PORT": "off"}
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"listening on (\S+):(\d+)", log.read_text())
        if found:
            return process, f"{found[1]}:{found[2]}"
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"serai serve did not start:\n{log.read_text()}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=4, help="runs of each setting (4)")
    parser.add_argument("--matches", type=int, default=20, help="concurrent matches a run (20)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="serai-replica-wait-"))
    primary = EmbeddedRedis(folder / "primary", private=False).start()
    replica = EmbeddedRedis(folder / "replica", private=False).start()
    servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
    try:
        redis_py.Redis(port=replica.port).replicaof("127.0.0.1", primary.port)
        to_primary = redis_py.Redis(port=primary.port)
        while to_primary.info("replication").get("slave0", {}).get("state") != "online":
            time.sleep(0.1)
        for name, extra in SETTINGS.items():
            servers[name] = _serve(primary.url, extra, folder / f"{name}.log")
        for round_ in range(args.rounds):
            order = list(SETTINGS) if round_ % 2 == 0 else list(reversed(SETTINGS))
            for name in order:
                command = [sys.executable, "benchmarks/service_load.py"]
                command += ["--matches", str(args.matches), "--server", servers[name][1]]
                command += ["--redis-url", primary.url]
                run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
                load = Path("/proc/loadavg").read_text().split()[0]
                lines = [
                    " ".join(line.split())
                    for line in run.stdout.splitlines()
                    if re.match(r"\s*(moves per second|SubmitMove latency)", line)
                ]
                print(f"round {round_} {name:7} load {load}: " + "; ".join(lines), flush=True)
                if run.returncode:
                    print(run.stderr[-2000:], file=sys.stderr)
    finally:
        for process, _address in servers.values():
            process.terminate()
            process.wait()
        replica.stop()
        primary.stop()


if __name__ == "__main__":
    main()
