"""``serai games``: the installed games, their player counts and whether they are playable."""

from __future__ import annotations

import argparse
import json

from serai import registry


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "games", help="list the installed game plugins", description=__doc__
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    loaded = registry.load()
    rows = [
        {
            "name": game.info.name,
            "title": game.info.title,
            "players": f"{game.info.min_players}-{game.info.max_players}",
            "playable": game.info.playable,
            "version": game.info.version,
            "options": {spec.name: spec.default for spec in game.info.options},
        }
        for game in loaded.games.values()
    ]
    if args.json:
        print(json.dumps({"games": rows, "broken": [vars(b) for b in loaded.broken]}, indent=2))
    else:
        for row in rows:
            state = "playable" if row["playable"] else "not playable yet"
            least, most = (int(n) for n in str(row["players"]).split("-"))
            count = f"{least} players" if least == most else f"{least} to {most} players"
            print(f"{row['name']:<10} {row['title']:<12} {count:<15} {state}")
        for broken in loaded.broken:
            print(f"{broken.name:<10} BROKEN ({broken.target}): {broken.error}")
    return 1 if loaded.broken else 0
