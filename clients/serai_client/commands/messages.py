"""The server's refusals in the words of the command line, not of the wire API.

The server's messages name RPCs ("ListGames lists them") for programs that call it; a person at
``serai play`` or ``serai bot`` wants the command that helps instead, and no exception class.

Example::

    except SeraiError as error:
        print(f"serai play: {error_text(error)}", file=sys.stderr)
"""

from __future__ import annotations

import re

from serai_client.errors import SeraiError, UnavailableError

_UNKNOWN_GAME = re.compile(r"no game called (.+?); installed games: (.+?) \(ListGames lists them\)")

# What a server's hint says about its RPCs, and what it means at the command line.
_HINTS = (
    ("(CreateMatch and ListMatches give them)", "(serai play and serai bot --create print them)"),
    ("(ListGames lists them)", "(see `serai games`)"),
    ("ListLegalMoves", "the list of moves"),
    (
        "send it as `authorization: Bearer <key>` or `x-serai-key: <key>`",
        "give it with --api-key KEY or SERAI_API_KEY=KEY",
    ),
)


def error_text(error: SeraiError) -> str:
    """``error`` as one line for a person: "no game called 'chess' (this server has jaipur,
    nile, sobek): see `serai games`"."""
    if isinstance(error, UnavailableError):
        return f"the server cannot be reached ({error}); is `serai serve` running?"
    text = str(error)
    unknown = _UNKNOWN_GAME.search(text)
    if unknown:
        name, known = unknown.groups()
        return f"no game called {name} (this server has {known}): see `serai games`"
    for said, meant in _HINTS:
        text = text.replace(said, meant)
    return text


def unknown_game(game: str) -> str:
    """ "no game called 'jaipu' (installed here: jaipur, nile, sobek): see `serai games`" when no
    game installed here has that name; "" when one has. A bot refusing a game it does not play
    would otherwise say "plays Jaipur only" to a typo."""
    from serai import registry

    installed = registry.load()
    if game in installed:
        return ""
    known = ", ".join(sorted(installed.games)) or "none"
    return f"no game called {game!r} (installed here: {known}): see `serai games`"
