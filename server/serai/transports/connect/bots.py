"""``/bots`` on the HTTP port: which house bots each game offers, and a request to start one
(see :mod:`serai.house_bots`). Plain JSON, not Connect: a web page or curl calls it in one line.

    GET  /bots  -> 200 {"strategies": {"jaipur": ["random", "greedy", "search"], ...},
                        "running": 0, "limit": 16}
    POST /bots  {"matchId": "...", "strategy": "greedy", "seat": 1}   (seat optional)
                -> 201 {"matchId", "game", "seat", "strategy", "playerName"}

The API key a POST carries (``authorization: Bearer <key>`` or ``x-serai-key``) is the bot's:
it joins only a match that key may join. Once the store holds API keys (or keys are required),
a POST without a valid one is refused: an anonymous caller may not spend the server's CPU on
bots. A POST must say ``content-type: application/json`` and come from this server's own page
or an origin --http-allow-origin names: a page elsewhere could otherwise start bots with a
"simple" cross-origin request, which a browser sends without asking first. Errors answer
``{"message": "..."}`` with 400 (a bad request, or a strategy the game lacks), 401/403 (the
key, or a foreign origin), 404 (no such match, or house bots off), 409 (no free seat), 415 (not
JSON), 429 (the limit of bots playing at once, in all or for this caller) or 503 (stopping).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from serai.house_bots import HouseBotError, HouseBots
from serai.rpc.auth import Authenticator, token_of
from serai.rpc.limits import quota_key_of
from serai.rpc.status import RpcError

PATH = "/bots"
MAX_BODY_BYTES = 4096
KEYS_CHECKED_SECONDS = 5.0  # how long "the store holds API keys" is believed

_JSON = b"application/json"
_SHAPE = '{"matchId": "...", "strategy": "greedy", "seat": 1} (seat optional)'


class BotsRoute:
    """The ASGI app of ``/bots``; ``bots`` None: house bots are off (every call is 404).
    ``allows(origin)``: whether a page of that origin may call (CORS's list); ``auth``: the
    process's API keys (None: keys are not looked at), ``keys_exist()`` whether any was made."""

    def __init__(
        self,
        bots: HouseBots | None,
        *,
        allows: Callable[[str], bool] = lambda origin: False,
        auth: Authenticator | None = None,
        keys_exist: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.bots = bots
        self.allows = allows
        self.auth = auth
        self.keys_exist = keys_exist
        self._keys_seen: tuple[float, bool] | None = None

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
            headers = [(name.decode("latin-1"), value) for name, value in scope["headers"]]
            self._check_origin(headers)
            owner, api_key = await self._caller(scope, headers)
            request = _request(await _body(receive))
            started = await self.bots.start(
                request["matchId"],
                request["strategy"],
                seat=request.get("seat"),
                api_key=api_key,
                owner=owner,
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

    def _check_origin(self, headers: list[tuple[str, bytes]]) -> None:
        """JSON only, from this server's own pages or an allowed origin (see the module)."""
        found = dict(headers)
        kind = found.get("content-type", b"").partition(b";")[0].strip().lower()
        if kind != _JSON:
            raise HouseBotError(415, "send the request as JSON: content-type: application/json")
        origin = found.get("origin", b"").decode("latin-1")
        if not origin:
            return  # not a browser's page (curl, a program): CORS does not apply
        host = found.get("host", b"").decode("latin-1")
        if origin.partition("://")[2] == host or self.allows(origin):
            return
        raise HouseBotError(
            403, f"pages of {origin} may not start bots here (serai serve --http-allow-origin)"
        )

    async def _caller(
        self, scope: dict[str, Any], headers: list[tuple[str, bytes]]
    ) -> tuple[str, str]:
        """Whose bot this is (its API key's quota key, else its address) and its key; 401
        for a bad key, or for none where keys exist."""
        token = token_of(headers)
        client = scope.get("client") or ("", 0)
        address = quota_key_of(f"http:{client[0]}:{client[1]}")
        auth = self.auth
        if auth is None:
            return address, token
        if token:
            try:
                principal = await auth.principal(token, "HouseBots")
            except RpcError as refused:
                raise HouseBotError(401, refused.message) from None
            return f"key:{principal.name}", token
        if auth.required or await self._keys_made():
            raise HouseBotError(
                401,
                "this server has API keys: send yours to start a bot, as "
                "`authorization: Bearer <key>`",
            )
        return address, token

    async def _keys_made(self) -> bool:
        if self.keys_exist is None:
            return False
        now = time.monotonic()
        seen = self._keys_seen
        if seen is None or now - seen[0] >= KEYS_CHECKED_SECONDS:
            seen = self._keys_seen = (now, await self.keys_exist())
        return seen[1]


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
