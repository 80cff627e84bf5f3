"""Nile (Minion Games, 2009): registered, not playable yet.

Rules: ../shared/rules/nile.md. The full game replaces this stub (issue: Nile as a second plugin).
"""

from serai.game import GameInfo, UnplayableGame


class NileGame(UnplayableGame):
    info = GameInfo(
        name="nile",
        title="Nile",
        min_players=2,
        max_players=5,
        version="0.0.1",
        playable=False,
        summary=(
            "Farmers on the banks of the Nile plant papyrus, wheat, lettuce, castor and flax. "
            "Each turn a flood card decides which crops every player harvests into a hidden "
            "storehouse; then you trade cards away to draw or flood again, plant fields (an "
            "opponent's field is taken by planting more of its crop), or speculate on the next "
            "flood. Locusts destroy the largest fields. When the deck has been gone through once "
            "per player, your score is your smallest storehouse pile over the five crops."
        ),
    )
