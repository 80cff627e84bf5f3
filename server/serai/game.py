"""The plugin contract: what a game gives the framework, and nothing more.

A game is a pure, deterministic state machine. It never does I/O, never reads the clock and never
touches the global ``random`` module: every shuffle draws from :func:`seeded_rng`, keyed by the
match seed and a label that the state itself records (the round number, the reshuffle count), so
the same seed and moves give the same match, byte for byte.

Seats are ``0 .. players - 1``. ``None`` as a viewer means a spectator.

A plugin subclasses :class:`Game`; the framework only ever calls the methods below. Example::

    game = registry.load()["jaipur"]
    state = game.setup(players=2, seed=7, options=game.resolve_options({}))
    seat = game.to_act(state)[0]
    move = game.legal_moves(state, seat)[0]
    state = game.apply(state, seat, move)        # the old state is unchanged
    game.view_to_proto(game.view(state, seat))   # what that seat may know, as protobuf

Plugins import ``google.protobuf`` for their typed messages, never grpc or redis.
"""

from __future__ import annotations

import abc
import random
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from google.protobuf.message import Message

from serai.evaluation import Evaluation
from serai.quoting import quoted

Seat = int
StateT = TypeVar("StateT")
MoveT = TypeVar("MoveT")
ViewT = TypeVar("ViewT")
ViewT_contra = TypeVar("ViewT_contra", contravariant=True)
OptionValue = bool | int | str


class GameError(Exception):
    """Base of every error a plugin raises on purpose. ``str(err)`` is meant for a person."""


class IllegalMove(GameError):
    """The move breaks a rule (or it is not this seat's turn). The reason names the rule."""


class MalformedMove(IllegalMove):
    """The move cannot even be read: a wrong message type, missing fields, unknown values.

    A subclass of :class:`IllegalMove`, so callers that only care "was it accepted" catch one type,
    while the service can answer INVALID_ARGUMENT instead of FAILED_PRECONDITION.
    """


class InvalidOptions(GameError):
    """Match options or player count the game does not accept."""


class NotPlayable(GameError):
    """The game is registered (metadata, rules summary) but cannot be played yet."""


@dataclass(frozen=True)
class OptionSpec:
    """One match option a game accepts. The type of ``default`` is the option's type.

    An int option should say which values it takes, by ``choices`` or by ``bounds`` (the least
    and the greatest, both allowed): a value the rules never meant (a score of three billion)
    would otherwise be accepted at CreateMatch and break the match later."""

    name: str
    description: str
    default: OptionValue
    choices: tuple[OptionValue, ...] = ()
    bounds: tuple[int, int] | None = None


@dataclass(frozen=True)
class Provides:
    """What a plugin offers beyond the rules, declared as data (as OpenSpiel's ``GameType``
    declares its ``provides_*``): bots, environments and the lobby read this, never probe for
    overrides. Each field names the :class:`Game` method(s) it promises; a game that declares
    nothing is played by generic bots (random) only, and that is all it needs.

    - ``determinize``: :meth:`Game.determinize` and :meth:`Game.view_from_proto`, so that a
      search bot samples worlds from the view message its seat received;
    - ``evaluation``: :meth:`Game.evaluation`, the search's judgement of positions (without it
      the search plays random rollouts judged by the outcome);
    - ``view_tensor``: :meth:`Game.view_tensor`, a fixed-length encoding for learning agents;
    - ``present``: :meth:`Game.present`, the table drawn for people (else a generic table);
    - ``strategies``: the names :meth:`Game.strategy` builds (bots written for this game; they
      read the decoded view, so a game naming any offers :meth:`Game.view_from_proto` too);
    - ``observation``: :meth:`Game.observation`, what the rules show a seat, so that ``serai
      check`` can find a leak inside the view itself;
    - ``redeal``: :meth:`Game.redeal`, deals a seat cannot tell from the true one, so that ``serai
      check`` compares worlds where a deal from another seed would show the seat other cards.

    Example: ``Provides(determinize=True, evaluation=True, strategies=("greedy",))``.
    """

    determinize: bool = False
    evaluation: bool = False
    view_tensor: bool = False
    present: bool = False
    strategies: tuple[str, ...] = ()
    observation: bool = False
    redeal: bool = False


