"""A person's clicks in the web table, as the browser tests of outside games make them."""

from __future__ import annotations

import random
from typing import Any


def click_until_the_match_ends(page: Any, rng: random.Random, most: int = 200) -> None:
    """Click a random offered move (or step of one) until the outcome shows; after each click,
    wait until the page has changed (the move went, or the next step is offered)."""
    for _ in range(most):
        if page.locator(".outcome").count():
            return
        moves, steps = page.locator("[data-move]"), page.locator("[data-step]")
        offered = moves if moves.count() else steps
        if not offered.count():  # the other seat is to act: wait for the table to change
            page.wait_for_selector("[data-move], [data-step], .outcome")
            continue
        before = page.inner_html("body")
        offered.nth(rng.randrange(offered.count())).click()
        page.wait_for_function("before => document.body.innerHTML !== before", arg=before)
    raise AssertionError(f"no outcome after {most} clicks: {page.inner_text('body')}")
