"""A registered game whose rules are not written yet: the contract's metadata, and nothing else.

Kept apart from :mod:`serai.game` (the contract itself) since it is a stand-in, not part of what a
plugin writes: ListGames shows such a game, and CreateMatch says clearly why it cannot start one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf.message import Message

from serai.game import Game, NotPlayable, OptionValue, Outcome, Seat


class UnplayableGame(Game[None, None, None]):
    """Base for a registered game whose rules are not written yet: metadata only.

    Every rules method answers NotPlayable, so ListGames can show the game and CreateMatch can say
    clearly why it cannot start one.
    """

    def _refuse(self) -> NotPlayable:
        return NotPlayable(f"{self.info.title} is registered but not playable yet")

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> None:
        self.check_players(players)
        raise self._refuse()

    def to_act(self, state: None) -> tuple[Seat, ...]:
        raise self._refuse()

    def legal_moves(self, state: None, seat: Seat) -> Sequence[None]:
        raise self._refuse()

    def apply(self, state: None, seat: Seat, move: None) -> None:
        raise self._refuse()

    def view(self, state: None, seat: Seat | None) -> None:
        raise self._refuse()

    def outcome(self, state: None) -> Outcome | None:
        raise self._refuse()

    def players(self, state: None) -> int:
        raise self._refuse()

    def label(self, move: None) -> str:
        raise self._refuse()

    def encode_state(self, state: None) -> bytes:
        raise self._refuse()

    def decode_state(self, data: bytes) -> None:
        raise self._refuse()

    def move_to_proto(self, move: None) -> Message:
        raise self._refuse()

    def move_from_proto(self, message: Message) -> None:
        raise self._refuse()

    def view_to_proto(self, view: None) -> Message:
        raise self._refuse()

    @property
    def move_message(self) -> type[Message]:
        raise self._refuse()

    @property
    def view_message(self) -> type[Message]:
        raise self._refuse()