DEFAULT_MAX_MOVE_BYTES = 1024
"""The move size a game gets unless it declares its own: room for a move naming a few dozen
things, small enough that reading it costs next to nothing."""


_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


@dataclass(frozen=True)
class ItemLook:
    """How a table draws the items a word names: a card or token called "diamond" (or
    "discarded diamond", "papyrus/wheat": a table matches the label, else its words in order) in
    ``colour`` ("#rrggbb") with ``symbol`` (a character or two) on it, and ``help`` as its
    tooltip. Example: ``ItemLook("camel", "#c9a66b", "C", "a camel: never sold, pays exchanges")``.
    """

    word: str
    colour: str = ""
    symbol: str = ""
    help: str = ""

    def __post_init__(self) -> None:
        if self.colour and not _COLOUR.fullmatch(self.colour):
            raise ValueError(f"ItemLook {self.word!r}: colour must be #rrggbb, not {self.colour!r}")
        if len(self.symbol) > 2:
            raise ValueError(f"ItemLook {self.word!r}: symbol is at most two characters")


@dataclass(frozen=True)
class TableGuide:
    """What a newcomer needs beyond the view to read a game's table, as data (the web client
    draws it; no game code in the client): ``how_to_play``, a few short paragraphs in the
    plugin's own words; ``zones``, (zone id without its seat number, what the zone is): "hand"
    explains "hand0" and "hand1"; ``looks``, the colours and symbols of the game's items."""

    how_to_play: str = ""
    zones: tuple[tuple[str, str], ...] = ()
    looks: tuple[ItemLook, ...] = ()


@dataclass(frozen=True)
class GameInfo:
    """Metadata shown by ListGames and ``serai games``, and the bounds the service enforces.

    ``max_move_bytes`` is the largest encoded move message (the bytes packed in the move's
    ``google.protobuf.Any``) the service hands to the game: a larger payload is refused as
    malformed before it is parsed, for every game, so that a move costs at most a small,
    constant amount of work. Declare the largest encoded legal move the rules allow, with a
    margin for encodings other than the canonical one; the default suits small moves.

    ``max_legal_moves`` is the most legal moves one position can list, derived from the rules
    (None: not known): the size of the action space of the training environments (OpenSpiel's
    ``num_distinct_actions``), which refuse a position listing more rather than cut moves.
    ``legal_moves_in_steps`` is for games whose rules bound no such number (no hand limit): the
    action-space size, a choice among more legal moves being made in steps, so that every legal
    move stays playable. The environments need one of them (or ``max_actions=``) given.
    ``provides`` declares what the plugin offers beyond the rules; ``guide`` how a table is read.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    version: str
    summary: str
    playable: bool = True
    options: tuple[OptionSpec, ...] = ()
    max_move_bytes: int = DEFAULT_MAX_MOVE_BYTES
    max_legal_moves: int | None = None
    legal_moves_in_steps: int | None = None
    provides: Provides = Provides()
    guide: TableGuide = TableGuide()

    def __post_init__(self) -> None:
        bound = self.max_move_bytes
        if type(bound) is not int or bound < 1:
            raise ValueError(
                f"{self.name}: max_move_bytes must be a whole number >= 1, not {bound!r}"
            )
        moves = self.max_legal_moves
        if moves is not None and (type(moves) is not int or moves < 1):
            raise ValueError(
                f"{self.name}: max_legal_moves must be a whole number >= 1 or None, not {moves!r}"
            )
        steps = self.legal_moves_in_steps
        if steps is not None and (type(steps) is not int or steps < 2):
            raise ValueError(
                f"{self.name}: legal_moves_in_steps must be a whole number >= 2 or None, not "
                f"{steps!r}"
            )


@dataclass(frozen=True)
class Outcome:
    """The result of a finished match.

    ``scores`` are per seat in the game's own unit (seals, rupees, points); ``ranks`` are per seat,
    0 for the winner(s), equal ranks for a shared place. ``summary`` is one line for a person.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    summary: str
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def winners(self) -> tuple[Seat, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 0)


