"""Jaipur's view described for people (Game.present) and its moves as paths of choices.

Reads only the View message, so it cannot say more than the seat's view does.
"""

from __future__ import annotations

from serai.game import Item, ItemLook, Presentation, TableGuide, Zone

from . import jaipur_pb2 as pb
from .cards import Good, plural
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood, label

_CARD_FIELDS = ("diamond", "gold", "silver", "cloth", "spice", "leather", "camel")


def present_view(view: pb.View) -> Presentation:
    zones = [
        Zone("market", "Market", _cards(view.market)),
        Zone(
            "piles",
            "Deck and discards",
            (
                Item("deck", view.deck_size, hidden=True),
                *(
                    Item(f"discarded {name}", count, kind="card")
                    for name, count in _counts(view.discards)
                ),
            ),
        ),
        Zone(
            "tokens",
            "Goods tokens (top first)",
            tuple(
                Item(
                    pb.Good.Name(stack.good).removeprefix("GOOD_").lower(),
                    len(stack.values),
                    value=" ".join(str(v) for v in stack.values),
                    kind="token",
                )
                for stack in view.goods_stacks
            )
            + tuple(
                Item(f"bonus x{n}", count, hidden=True, kind="token")
                for n, count in _bonus(view.bonus_left)
            ),
        ),
    ]
    own = view.viewer if view.HasField("viewer") else None
    for player in view.players:
        seat = player.seat
        you = " (you)" if seat == own else ""
        hand = (
            _cards(player.hand) if seat == own else (Item("card", player.hand_size, hidden=True),)
        )
        zones.append(Zone(f"hand{seat}", f"Seat {seat}{you}: hand", hand, owner=seat))
        tokens = [
            Item("camel", player.herd),
            Item(
                "goods tokens",
                len(player.goods_tokens),
                value=" ".join(str(t.value) for t in player.goods_tokens),
                kind="token",
            ),
        ]
        if seat == own:
            tokens.extend(
                Item(f"bonus x{t.cards}", 1, value=str(t.value), kind="token")
                for t in player.bonus_tokens
            )
        else:
            tokens.extend(
                Item(f"bonus x{n}", count, hidden=True, kind="token")
                for n, count in _bonus(player.bonus_counts)
            )
        tokens.append(Item("seal", player.seals, kind="score"))
        zones.append(
            Zone(f"seat{seat}", f"Seat {seat}{you}: herd and tokens", tuple(tokens), owner=seat)
        )
    if view.results:
        zones.append(
            Zone(
                "results",
                "Rounds",
                tuple(
                    Item(
                        f"round {r.round}",
                        0,
                        value=" · ".join(f"seat {s.seat}: {s.rupees}" for s in r.scores)
                        + (f" — seat {r.winner} wins" if r.HasField("winner") else " — tie"),
                        kind="text",
                    )
                    for r in view.results
                ),
            )
        )
    if view.HasField("winner"):
        headline = f"Seat {view.winner} wins the match"
    else:
        turn = f"seat {view.to_act} to play" if view.HasField("to_act") else ""
        headline = f"Round {view.round} · {turn}"
    return Presentation(headline, tuple(zones))


def move_steps(move: Move) -> tuple[str, ...]:
    if isinstance(move, TakeGood):
        return ("take one good", plural(Good(move.good), 1))
    if isinstance(move, TakeCamels):
        return (label(move),)
    if isinstance(move, Exchange):
        return ("exchange", "take " + _group(move.take), "give " + _group(move.give))
    if isinstance(move, Sell):
        return ("sell", plural(Good(move.good), 2), str(move.count))
    return (label(move),)


def _group(cards: tuple[Good, ...]) -> str:
    return " + ".join(
        f"{cards.count(good)} {plural(good, cards.count(good))}" for good in sorted(set(cards))
    )


def _counts(cards: pb.Cards) -> list[tuple[str, int]]:
    return [(name, getattr(cards, name)) for name in _CARD_FIELDS if getattr(cards, name)]


def _cards(cards: pb.Cards) -> tuple[Item, ...]:
    return tuple(Item(name, count) for name, count in _counts(cards))


def _bonus(counts: pb.BonusCounts) -> list[tuple[int, int]]:
    return [(n, c) for n, c in ((3, counts.three), (4, counts.four), (5, counts.five)) if c]


GUIDE = TableGuide(
    how_to_play=(
        "Each turn, take or sell. Take one good from the market, or all its camels, or exchange "
        "two or more of its goods for as many cards from your hand and herd (never camels out, "
        "never the same good back). Keep at most 7 cards in hand; camels live in your herd.\n\n"
        "Sell any number of one good (diamonds, gold and silver two or more) for that good's "
        "tokens, the dearest first; selling 3, 4 or 5+ at once also earns a bonus token.\n\n"
        "A round ends when three token stacks are empty or the deck cannot refill the market. "
        "The bigger herd earns 5; the richer merchant wins a Seal of Excellence. Two seals win."
    ),
    zones=(
        (
            "market",
            "Five face-up cards anyone may take from; taken cards are replaced from the deck.",
        ),
        ("piles", "The face-down deck and the goods sold so far."),
        ("tokens", "What each good still pays, dearest on top, and the face-down bonus stacks."),
        ("hand", "A player's goods cards (at most 7); only its owner sees them."),
        ("seat", "A player's herd of camels, the tokens earned this round, and seals won."),
        ("results", "Each round's rupees and who won it."),
    ),
    looks=(
        ItemLook("diamond", "#c62828", "◆", "diamond: 7, 7, 5, 5, 5; sold two or more at once"),
        ItemLook("gold", "#c99a06", "●", "gold: 6, 6, 5, 5, 5; sold two or more at once"),
        ItemLook("silver", "#78909c", "○", "silver: five 5s; sold two or more at once"),
        ItemLook("cloth", "#7b1fa2", "▦", "cloth: 5 down to 1"),
        ItemLook("spice", "#2e7d32", "✿", "spice: 5 down to 1"),
        ItemLook("leather", "#6d4c41", "▤", "leather: 4 down to 1, the most common good"),
        ItemLook(
            "camel",
            "#b08850",
            "♞",
            "camel: never sold; pays for exchanges; the bigger herd earns 5",
        ),
        ItemLook("bonus", "#5d4037", "★", "bonus token: earned by a sale of 3, 4 or 5+ cards"),
        ItemLook("seal", "#1565c0", "✪", "Seal of Excellence: a round won; two win the match"),
        ItemLook("deck", "#5b3a1e", "", "the cards still to come, face down"),
    ),
)
