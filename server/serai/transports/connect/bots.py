"""``/bots`` on the HTTP port: which house bots each game offers, and a request to start one
(see :mod:`serai.house_bots`). Plain JSON, not Connect: a web page or curl calls it in one line.

    GET  /bots  -> 200 {"strategies": {"jaipur": ["random", "greedy", "search"], ...},
                        "running": 0, "limit": 16}
    POST /bots  {"matchId": "...", "strategy": "greedy", "seat": 1}   (seat optional)
                -> 201 {"matchId", "game", "seat", "strategy", "playerName"}

The API key a POST carries (``authorization: Bearer <key>`` or ``x-serai-key``) is the bot's:
it joins only a match that key may join. Errors answer ``{"message": "..."}`` with 400 (a bad
request, or a strategy the game lacks), 401/403 (the key), 404 (no such match, or house bots
off), 409 (no free seat), 429 (the limit of bots playing at once) or 503 (stopping).
"""

from __future__ import annotations

import json
from typing import Any

from serai.house_bots import HouseBotError, HouseBots
from serai.rpc.auth import token_of

PATH = "/bots"
MAX_BODY_BYTES = 4096

_JSON = b"application/json"
_SHAPE = '{"matchId": "...", "strategy": "greedy", "seat": 1} (seat optional)'


class BotsRoute:
    """The ASGI app of ``/bots``; ``bots`` None: house bots are off (every call is 404)."""

    def __init__(self, bots: HouseBots | None) -> None:
        self.bots = bots

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            if self.bots is None:
                raise HouseBotError(
                    404, "this server plays no house bots (it runs with --house-bots 0)"
                )
            if scope["method"] in ("GET", "HEAD"):
                listing = {
                    "strategies": self.bots.strategies(),
                    "running": self.bots.running,
                    "limit": self.bots.limit,
                }
                await _answer(send, 200, listing, head=scope["method"] == "HEAD")
                return
            if scope["method"] != "POST":
                raise HouseBotError(405, "use GET to list the bots, POST to start one")
            request = _request(await _body(receive))
            headers = [(name.decode("latin-1"), value) for name, value in scope["headers"]]
            started = await self.bots.start(
                request["matchId"],
                request["strategy"],
                seat=request.get("seat"),
                api_key=token_of(headers),
            )
        except HouseBotError as error:
            await _answer(send, error.status, {"message": error.message})
            return
        answer = {
            "matchId": started.match_id,
            "game": started.game,
            "seat": started.seat,
            "strategy": started.strategy,
            "playerName": started.player_name,
        }
        await _answer(send, 201, answer)


async def _body(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise HouseBotError(400, "the request ended early")
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            raise HouseBotError(413, f"the request is over {MAX_BODY_BYTES} bytes")
        if not message.get("more_body"):
            return body


def _request(body: bytes) -> dict[str, Any]:
    """The POST's fields, checked: matchId and strategy strings, seat a whole number if given."""
    try:
        request = json.loads(body or b"null")
    except (ValueError, UnicodeDecodeError):
        request = None
    if not isinstance(request, dict):
        raise HouseBotError(400, f"the body must be a JSON object: {_SHAPE}")
    for field in ("matchId", "strategy"):
        if not isinstance(request.get(field), str) or not request[field]:
            raise HouseBotError(400, f"{field} must be a non-empty string")
    seat = request.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or seat < 0):
        raise HouseBotError(400, "seat must be a whole number from 0, or left out")
    return request


async def _answer(send: Any, status: int, content: object, *, head: bool = False) -> None:
    body = json.dumps(content).encode()
    headers = [
        (b"content-type", _JSON),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})
