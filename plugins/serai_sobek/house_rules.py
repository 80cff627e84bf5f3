"""What serai's Sobek guesses, said where players read the rules and see the table.

The rulebook's last page (character powers, event tokens) and several component details were not
found (see the package docstring), so parts of the game are house rules. Players must be told, not
only readers of the code: :data:`HOUSE_RULES` feeds the rules summary (``GameInfo.summary``, what
ListGames and the lobby show) and a zone of every presentation, and :func:`card_tag` marks the
cards whose printed details are guessed. Change an entry when its source is found.

    >>> HOUSE_RULES[0].topic
    'characters'
"""

from __future__ import annotations

from dataclasses import dataclass

from serai_sobek.cards import Character, Face, Goods, Kind

TAG = "house rule"
"""How a guessed detail is marked where players see it."""


@dataclass(frozen=True)
class HouseRule:
    topic: str  # a short name, stable: the presentation's item label
    text: str  # for people: what serai does that the sources do not say


HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule(
        "characters",
        "every character's power; and Courtesan, Architect, Princess and Boatman are stand-ins "
        "for the four characters the sources do not name",
    ),
    HouseRule("character goods", "which goods family each character belongs to"),
    HouseRule(
        "scarabs",
        "scarabs on goods other than ivory (ebony and marble 2, the others 1) and which cards "
        "carry them",
    ),
    HouseRule("green backs", "which 9 goods cards have the green starting-hand back"),
    HouseRule(
        "two players",
        "with two players, the 9 market cards that sit out each round are 9 at random",
    ),
    HouseRule(
        "event tokens",
        "every event token's effect, and which 3 kinds come twice (points, purge, fine)",
    ),
    HouseRule(
        "final sets",
        "final sets are laid seat by seat, from the player after the one who emptied the market",
    ),
    HouseRule("first round", "seat 0 starts the first round"),
    HouseRule("track", "nobody moves back below 0 on the score track"),
    HouseRule("ties", "players tied at the end share the win"),
)

SOURCED_CHARACTERS = frozenset(
    {Character.SCRIBE, Character.THIEF, Character.VIZIER, Character.QUEEN, Character.HIGH_PRIEST}
)
"""The characters named by the sources (their powers are still house rules)."""


def summary() -> str:
    """The house rules as one sentence, for the end of the game's rules summary."""
    listed = "; ".join(rule.text for rule in HOUSE_RULES)
    return f"House rules, guessed until the publisher's text is found: {listed}."


def card_tag(face: Face) -> str:
    """The guessed details of a card as players see it ("" when nothing on it is guessed):
    a character's power and family (and its name, for a stand-in), a non-ivory card's scarabs."""
    if face.kind is Kind.CHARACTER:
        named = Character(face.character) in SOURCED_CHARACTERS
        return f"{TAG}: power, goods family" + ("" if named else ", name")
    if face.kind is Kind.GOODS and face.scarabs and face.goods != Goods.IVORY:
        return f"{TAG}: scarabs"
    return ""
