"""A small tabular agent for any game, trained in the PettingZoo environment: the guide's example.

It learns the average final reward (Monte Carlo, rank rewards) of each *kind* of move — "sell 3+
cloth", "take all 3+ camels", "exchange 2" — in each coarse situation (how many moves the seat
may choose from), from self-play with some random exploration. Kinds and situations come from
the move labels alone, so the table reads the same on the server, where :class:`TabularPolicy`
plays it as a policy function, and it knows no game.

    python -m serai_client.envs.tabular --game jaipur --seconds 180 --out jaipur-table.json

Example::

    table = train("jaipur", episodes=20, seed=1)
    policy = TabularPolicy(table)      # policy(view, moves) -> index, for serai bot --policy
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from serai_client.types import LegalMove

Table = dict[str, tuple[float, int]]
"""situation|kind -> (mean reward, visits)."""


def situation(moves: Sequence[LegalMove]) -> str:
    """The coarse situation of the seat to act: how many moves it has (capped at 12)."""
    return f"m{min(len(moves), 12)}"


def kind(label: str) -> str:
    """A move's kind from its label: counts of 3 or more read "3+" ("sell 4 cloth" -> "sell 3+
    cloth", "take all 3 camels" -> "take all 3+ camels"); a long label (an exchange of many
    cards) by its first word and how many parts it joins with "+"."""
    words = label.split()
    if len(words) > 4:
        return f"{words[0]} {label.count('+') + 1}"
    return " ".join("3+" if word.isdigit() and int(word) >= 3 else word for word in words)


def best_index(table: Table, view: Message, moves: Sequence[LegalMove]) -> int:
    """The move whose kind has the best mean reward here (unseen kinds count 0; first wins)."""
    here = situation(moves)
    values = [table.get(f"{here}|{kind(move.label)}", (0.0, 0))[0] for move in moves]
    return max(range(len(moves)), key=values.__getitem__)


def train(
    game: str,
    episodes: int | None = None,
    seconds: float | None = None,
    seed: int = 1,
    explore: float = 0.2,
) -> Table:
    """Self-play of ``game`` for ``episodes`` matches or ``seconds`` (whichever ends first);
    the table."""
    from serai_client.envs.aec import pettingzoo_env

    if episodes is None and seconds is None:
        raise ValueError("give episodes, seconds or both")
    rng = random.Random(seed)
    env = pettingzoo_env(game, seed=seed)
    table: Table = {}
    deadline = None if seconds is None else time.monotonic() + seconds
    played = 0
    while (episodes is None or played < episodes) and (
        deadline is None or time.monotonic() < deadline
    ):
        env.reset()
        visited: dict[str, list[str]] = {agent: [] for agent in env.possible_agents}
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                for key in visited[agent]:
                    mean, count = table.get(key, (0.0, 0))
                    table[key] = (mean + (reward - mean) / (count + 1), count + 1)
                env.step(None)
                continue
            view, moves = env.policy_inputs(agent)
            if rng.random() < explore:
                index = rng.randrange(len(moves))
            else:
                index = best_index(table, view, moves)
            visited[agent].append(f"{situation(moves)}|{kind(moves[index].label)}")
            env.step(index)
        played += 1
    return table


class TabularPolicy:
    """A trained table as a policy function: ``policy(view, moves) -> index``."""

    def __init__(self, table: Table) -> None:
        self.table = table

    @classmethod
    def load(cls, path: str | Path) -> TabularPolicy:
        data: dict[str, Any] = json.loads(Path(path).read_text())
        return cls({key: (float(mean), int(count)) for key, (mean, count) in data.items()})

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.table, indent=0, sort_keys=True))

    def __call__(self, view: Message, moves: Sequence[LegalMove]) -> int:
        return best_index(self.table, view, moves)


def main(argv: Sequence[str] | None = None) -> int:
    from serai_client.commands import add_game_argument

    parser = argparse.ArgumentParser(description="train the tabular agent by self-play")
    add_game_argument(parser)
    parser.add_argument("--seconds", type=float, help="train for this long")
    parser.add_argument("--episodes", type=int, help="train for this many matches")
    parser.add_argument("--seed", type=int, default=1, help="the self-play seed (default: 1)")
    parser.add_argument("--out", default="table.json", help="where to write the table")
    args = parser.parse_args(argv)
    if args.seconds is None and args.episodes is None:
        args.seconds = 180.0
    table = train(args.game, args.episodes, args.seconds, args.seed)
    TabularPolicy(table).save(args.out)
    print(f"{len(table)} entries written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
