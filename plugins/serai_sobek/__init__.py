"""Sobek (Bruno Cathala, GameWorks 2011): registered, not playable yet.

Rules: ../shared/rules/sobek.md. The full game replaces this stub (issue: Sobek as a third plugin).
"""

from serai.game import GameInfo, UnplayableGame


class SobekGame(UnplayableGame):
    info = GameInfo(
        name="sobek",
        title="Sobek",
        min_players=2,
        max_players=4,
        version="0.0.1",
        playable=False,
        summary=(
            "Merchants of the temple of Sobek buy goods from a market row over three rounds: take "
            "one of the first four cards (the ones skipped become your corruption), play a "
            "character for its power, or lay a set of three or more goods of one kind (amulets "
            "are wild) and pick an event token. A set scores its scarabs times its cards; the "
            "most corrupt player loses ground on the guild track at each round's end, and 100 "
            "points after the second round wins at once."
        ),
    )