@dataclass(frozen=True)
class Item:
    """Cards, tokens or a value in a :class:`Zone`: ``count`` things called ``label``; ``value``
    a text such as token values ("7 5 5"); ``hidden`` for face-down things (only counted)."""

    label: str
    count: int = 1
    value: str = ""
    hidden: bool = False
    kind: str = "card"


@dataclass(frozen=True)
class Zone:
    """A part of the table as people see it: the market, a hand, a field, a pile of tokens.
    ``owner`` is the seat it belongs to (None: shared); ``id`` is stable within a game."""

    id: str
    title: str
    items: tuple[Item, ...] = ()
    owner: Seat | None = None
    note: str = ""


@dataclass(frozen=True)
class Presentation:
    """A view described for people (see :meth:`Game.present`): a headline and zones."""

    headline: str
    zones: tuple[Zone, ...] = ()


@dataclass(frozen=True)
class Private:
    """An announcement addressed to some seats alone: the card a peek showed its player, the
    result of a comparison made in secret. :meth:`Game.announcements` returns it among its plain
    strings (public news).

    The seats in ``to`` read ``text``; every other watcher (the other seats, spectators, their
    transcripts) reads ``others`` instead: what the rules let them see of it ("seat 0 looked at
    seat 1's card"), or, left empty, that the seats in ``to`` were told something. ``serai check``
    counts ``text`` as observed by those seats alone, so it must be the same in every world where
    their own observations are; ``others`` must name nothing hidden.

    Example: ``Private("seat 1 holds a Duelist", to=(0,), others="seat 0 looked at seat 1's
    card")``.
    """

    text: str
    to: tuple[Seat, ...]
    others: str = ""

    def __post_init__(self) -> None:
        seats = self.to
        if not isinstance(seats, tuple) or not seats or any(type(s) is not int for s in seats):
            raise ValueError(f"a Private announcement's `to` is a tuple of seats, not {seats!r}")

    def read_by(self, seat: Seat | None) -> str:
        """The text ``seat`` (None: a spectator) reads of this announcement."""
        return self.text if seat in self.to else self.withheld

    @property
    def withheld(self) -> str:
        """What every seat not in ``to`` reads."""
        if self.others:
            return self.others
        named = ", ".join(str(seat) for seat in self.to)
        if len(self.to) == 1:
            return f"seat {named} was told something"
        return f"seats {named} were told something"


Announcement = str | Private
"""What :meth:`Game.announcements` returns each of: public text, or a :class:`Private` one."""


def told(announcements: Sequence[Announcement], seat: Seat | None) -> tuple[str, ...]:
    """The texts of the :class:`Private` announcements addressed to ``seat``: what it alone
    observes of a move (``serai check`` keeps it with the seat's observations)."""
    return tuple(a.text for a in announcements if isinstance(a, Private) and seat in a.to)


def heard(announcements: Sequence[Announcement], seat: Seat | None) -> tuple[str, ...]:
    """Every announcement as ``seat`` (None: a spectator) reads it, in order."""
    return tuple(a if isinstance(a, str) else a.read_by(seat) for a in announcements)


class Strategy(Protocol[ViewT_contra, MoveT]):
    """A bot written for one game (:meth:`Game.strategy`): it chooses one of ``moves`` (the
    seat's legal moves, in the rules' order) from the seat's own ``view`` alone."""

    def choose(self, view: ViewT_contra, seat: Seat, moves: Sequence[MoveT]) -> MoveT: ...


