"""The ``serai`` console script: one subcommand per module, each with its own help."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import re
import sys

# Each command and the module whose add_parser(subparsers) adds it (see serai.commands). A run
# imports only its command's module: `serai keys` need not load what `serai serve` does
# (tests/test_cli_words.py checks that each module adds exactly the commands listed here).
COMMANDS = {
    "games": "serai.commands.games",
    "serve": "serai.commands.serve",
    "replay": "serai.commands.replay",
    "export": "serai.commands.transcript",
    "verify": "serai.commands.transcript",
    "check": "serai.commands.check",
    "keys": "serai.commands.keys",
    "archive": "serai.commands.archive",
    "new-game": "serai.commands.new_game",
    "webhooks": "serai.commands.webhooks",
    "play": "serai_client.commands.play",
    "bot": "serai_client.commands.bot",
    "arena": "serai_client.commands.arena",
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; given the command line ``argv``, of its command only when
    it names one (the other commands' modules are not imported)."""
    parser = argparse.ArgumentParser(
        prog="serai",
        description="serai: a game server for turn-based card games with hidden information.",
    )
    parser.add_argument("--version", action="version", version=f"serai {_version()}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    chosen = argv[0] if argv else None
    modules = [COMMANDS[chosen]] if chosen in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise  # a real import error inside an existing command must not be hidden
            continue  # that command is not part of this build yet
        module.add_parser(subparsers)
    for command in subparsers.choices.values():
        _speak_plainly(command)
    return parser


# Sphinx roles (:class:`~a.B`) and double backticks in docstrings reused as --help text.
_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]+\.)?([^`.]+)`")


def _plain(text: str) -> str:
    return _ROLE.sub(r"`\1`", text).replace("``", "`")


def _speak_plainly(parser: argparse.ArgumentParser) -> None:
    """Help as people read it in a terminal: no reStructuredText markup."""
    if parser.description:
        parser.description = _plain(parser.description)
    if parser.epilog:
        parser.epilog = _plain(parser.epilog)
    for action in parser._actions:
        if isinstance(action.help, str):
            action.help = _plain(action.help)


def _version() -> str:
    try:
        return importlib.metadata.version("serai")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(argv).parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
