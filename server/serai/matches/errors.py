"""The lifecycle's failures: one type per failure; the service maps each to one status code."""

from __future__ import annotations


class MatchError(Exception):
    """Base of the lifecycle's own failures. ``str(err)`` says what was wrong and what to do."""


class BadRequest(MatchError):
    """A request that cannot be read: an empty id, a bad seat number, a bad event id."""


class GameNotFound(MatchError):
    """No game of that name is installed."""


class MatchNotFound(MatchError):
    """No match of that id."""


class MatchExpired(MatchNotFound):
    """The match existed, but nobody changed it for the idle limit, so the store dropped it."""


class MatchLost(MatchNotFound):
    """The store no longer has a match the server issued (its id carries the check of
    :mod:`serai.matches.match_ids`), and it neither expired nor went to the archive: lost in a
    store failover or restart."""


class MoveNotFound(MatchError):
    """A move id that is not in the current list of legal moves."""


class SeatTaken(MatchError):
    """The seat asked for (or every seat) is already joined."""


class Unauthenticated(MatchError):
    """The request acts for a seat but carries no seat token."""


class WrongToken(MatchError):
    """The seat token does not belong to this match."""


class NotYourTurn(MatchError):
    """The seat is not among those that must act now."""


class MatchNotRunning(MatchError):
    """The match is still waiting for seats, or already over."""


class StaleVersion(MatchError):
    """The move was chosen at an older version of the match."""


class LimitExceeded(MatchError):
    """A configured limit was reached."""


class WatchBehind(MatchError):
    """A watcher fell too far behind its match's events: its watch ended, and it resumes after
    the last event it received."""