def seeded_rng(seed: int, *labels: object) -> random.Random:
    """A generator determined by the match seed and the labels, on every platform and run.

    String seeds go through SHA-512 inside ``random.Random``, unaffected by PYTHONHASHSEED.
    """
    return random.Random(":".join(str(part) for part in (seed, *labels)))


class Game(abc.ABC, Generic[StateT, MoveT, ViewT]):
    """A game plugin. States, moves and views are the plugin's own immutable values.

    Moves must be hashable and compare by value, so that ``legal_moves`` can be checked for
    duplicates and a submitted move can be matched against the list.
    """

    info: GameInfo

    # --- the rules -------------------------------------------------------------------------------

    @abc.abstractmethod
    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> StateT:
        """The initial state. Raises InvalidOptions or NotPlayable."""

    @abc.abstractmethod
    def to_act(self, state: StateT) -> tuple[Seat, ...]:
        """The seats that must act now; empty once the match is over."""

    @abc.abstractmethod
    def legal_moves(self, state: StateT, seat: Seat) -> Sequence[MoveT]:
        """Every legal move of ``seat``, each once, in a deterministic order; empty if none."""

    @abc.abstractmethod
    def apply(self, state: StateT, seat: Seat, move: MoveT) -> StateT:
        """The state after ``seat`` plays ``move``. Raises IllegalMove; never mutates ``state``."""

    @abc.abstractmethod
    def view(self, state: StateT, seat: Seat | None) -> ViewT:
        """What ``seat`` may know (``None``: a spectator), and nothing more."""

    @abc.abstractmethod
    def outcome(self, state: StateT) -> Outcome | None:
        """The result once the match is over, else None."""

    @abc.abstractmethod
    def players(self, state: StateT) -> int:
        """The number of seats in the match."""

    def announcements(self, before: StateT, after: StateT) -> Sequence[Announcement]:
        """News a move caused, beyond the move itself: each a public text ("round 1: seat 0 wins
        68 to 65"), or a :class:`Private` one that some seats alone read in full (the card a
        peek showed); the others read that it happened, as the rules say they do."""
        return ()

    def determinize(self, view: ViewT, rng: random.Random) -> StateT:
        """A full state consistent with ``view``, the hidden part sampled from ``rng``.

        For search bots that must not cheat. Optional (declared by ``Provides.determinize``,
        with :meth:`view_from_proto`): the default says it is not offered.
        """
        raise NotImplementedError(f"{self.info.name} offers no determinize")

    def evaluation(self) -> Evaluation:
        """The search bot's judgement of this game's positions (see :mod:`serai.evaluation`).

        Optional (declared by ``Provides.evaluation``): the default knows nothing of the game,
        random rollouts judged by the outcome alone."""
        return Evaluation(self)

    def strategy(self, name: str, rng: random.Random) -> Strategy[ViewT, MoveT]:
        """The bot called ``name`` written for this game (one of ``Provides.strategies``),
        drawing any chance from ``rng``. Optional: the default offers none."""
        raise NotImplementedError(f"{self.info.name} offers no strategy {name!r}")

    def observation(self, state: StateT, seat: Seat | None) -> Hashable:
        """What the rules show ``seat`` (``None``: a spectator) at this moment, as a plain
        hashable value: its own cards, the cards face up, whose turn it is, the public part of
        the last move, and what the last move showed it alone (the card a peek revealed), unless
        a :class:`Private` announcement told it that: the check keeps what a seat was told with
        its observations.

        No memory: ``serai check`` keeps the history of observations itself, and checks that
        everything the seat receives (its view, labels, announcements, legal moves, error texts)
        is the same in every world it deals where that history is the same. So the view may
        remember anything observed, and nothing else. Optional (declared by
        ``Provides.observation``): without it the check can only take the view for what the
        seat observes, and cannot find a leak inside the view.
        """
        raise NotImplementedError(f"{self.info.name} declares no observation")

    def redeal(self, state: StateT, seat: Seat | None, rng: random.Random) -> StateT:
        """``state`` with what ``seat`` (None: a spectator) does not observe in it dealt anew
        from ``rng``: the other hands, the deck's order, face-down tokens. For ``serai check``
        only, which calls it on the deal and replays the match's moves from there.

        Nothing in it is trusted: the check keeps a world only while the seat's observations
        (:meth:`observation`) agree with the true match's, and counts none equal to the true
        state, so a redeal that changes too much only ends its worlds early, and one that
        changes nothing compares nothing. Change what stays hidden longest (the bottom of the
        deck rather than its top) to keep worlds alive. Optional (declared by
        ``Provides.redeal``, with ``Provides.observation``): without it the check deals worlds
        from other seeds, which seldom show a seat the same cards.
        """
        raise NotImplementedError(f"{self.info.name} offers no redeal")

    def view_tensor(self, view: ViewT) -> Sequence[float] | None:
        """A fixed-length numeric encoding of ``view``, for learning agents; None if not offered.

        Optional (declared by ``Provides.view_tensor``): the default offers none. Where offered,
        every view of a match (any seat, any moment) gives the same length for a given player
        count, and the numbers are derived from ``view`` alone, so they hold no more than the
        view does.
        """
        return None

    def present(self, view: Message) -> Presentation | None:
        """The view described for people: zones of labelled cards, counts and values.

        ``view`` is the decoded :attr:`view_message` (parsed from the bytes the seat receives),
        so a presentation can say nothing the view does not. Optional: None (the default) gets a
        generic rendering, the view's fields and values as a table.
        """
        return None

    def move_steps(self, move: MoveT) -> tuple[str, ...]:
        """The move as a path of choices, for people picking it step by step: moves that share
        their first steps share those choices (("exchange", "take 2 diamond", "give 2 camel")).
        Optional: the default, (), is one step, the label."""
        return ()

    # --- words and bytes -------------------------------------------------------------------------

    @abc.abstractmethod
    def label(self, move: MoveT) -> str:
        """A short public description of the move for people: "sell 3 cloth"."""

    @abc.abstractmethod
    def encode_state(self, state: StateT) -> bytes:
        """Bytes for storage; equal states give equal bytes."""

    @abc.abstractmethod
    def decode_state(self, data: bytes) -> StateT:
        """The inverse of :meth:`encode_state`. Raises ValueError for bytes it did not write."""

    @abc.abstractmethod
    def move_to_proto(self, move: MoveT) -> Message:
        """The move as the game's typed protobuf message."""

    @abc.abstractmethod
    def move_from_proto(self, message: Message) -> MoveT:
        """The move a typed message describes. Raises MalformedMove; legality is apply's job.

        The service passes only messages of at most ``info.max_move_bytes``; still, refuse a
        repeated field (or a count) longer than the rules could ever allow by its ``len()``
        before converting its entries, so that no message costs more than a legal one."""

    def view_to_proto(self, view: ViewT) -> Message:
        """The view as the game's typed protobuf message (a :attr:`view_message`).

        The default is for games whose views *are* their generated view message (the schema
        written once, in the .proto): it hands the view over as it is. A game with views of its
        own overrides this and :meth:`view_from_proto`."""
        if not isinstance(view, self.view_message):
            raise TypeError(
                f"{self.info.name}: view() gave a {type(view).__name__}, not its view_message "
                f"{self.view_message.__name__}; return that message, or override view_to_proto"
            )
        return view

    def view_from_proto(self, message: Message) -> ViewT:
        """The view a :attr:`view_message` describes: the exact inverse of :meth:`view_to_proto`,
        so that a bot holding only what its seat was sent can hand it to :meth:`determinize` or
        to a :meth:`strategy`. Optional (declared with ``Provides.determinize`` or
        ``Provides.strategies``); raises ValueError for a message of another type. Games whose
        views are their view message (the default :meth:`view_to_proto`) get it for free."""
        if getattr(type(self), "view_to_proto", None) is not Game.view_to_proto:
            raise NotImplementedError(f"{self.info.name} offers no view_from_proto")
        if not isinstance(message, self.view_message):
            raise ValueError(
                f"a {self.info.name} view is a {self.view_message.__name__}, "
                f"not a {type(message).__name__}"
            )
        return message  # type: ignore[return-value]  # the view is this message

    def view_bytes(self, view: ViewT) -> bytes:
        """:meth:`view_to_proto`'s message serialized deterministically: what the service sends
        for every snapshot. Override it only where the bytes come cheaper than the message, and
        give exactly these bytes."""
        return self.view_to_proto(view).SerializeToString(deterministic=True)

    @property
    @abc.abstractmethod
    def move_message(self) -> type[Message]:
        """The protobuf class of this game's moves, for unpacking ``google.protobuf.Any``."""

    @property
    @abc.abstractmethod
    def view_message(self) -> type[Message]:
        """The protobuf class of this game's views."""

    # --- shared helpers --------------------------------------------------------------------

    def resolve_options(self, given: Mapping[str, str | OptionValue]) -> dict[str, OptionValue]:
        """Defaults filled in, strings from the wire converted, unknown names refused."""
        specs = {spec.name: spec for spec in self.info.options}
        unknown = sorted(set(given) - set(specs))
        if unknown:
            known = ", ".join(sorted(specs)) or "none"
            named = ", ".join(quoted(name) for name in unknown[:_ECHOED_NAMES])
            if len(unknown) > _ECHOED_NAMES:
                named += f" and {len(unknown) - _ECHOED_NAMES} more"
            raise InvalidOptions(f"unknown option(s) {named}; {self.info.name} accepts: {known}")
        resolved: dict[str, OptionValue] = {}
        for name, spec in specs.items():
            value = _coerce_option(spec, given[name]) if name in given else spec.default
            if spec.choices and value not in spec.choices:
                allowed = ", ".join(str(choice) for choice in spec.choices)
                raise InvalidOptions(f"option {name}={_shown(value)} is not one of: {allowed}")
            if spec.bounds and not spec.bounds[0] <= value <= spec.bounds[1]:  # type: ignore[operator]
                least, greatest = spec.bounds
                raise InvalidOptions(
                    f"option {name}={_shown(value)} is not from {least} to {greatest}"
                )
            resolved[name] = value
        return resolved

    def check_players(self, players: int) -> None:
        """Raise InvalidOptions unless the game takes this many players."""
        info = self.info
        if not info.min_players <= players <= info.max_players:
            span = (
                str(info.min_players)
                if info.min_players == info.max_players
                else f"{info.min_players} to {info.max_players}"
            )
            raise InvalidOptions(f"{info.title} is played by {span} players, not {players}")


def _coerce_option(spec: OptionSpec, raw: str | OptionValue) -> OptionValue:
    kind = type(spec.default)
    if isinstance(raw, kind) and not (kind is int and isinstance(raw, bool)):
        return raw
    text = str(raw).strip()
    try:
        if kind is bool:
            lowered = text.lower()
            if lowered in ("true", "1", "yes", "on"):
                return True
            if lowered in ("false", "0", "no", "off"):
                return False
            raise ValueError(text)
        if kind is int:
            return int(text)
    except ValueError:
        raise InvalidOptions(f"option {spec.name}={_shown(raw)} is not a {kind.__name__}") from None
    return text


# Unknown option names a message lists before "and N more": a client may send thousands.
_ECHOED_NAMES = 5


def _shown(value: str | OptionValue) -> str:
    """An option value as a message echoes it: text quoted and cut (see :func:`quoted`), a number
    as written, cut the same way (int() reads up to 4,300 digits)."""
    if isinstance(value, str):
        return quoted(value)
    text = repr(value)
    return text if len(text) <= 32 else f"{text[:32]}… ({len(text)} characters)"
