"""A small Love Letter-like game, as an outside author would write it, with five leaks to switch on.

Each seat holds one card and draws a second on its turn, then plays one of the two: a Watcher
looks at another seat's card (a private announcement tells the watcher alone; the others read that
it looked), a Duelist compares hands with another seat in private (each of the two is told the
other's card; the lower card is out and shown to all; the higher stays between the two), a
Swapper trades hands with another seat, a Crown does nothing. When the deck runs out, or one seat
is left, the highest card still in hand wins.

``PeekGame(leaks={...})`` plants the leaks ``serai check`` must find whatever ``determinize``
does (its determinize here copies everything its view shows, the worst case):

- ``public_log``: the card a Watcher saw goes in the public log every view shows;
- ``private_logs``: that card goes in every seat's private log, not only the watcher's;
- ``known_field``: the view's ``known`` field shows every seat's peeks, not only the viewer's;
- ``label``: a move names the card its mover keeps, in its payload and its label;
- ``error``: refusing a card the seat does not hold names the deck's next card;
- ``private_text``: what the other seats read of a Watcher's private announcement names the card.

Views and moves are ``google.protobuf.Struct`` messages, so the fixture needs no generated code.
"""

from __future__ import annotations

import json
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message
from serai.game import (
    Game,
    GameInfo,
    IllegalMove,
    MalformedMove,
    OptionValue,
    Outcome,
    Presentation,
    Private,
    Provides,
    Seat,
    seeded_rng,
)

WATCHER, DUELIST, SWAPPER, CROWN = 1, 2, 3, 4
NAMES = {WATCHER: "Watcher", DUELIST: "Duelist", SWAPPER: "Swapper", CROWN: "Crown"}
DECK = (WATCHER,) * 5 + (DUELIST,) * 4 + (SWAPPER,) * 2 + (CROWN,)
NOBODY = -1
LEAKS = frozenset({"public_log", "private_logs", "known_field", "label", "error", "private_text"})


@dataclass(frozen=True)
class Play:
    """Play ``card`` on ``target`` (NOBODY for a Crown, or when no other seat is left).
    ``keep`` is set only by the ``label`` leak: the card the mover keeps."""

    card: int
    target: int = NOBODY
    keep: int = 0


@dataclass(frozen=True)
class State:
    players: int
    deck: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    discards: tuple[tuple[int, ...], ...]
    out: tuple[bool, ...]
    turn: int | None
    learned: tuple[tuple[str, ...], ...]
    """Each seat's private log, as its view shows it."""
    log: tuple[str, ...] = ()
    """The public log: the label of every move and the announcements."""
    known: tuple[tuple[int, int, int], ...] = ()
    """(watcher, watched, card) of every peek, for the view's ``known`` field."""
    last: tuple[int, int, int, int] = (NOBODY, 0, NOBODY, NOBODY)
    """The last move as the table sees it: seat, card, target, the seat it put out."""


def _tuples(value: Any) -> Any:
    return tuple(_tuples(item) for item in value) if isinstance(value, list) else value


