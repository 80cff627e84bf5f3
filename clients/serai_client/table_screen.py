"""One screen of the terminal player, laid out from the server's presentation to fit a terminal.

Any game is drawn the same way, with no game code: a header (the game, the match, your seat,
whose turn), the presentation's headline, one line per zone (its items; a long zone wraps onto
more lines while there is room, then ends in "+N more"), the last moves (at least a few, then as
many as the lines left over hold), the numbered choices of the current step, and a status line.
Seats are called by their players' names ("ann to play", not "seat 0 to play"). :func:`compose`
returns at most ``height - 1`` lines of at most ``width`` cells: the last line is the prompt's.

It draws what the presentation holds and nothing else, so it shows no more than the seat's view.

Example::

    lines = compose(Frame(header="jaipur · match x · seat 0 (you) · your turn",
                          presentation=snapshot.proto.presentation, seat=0), width=80, height=24)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.text import Text
from serai.api import match_service_pb2 as pb

from serai_client.words import plural, with_names

TITLE_WIDTH = 29
"""Cells the zone titles take at most; longer titles are cut."""

LOG_LINES = 4
"""The last moves shown at least, where there are lines for them; lines the zones leave over
show more (a three-player turn must not scroll the person's own move off)."""


def item_text(item: pb.Item) -> str:
    """An item in words: "diamond", "camel x2", "deck: 36", "7 cards (hidden)", "score: 12",
    "character (face down, position 2)".

    Counts follow the label ("wheat x4"): game labels are not all nouns that take an s."""
    if item.kind == "text" or (item.count == 0 and item.value):
        return f"{item.label}: {item.value}" if item.value else item.label
    if item.hidden:
        if item.label == "card":
            return f"{plural(item.count, 'card')} (hidden)"
        if item.value:  # where it lies: "character (face down, position 2)"
            what = item.label if item.count == 1 else f"{item.label}: {item.count}"
            return f"{what} (face down, {item.value})"
        return f"{item.label}: {item.count}"
    words = item.label if item.count == 1 else f"{item.label} x{item.count}"
    return f"{words} ({item.value})" if item.value else words


def zone_lines(zone: pb.Zone, width: int, max_lines: int, names: Sequence[str] = ()) -> list[str]:
    """The zone's items, comma separated, on at most ``max_lines`` lines of ``width`` cells;
    what does not fit ends as "+N more". ``names``: the seats' players, for "seat N"."""
    texts = [with_names(item_text(item), names) for item in zone.items] or ["—"]
    width -= 1  # room for the comma that ends a full line
    lines: list[str] = []
    current = ""
    for index, text in enumerate(texts):
        if not current:
            current = _fit(text, width)
            continue
        if len(current) + 2 + len(text) <= width:
            current += f", {text}"
            continue
        if len(lines) + 1 < max_lines:  # a new line for it
            lines.append(current + ",")
            current = _fit(text, width)
            continue
        left = len(texts) - index
        more = f" +{left} more"
        while current and len(current) + len(more) > width:  # make room for the "+N more"
            cut = current.rfind(", ")
            if cut <= 0:
                current = current[: max(0, width - len(more))]
                break
            left += 1
            more = f" +{left} more"
            current = current[:cut]
        return [*lines, current + more]
    return [*lines, current]


def choice_grid(choices: Sequence[str], width: int, rows: int, page: int) -> tuple[list[str], int]:
    """The numbered choices in columns filling ``rows`` lines, the ``page``-th screenful; and
    how many choices come after that page."""
    if rows <= 0 or not choices:
        return [], len(choices)
    numbered = [f"{i + 1:>2}. {label}" for i, label in enumerate(choices)]
    cell = max(len(text) for text in numbered) + 2
    columns = max(1, min(3, width // cell, -(-len(numbered) // rows)))
    cell = min(cell, width // columns)
    per_page = rows * columns
    start = (page % -(-len(numbered) // per_page)) * per_page  # past the last page: the first
    shown = numbered[start : start + per_page]
    used_rows = -(-len(shown) // columns)
    lines = []
    for row in range(used_rows):
        cells = [shown[i] for i in range(row, len(shown), used_rows)]
        lines.append("".join(_fit(text, cell - 1).ljust(cell) for text in cells).rstrip())
    return lines, max(0, len(numbered) - start - per_page)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


@dataclass
class Frame:
    """What one screen shows. ``choices`` is None when the seat has nothing to choose."""

    header: str
    presentation: pb.Presentation
    seat: int | None
    log: Sequence[str] = ()
    choices: Sequence[str] | None = None
    path: Sequence[str] = ()
    page: int = 0
    status: str = ""
    outcome: str = ""
    hints: str = field(default="")
    names: Sequence[str] = ()
    """Each seat's player name, for the game's "seat N" in the headline and the zones' titles
    (the log comes named: a line may name a seat on purpose)."""


def compose(frame: Frame, width: int = 80, height: int = 24) -> list[Text]:
    """The screen's lines: at most ``height - 1`` (the last line is the prompt's), each at most
    ``width`` cells."""
    budget = height - 1
    top = [Text(_fit(frame.header, width), style="bold reverse")]
    if frame.presentation.headline:
        headline = with_names(frame.presentation.headline, frame.names)
        top.append(Text(_fit(headline, width), style="bold"))
    bottom: list[Text] = []
    if frame.outcome:
        bottom.append(Text(_fit(frame.outcome, width), style="bold yellow"))
    if frame.status:
        bottom.append(Text(_fit(frame.status, width), style="yellow"))
    budget -= len(top) + len(bottom)

    zones = list(frame.presentation.zones)
    zones_min = min(len(zones), max(1, budget - 2))
    choice_lines: list[Text] = []
    if frame.choices is not None:
        rows = max(1, budget - zones_min - 2)  # two: the choices' title and one move of the log
        title = "choose" + "".join(f" > {step}" for step in frame.path)
        _, first_after = choice_grid(frame.choices, width, rows, 0)
        if first_after:
            hint = _hint(frame, width, rows, title)
            if len(title) + len(hint) + 4 > width and rows > 1:
                rows -= 1  # the help on a line of its own: cut, it would not help
                hint = _hint(frame, width, rows, title)
        else:
            hint = frame.hints
        grid, _ = choice_grid(frame.choices, width, rows, frame.page)
        if len(title) + len(hint) + 4 > width:
            choice_lines.append(Text(_fit(title, width), style="cyan"))
            choice_lines.append(Text(_fit(f"({hint})", width), style="cyan"))
        else:
            choice_lines.append(Text(f"{title}  ({hint})", style="cyan"))
        choice_lines.extend(Text(line) for line in grid)
    budget -= len(choice_lines)

    log = list(frame.log)
    log_room = min(len(log), LOG_LINES, max(1, budget - len(zones)))  # zones first, then log
    middle = _zones(zones, frame.seat, width, budget - log_room, frame.names)
    budget -= len(middle)
    shown_log = log[len(log) - budget :] if 0 < budget < len(log) else log[: max(0, budget)]
    log_lines = [Text(_fit(f"· {line}", width), style="dim") for line in shown_log]
    return top + middle + log_lines + choice_lines + bottom


def _hint(frame: Frame, width: int, rows: int, title: str) -> str:
    """The choices' help when they take more than one page: how many follow, and ``m``."""
    choices = frame.choices or ()
    _, after = choice_grid(choices, width, rows, frame.page)
    more = f"+{after} more: m" if after else "m: the first page"
    return f"{frame.hints} · {more}" if frame.hints else more


def _zones(
    zones: list[pb.Zone], seat: int | None, width: int, room: int, names: Sequence[str] = ()
) -> list[Text]:
    """A line per zone, the seat's own zones (then the others) wrapping while there is room."""
    if room <= 0:
        return []
    if len(zones) > room:  # more zones than lines: the last line says how many are left out
        shown, hidden = zones[: room - 1], len(zones) - (room - 1)
    else:
        shown, hidden = zones, 0
    titles = [with_names(z.title, names) for z in shown]
    title_width = min(TITLE_WIDTH, max((len(t) for t in titles), default=0))
    items_width = max(10, width - title_width - 1)
    spare = room - len(shown) - (1 if hidden else 0)
    allowed = [1] * len(shown)
    order = sorted(range(len(shown)), key=lambda i: not _owned_by(shown[i], seat))
    want, grew = 2, True
    while spare > 0 and grew:  # a line more each round, own zones first, while any needs it
        grew = False
        for i in order:
            if spare > 0 and len(zone_lines(shown[i], items_width, want, names)) > allowed[i]:
                allowed[i] += 1
                spare -= 1
                grew = True
        want += 1
    lines: list[Text] = []
    for zone, zone_title, most in zip(shown, titles, allowed, strict=True):
        mine = _owned_by(zone, seat)
        for n, items in enumerate(zone_lines(zone, items_width, most, names)):
            title = _fit(zone_title, title_width) if n == 0 else ""
            line = Text(title.ljust(title_width) + " ", style="bold green" if mine else "bold")
            line.append(items)
            lines.append(line)
    if hidden:
        lines.append(Text(f"+{hidden} more zones", style="dim"))
    return lines


def _owned_by(zone: pb.Zone, seat: int | None) -> bool:
    return seat is not None and zone.HasField("owner") and zone.owner == seat
