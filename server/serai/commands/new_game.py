"""``serai new-game NAME``: a new game as a package of its own, ready to install, test and play.

It writes, in a new folder NAME (or under --into):

  pyproject.toml                         the package, its `serai.games` entry point, pytest
  proto/serai/games/NAME/v1/NAME.proto   the moves and the view, written once
  serai_NAME/__init__.py                 the Game serai loads (a small complete card game)
  serai_NAME/rules.py                    its rules, pure Python
  serai_NAME/NAME_pb2.py                 generated from the .proto (python -m serai.protogen)
  tests/test_NAME.py                     rules tests, and serai's checks through serai.testing
  README.md                              what to run next

Then: `pip install -e NAME`, `pytest` in it, `serai check NAME`, `serai serve` and play it.
"""

from __future__ import annotations

import argparse
import keyword
import re
import string
import sys
from pathlib import Path

from serai import protogen, registry

SCAFFOLD = Path(__file__).resolve().parent.parent / "scaffold"
NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")

# template -> where it goes in the new package ($name filled in)
FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "game.proto.tmpl": "proto/serai/games/$name/v1/$name.proto",
    "game.py.tmpl": "serai_$name/__init__.py",
    "rules.py.tmpl": "serai_$name/rules.py",
    "test_game.py.tmpl": "tests/test_$name.py",
}


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "new-game",
        help="write a new game as an installable package of its own",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "name",
        metavar="NAME",
        help="the game's name: lower-case letters, digits and _, starting with a letter",
    )
    parser.add_argument(
        "--into",
        type=Path,
        default=Path.cwd(),
        metavar="DIR",
        help="the folder to write the package folder NAME in (default: the current folder)",
    )
    parser.add_argument(
        "--title",
        default=None,
        help="the game's title for people (default: NAME in title case)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    problem = name_problem(args.name)
    if problem:
        print(f"serai new-game: {problem}", file=sys.stderr)
        return 2
    target = args.into / args.name
    if target.exists() and any(target.iterdir()):
        print(f"serai new-game: {target} exists and is not empty", file=sys.stderr)
        return 2
    title = args.title or args.name.replace("_", " ").title()
    written = write_package(target, args.name, title)
    try:
        generated = generate_code(target)
    except (ImportError, RuntimeError) as error:
        print(
            f"serai new-game: wrote {len(written)} files in {target}, but not the generated "
            f"protobuf code ({error}); install grpcio-tools (pip install 'serai[test]') and run "
            f"`python -m serai.protogen` in {target}",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {title} ({args.name}) in {target}: {len(written) + generated} files")
    print(f"next: pip install -e {target}; (cd {target} && pytest); serai check {args.name}")
    return 0


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new game, or None."""
    if not NAME.match(name):
        return (
            f"{name!r} is not a game name: use lower-case letters, digits and _, starting with "
            "a letter, at most 31 characters"
        )
    if keyword.iskeyword(name):
        return f"{name!r} is a Python keyword; choose another name"
    if name in registry.load():
        return f"a game called {name!r} is already installed (see serai games)"
    return None


def write_package(target: Path, name: str, title: str) -> list[Path]:
    """The scaffold's files under ``target``, with the name, title and class filled in."""
    values = {"name": name, "title": title, "class": _class_name(name)}
    written = [target / f"serai_{name}" / "py.typed"]
    for template, relative in FILES.items():
        path = target / string.Template(relative).substitute(values)
        text = string.Template((SCAFFOLD / template).read_text()).substitute(values)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    written[0].write_text("")
    return written


def generate_code(target: Path) -> int:
    """Write the protobuf code of the package's .proto files; the number of files written."""
    outputs = protogen.generate(target)
    for relative, content in outputs.items():
        (target / relative).write_bytes(content)
    return len(outputs)


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_") if part) + "Game"
