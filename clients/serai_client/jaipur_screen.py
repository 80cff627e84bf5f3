"""A Jaipur view drawn for a person: the table, your cards, the opponent's public state.

It draws fields of the ``View`` message the seat received and nothing else. The opponent's
panel shows counts and token values only — how many cards they hold, never which: the view does
not carry them, and this module does not try to guess.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from serai_jaipur import jaipur_pb2 as jpb

GOOD_NAMES = ("diamond", "gold", "silver", "cloth", "spice", "leather", "camel")
STYLES = {
    "diamond": "bold red",
    "gold": "bold yellow",
    "silver": "bold white",
    "cloth": "magenta",
    "spice": "green",
    "leather": "dark_orange3",
    "camel": "tan",
}


def cards_text(cards: jpb.Cards, *, camels: bool = True) -> Text:
    """ "2 diamond · 1 gold · 2 camel", or "none"."""
    text = Text()
    for name in GOOD_NAMES:
        if name == "camel" and not camels:
            continue
        count = getattr(cards, name)
        if count:
            if text:
                text.append(" · ")
            text.append(f"{count} {name}", style=STYLES[name])
    return text if text else Text("none", style="dim")


def _good_name(value: int) -> str:
    return GOOD_NAMES[value - 1] if 1 <= value <= len(GOOD_NAMES) else "?"


def table_panel(view: jpb.View) -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("market", cards_text(view.market))
    grid.add_row("deck", f"{view.deck_size} cards")
    grid.add_row("discards", cards_text(view.discards, camels=False))
    stacks = Text()
    for stack in view.goods_stacks:
        name = _good_name(stack.good)
        if stacks:
            stacks.append("  ")
        values = " ".join(map(str, stack.values)) or "empty"
        stacks.append(f"{name}: ", style=STYLES.get(name, ""))
        stacks.append(values)
    grid.add_row("tokens", stacks)
    bonus = view.bonus_left
    grid.add_row("bonus left", f"3-card {bonus.three} · 4-card {bonus.four} · 5-card {bonus.five}")
    title = f"round {view.round} (deal {view.deal}) · seat {view.starter} started"
    return Panel(grid, title=title, title_align="left")


def _tokens_line(player: jpb.Player) -> str:
    values = [token.value for token in player.goods_tokens]
    counts = player.bonus_counts
    held = counts.three + counts.four + counts.five
    return f"{sum(values)} rupees in {len(values)} goods tokens · {held} bonus tokens"


def you_panel(player: jpb.Player) -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("hand", cards_text(player.hand, camels=False))
    grid.add_row("herd", f"{player.herd} camels")
    grid.add_row("tokens", _tokens_line(player))
    if player.bonus_tokens:
        bonus = ", ".join(f"{t.value} ({t.cards}-card)" for t in player.bonus_tokens)
        grid.add_row("your bonuses", bonus)
    grid.add_row("seals", str(player.seals))
    return Panel(grid, title=f"you · seat {player.seat}", title_align="left", style="")


def opponent_panel(player: jpb.Player) -> Panel:
    """Public facts only: hand size, herd, token values, bonus count, seals."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("hand", f"{player.hand_size} cards (hidden)")
    grid.add_row("herd", f"{player.herd} camels")
    grid.add_row("tokens", _tokens_line(player))
    grid.add_row("seals", str(player.seals))
    return Panel(grid, title=f"opponent · seat {player.seat}", title_align="left")


def results_panel(view: jpb.View) -> Panel | None:
    if not view.results:
        return None
    lines = []
    for result in view.results:
        rupees = " to ".join(
            f"seat {s.seat} {s.rupees}" for s in sorted(result.scores, key=lambda s: s.seat)
        )
        who = f"seat {result.winner} wins" if result.HasField("winner") else "a tie, replayed"
        lines.append(f"round {result.round}: {who} ({rupees}; ended by {result.ended_by})")
    return Panel("\n".join(lines), title="rounds", title_align="left")


def jaipur_panels(view: jpb.View, seat: int) -> list[RenderableType]:
    """The panels for ``seat``: the table, the seat itself, then every other seat."""
    parts: list[RenderableType] = [table_panel(view)]
    for player in view.players:
        if player.seat == seat and player.HasField("hand"):
            parts.append(you_panel(player))
    for player in view.players:
        if player.seat != seat:
            parts.append(opponent_panel(player))
    results = results_panel(view)
    if results is not None:
        parts.append(results)
    return parts