@dataclass
class PeekGame(Game[State, Play, State]):
    """The peek/compare/trade game; ``leaks`` names the leaks planted (none: the clean game)."""

    leaks: frozenset[str] = field(default_factory=frozenset)
    info = GameInfo(
        "peek",
        "Peek",
        2,
        4,
        "1",
        "peek, duel, swap: the highest card wins",
        provides=Provides(determinize=True, observation=True),
    )

    _sent: dict[State, bytes] = field(default_factory=dict, repr=False, compare=False)
    """View bytes by view: building a Struct is slow, and the check asks for thousands."""

    def __post_init__(self) -> None:
        self.leaks = frozenset(self.leaks)
        assert self.leaks <= LEAKS, self.leaks - LEAKS

    # --- the rules ---------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> State:
        self.check_players(players)
        deck = list(DECK)
        seeded_rng(seed, "deal").shuffle(deck)
        hands = [[deck.pop()] for _ in range(players)]
        hands[0].append(deck.pop())
        return State(
            players=players,
            deck=tuple(deck),
            hands=tuple(tuple(sorted(hand)) for hand in hands),
            discards=((),) * players,
            out=(False,) * players,
            turn=0,
            learned=((),) * players,
        )

    def to_act(self, state: State) -> tuple[Seat, ...]:
        return () if state.turn is None else (state.turn,)

    def players(self, state: State) -> int:
        return state.players

    def legal_moves(self, state: State, seat: Seat) -> Sequence[Play]:
        if seat != state.turn:
            return []
        targets = [t for t in range(state.players) if t != seat and not state.out[t]] or [NOBODY]
        moves = []
        hand = state.hands[seat]
        for index, card in enumerate(hand):
            if card in hand[:index]:
                continue
            keep = hand[1 - index] if "label" in self.leaks else 0
            for target in [NOBODY] if card == CROWN else targets:
                moves.append(Play(card, target, keep))
        return moves

    def apply(self, state: State, seat: Seat, move: Play) -> State:
        if seat != state.turn:
            raise IllegalMove(f"it is not seat {seat}'s turn")
        hand = list(state.hands[seat])
        if move.card not in hand:
            reason = f"you do not hold a {NAMES.get(move.card, 'card of that kind')}"
            if "error" in self.leaks and state.deck:
                reason += f"; the deck's next card is a {NAMES[state.deck[-1]]}"
            raise IllegalMove(reason)
        if move not in self.legal_moves(state, seat):
            raise IllegalMove("target another seat still in the match (none for a Crown)")
        hand.remove(move.card)
        hands = [list(h) for h in state.hands]
        hands[seat] = hand
        discards = [list(d) for d in state.discards]
        discards[seat].append(move.card)
        out = list(state.out)
        learned = [list(notes) for notes in state.learned]
        known = list(state.known)
        log = [*state.log, f"seat {seat}: {self.label(move)}"]
        loser, target = NOBODY, move.target
        if move.card == WATCHER and target != NOBODY:
            card = hands[target][0]
            note = f"seat {target} holds a {NAMES[card]}"
            learned[seat].append(note)
            known.append((seat, target, card))
            if "public_log" in self.leaks:
                log.append(f"seat {seat} saw that {note}")
            if "private_logs" in self.leaks:
                for other in range(state.players):
                    if other != seat:
                        learned[other].append(f"seat {seat} saw that {note}")
        elif move.card == DUELIST and target != NOBODY:
            mine, theirs = hands[seat][0], hands[target][0]
            learned[seat].append(f"you dueled seat {target}'s {NAMES[theirs]}")
            learned[target].append(f"seat {seat} dueled you with a {NAMES[mine]}")
            loser = seat if mine < theirs else target if theirs < mine else NOBODY
            if loser != NOBODY:
                out[loser] = True
                discards[loser] += hands[loser]
                hands[loser] = []
                log.append(f"seat {loser} loses the duel and is out")
        elif move.card == SWAPPER and target != NOBODY:
            hands[seat], hands[target] = hands[target], hands[seat]
        deck = list(state.deck)
        live = [s for s in range(state.players) if not out[s]]
        turn: int | None = None
        if len(live) > 1 and deck:
            turn = next(
                s % state.players
                for s in range(seat + 1, seat + state.players + 1)
                if not out[s % state.players]
            )
            hands[turn].append(deck.pop())
        return replace(
            state,
            deck=tuple(deck),
            hands=tuple(tuple(sorted(h)) for h in hands),
            discards=tuple(tuple(d) for d in discards),
            out=tuple(out),
            turn=turn,
            learned=tuple(tuple(notes) for notes in learned),
            log=tuple(log),
            known=tuple(known),
            last=(seat, move.card, target, loser),
        )

    def announcements(self, before: State, after: State) -> Sequence[str | Private]:
        """What a Watcher saw, or what a duel showed each of its two, told to them alone; a duel
        lost; the result."""
        news: list[str | Private] = []
        seat, card, target, _ = after.last
        if card == WATCHER and target != NOBODY:
            seen = NAMES[before.hands[target][0]]
            others = f"seat {seat} looked at seat {target}'s card"
            if "private_text" in self.leaks:
                others += f", a {seen}"
            news.append(Private(f"seat {target} holds a {seen}", (seat,), others))
        elif card == DUELIST and target != NOBODY:
            mine = list(before.hands[seat])
            mine.remove(card)
            theirs = NAMES[before.hands[target][0]]
            news.append(Private(f"you dueled seat {target}'s {theirs}", (seat,)))
            news.append(Private(f"seat {seat} dueled you with a {NAMES[mine[0]]}", (target,)))
        news += [line for line in after.log[len(before.log) + 1 :] if "loses the duel" in line]
        if after.turn is None and before.turn is not None:
            outcome = self.outcome(after)
            assert outcome is not None
            news.append(outcome.summary)
        return news

    def outcome(self, state: State) -> Outcome | None:
        if state.turn is not None:
            return None
        best = max(state.hands[s][0] for s in range(state.players) if not state.out[s])
        won = [not state.out[s] and state.hands[s][0] == best for s in range(state.players)]
        winners = ", ".join(str(s) for s in range(state.players) if won[s])
        return Outcome(
            scores=tuple(int(w) for w in won),
            ranks=tuple(0 if w else 1 for w in won),
            summary=f"seat(s) {winners} win with a {NAMES[best]}",
        )

    def observation(self, state: State, seat: Seat | None) -> Hashable:
        """Own cards, discards face up, who is out, the deck's size, whose turn, the last move as
        the table saw it; every hand once the match is over. What a move showed this seat alone
        is not here: a private announcement tells it (and ``serai check`` counts it observed)."""
        table = (state.discards, state.out, len(state.deck), state.turn, state.last)
        mine = () if seat is None else state.hands[seat]
        ended = state.hands if state.turn is None else ()
        return table, mine, ended

    def view(self, state: State, seat: Seat | None) -> State:
        """The state with what ``seat`` may not see blanked (hands, deck order, others' logs)."""
        hidden = ((0,) * len(hand) for hand in state.hands)
        hands = tuple(
            hand if seat == owner or state.turn is None else blank
            for owner, (hand, blank) in enumerate(zip(state.hands, hidden, strict=True))
        )
        known = (
            state.known
            if "known_field" in self.leaks
            else tuple(entry for entry in state.known if entry[0] == seat)
        )
        learned = tuple(notes if owner == seat else () for owner, notes in enumerate(state.learned))
        return replace(
            state,
            deck=(0,) * len(state.deck),
            hands=hands,
            learned=learned,
            known=known,
        )

    def determinize(self, view: State, rng: random.Random) -> State:
        """Keeps everything the view shows (including whatever it wrongly shows) and deals the
        cards it does not show at random."""
        unseen = list(DECK)
        for card in [c for hand in view.hands for c in hand if c] + [
            c for pile in view.discards for c in pile
        ]:
            unseen.remove(card)
        rng.shuffle(unseen)
        hands = tuple(tuple(sorted(c if c else unseen.pop() for c in hand)) for hand in view.hands)
        return replace(view, hands=hands, deck=tuple(unseen))

    # --- words and bytes ---------------------------------------------------------------------

    def label(self, move: Play) -> str:
        text = f"play a {NAMES.get(move.card, '?')}"
        if move.target != NOBODY:
            text += f" on seat {move.target}"
        if move.keep:
            text += f", keeping a {NAMES.get(move.keep, '?')}"
        return text

    def encode_state(self, state: State) -> bytes:
        return json.dumps(asdict(state), sort_keys=True).encode()

    def decode_state(self, data: bytes) -> State:
        try:
            fields = json.loads(data)
            return State(**{name: _tuples(value) for name, value in fields.items()})
        except (ValueError, TypeError) as error:
            raise ValueError(f"not a peek state: {error}") from None

    def move_to_proto(self, move: Play) -> struct_pb2.Struct:
        message = struct_pb2.Struct()
        message.update({"card": move.card, "target": move.target, "keep": move.keep})
        return message

    def move_from_proto(self, message: Any) -> Play:
        values = json_format.MessageToDict(message)
        try:
            return Play(*(int(values.get(name, default)) for name, default in _MOVE_FIELDS))
        except (TypeError, ValueError, OverflowError):
            raise MalformedMove(
                f"a move has whole numbers {[n for n, _ in _MOVE_FIELDS]}"
            ) from None

    def view_to_proto(self, view: State) -> struct_pb2.Struct:
        message = struct_pb2.Struct()
        message.update({name: getattr(view, name) for name in _VIEW_FIELDS})
        return message

    def present(self, view: Message) -> Presentation:
        """A headline only: the generic table of a Struct is slow to draw, thousands of times."""
        fields = view.fields  # type: ignore[attr-defined]
        turn = fields["turn"]
        to_play = "over" if turn.HasField("null_value") else f"seat {int(turn.number_value)}"
        return Presentation(f"{to_play}; {len(fields['deck'].list_value.values)} cards in the deck")

    def view_bytes(self, view: State) -> bytes:
        sent = self._sent.get(view)
        if sent is None:
            sent = self._sent[view] = super().view_bytes(view)
        return sent

    @property
    def move_message(self) -> type[struct_pb2.Struct]:
        return struct_pb2.Struct

    @property
    def view_message(self) -> type[struct_pb2.Struct]:
        return struct_pb2.Struct


_MOVE_FIELDS = (("card", 0), ("target", NOBODY), ("keep", 0))
_VIEW_FIELDS = (
    "players",
    "deck",
    "hands",
    "discards",
    "out",
    "turn",
    "learned",
    "log",
    "known",
    "last",
)


def install(folder: Path) -> Path:
    """A folder that, on ``sys.path``, installs the clean game as a package would (for a ``serai
    serve`` subprocess): this module and a ``dist-info`` naming its entry point."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "peek_game.py").write_text(Path(__file__).read_text())
    info = folder / "peek_game-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: peek-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[serai.games]\npeek = peek_game:PeekGame\n")
    return folder
