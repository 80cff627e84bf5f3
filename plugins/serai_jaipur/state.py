"""The match state: immutable values only (frozen dataclasses of ints and tuples).

Why plain tuples of ints: a state is compared, hashed, encoded and copied on every move of every
playout, and tuples of small ints make all of that cheap and exact. Card piles the rules treat as
multisets are count vectors indexed by :class:`~serai_jaipur.cards.Good`; the deck and the bonus
stacks keep their (hidden) order, top first.

Nothing here changes a state: the rules build a new one for every move, with :func:`evolve`.
"""

from __future__ import annotations

from dataclasses import dataclass

Counts = tuple[int, ...]
"""Cards by type: 7 entries (every type, camels last) or 6 (goods only), indexed by Good."""

Token = tuple[int, int]
"""A token a player holds: (good, value) for goods tokens, (cards 3/4/5, value) for bonuses."""

ENDED_BY_STACKS = "stacks"
ENDED_BY_DECK = "deck"


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A scored round, public once the round is over (bonus values revealed).

    ``winner`` is None for a complete tie (rupees, bonus tokens and goods tokens all equal): no
    seal, and the round is played again with the same ``round`` number and the next ``deal``.
    """

    round: int
    deal: int
    starter: int
    ended_by: str
    goods_tokens: tuple[tuple[int, ...], ...]
    bonus_tokens: tuple[tuple[int, ...], ...]
    camels: tuple[int, ...]
    camel_token: int | None
    rupees: tuple[int, ...]
    winner: int | None


@dataclass(frozen=True)
class State:
    """Everything about a match, hidden parts included. Only the rules module builds these.

    Not slotted, on purpose: a playout builds one State per move, and :func:`evolve` builds it
    by copying the instance dict, one C call, where the frozen ``__init__`` would set sixteen
    fields one ``object.__setattr__`` at a time (a fifth of a random playout's time).

    - ``seed``: the match seed; every deal is shuffled by ``seeded_rng(seed, "deal", deal)``.
    - ``deal``: deals so far, replays of a tied round included (1 for the first).
    - ``round``: the round being played, counted by seals awarded (a replay keeps the number).
    - ``starter``: the seat that started this deal; ``turn``: the seat to act, None once over.
    - ``market``: 7 counts; ``deck``: card types, top first; ``discards``: 6 counts.
    - ``hands``: per seat, 6 counts of goods; ``herds``: per seat, camels.
    - ``stacks``: goods tokens left per good (the bottom ones of each fixed stack).
    - ``bonus``: the three shuffled bonus stacks (3, 4, 5 cards), values top first.
    - ``goods_tokens`` / ``bonus_tokens``: per seat, tokens taken this round, in order.
    - ``seals``: per seat; ``results``: every scored round, oldest first.
    """

    seed: int
    deal: int
    round: int
    starter: int
    turn: int | None
    market: Counts
    deck: tuple[int, ...]
    hands: tuple[Counts, ...]
    herds: tuple[int, ...]
    discards: Counts
    stacks: Counts
    bonus: tuple[tuple[int, ...], ...]
    goods_tokens: tuple[tuple[Token, ...], ...]
    bonus_tokens: tuple[tuple[Token, ...], ...]
    seals: tuple[int, ...]
    results: tuple[RoundResult, ...]

    @property
    def over(self) -> bool:
        """True once a seat holds the seals that win the match."""
        return self.turn is None


def evolve(state: State, **changes: object) -> State:
    """``state`` with ``changes``, like ``dataclasses.replace`` but without running ``__init__``.

    For the rules' inner loop only: the changes are not checked (names or types), so a caller
    passes field names of :class:`State` and values of the declared types. Example::

        >>> after = evolve(state, turn=1)  # doctest: +SKIP
        >>> after == dataclasses.replace(state, turn=1)  # doctest: +SKIP
        True
    """
    fields = state.__dict__.copy()
    fields.update(changes)
    after = object.__new__(State)
    object.__setattr__(after, "__dict__", fields)
    return after
