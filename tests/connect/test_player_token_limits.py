"""Player tokens under hostile input (issue 32, items 11 and 14): a JWKS URL answering a huge
body, junk or nothing is refused as UNAUTHENTICATED (never INTERNAL), read at most once per
retry period, and never held whole in memory; a token whose ``exp`` is a numeric string is
refused. The check of :mod:`serai.rpc.player_tokens` against a real HTTP server of the test's
own."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from serai.rpc.context import Principal
from serai.rpc.player_tokens import MAX_JWKS_BYTES, PlayerTokens
from serai.rpc.players import player_of
from serai.rpc.status import Code, RpcError
from serai.store.redis.api_keys import PlayerTokenRules

SECRET = "a signing secret of at least thirty-two bytes"


class JwksSite:
    """An HTTP server answering every GET with ``body`` (its content-length left out when
    ``chunked``), counting the requests."""

    def __init__(self) -> None:
        self.body = b"{}"
        self.hide_length = False
        self.reads = 0
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.reads += 1
                self.send_response(200)
                self.send_header("content-type", "application/json")
                if not site.hide_length:
                    self.send_header("content-length", str(len(site.body)))
                self.end_headers()
                # the reader may stop reading: what a bounded read does
                with contextlib.suppress(OSError):
                    self.wfile.write(site.body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def site() -> Iterator[JwksSite]:
    served = JwksSite()
    yield served
    served.server.shutdown()


def refusal(checker: PlayerTokens, token: str) -> tuple[Code, str]:
    """How ``player_of`` answers ``token`` for an app whose key checks with ``checker``."""
    principal = Principal("app", players=checker)
    try:
        asyncio.run(player_of(principal, token, "JoinMatch"))
    except RpcError as error:
        return error.code, error.message
    raise AssertionError("the token was accepted")


def signed_rs256(signer: Any) -> str:
    claims = {"sub": "u-17", "exp": int(time.time()) + 600}
    return jwt.encode(claims, signer, algorithm="RS256", headers={"kid": "k1"})


def test_a_jwks_that_is_not_one_is_refused_unauthenticated(site: JwksSite) -> None:
    """Junk, a JSON list, an object without keys, and a set with no usable key: each answers
    UNAUTHENTICATED (before, a non-JSON body escaped as an INTERNAL error with a traceback)."""
    token = signed_rs256(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    for body in (b"<html>not json</html>", b"[1, 2]", b'{"no": "keys"}', b'{"keys": [{"x": 1}]}'):
        site.body = body
        checker = PlayerTokens(PlayerTokenRules(jwks_url=site.url))
        code, _ = refusal(checker, token)
        assert code is Code.UNAUTHENTICATED, body


def test_a_huge_jwks_is_refused_unread(site: JwksSite) -> None:
    """A body over the limit is refused whether or not it says its length, without reading it
    all (the server sees the reader go away)."""
    token = signed_rs256(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    site.body = b'{"keys": [' + b" " * (8 * MAX_JWKS_BYTES) + b"]}"
    for hidden in (False, True):
        site.hide_length = hidden
        code, _ = refusal(PlayerTokens(PlayerTokenRules(jwks_url=site.url)), token)
        assert code is Code.UNAUTHENTICATED


def test_a_failed_jwks_read_is_remembered(site: JwksSite) -> None:
    """Tokens checked while the JWKS answers junk cost one read, not one each; a good set is
    used once the retry period is over (simulated by forgetting the failure's time)."""
    signer = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = signed_rs256(signer)
    site.body = b"down for maintenance"
    checker = PlayerTokens(PlayerTokenRules(jwks_url=site.url))
    for _ in range(20):
        assert refusal(checker, token)[0] is Code.UNAUTHENTICATED
    assert site.reads == 1
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(signer.public_key()))
    site.body = json.dumps({"keys": [{**public, "kid": "k1", "use": "sig"}]}).encode()
    jwks = checker._jwks
    assert jwks is not None
    jwks._failed = None  # the retry period is over
    player = asyncio.run(checker.verify(token))
    assert player.id == "u-17" and site.reads == 2


@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
def test_a_numeric_string_time_claim_is_refused(claim: str) -> None:
    """``"exp": "9999999999"`` (text, not a number) is refused, as are such ``nbf`` and
    ``iat``; the same claims as numbers pass."""
    checker = PlayerTokens(PlayerTokenRules(secret=SECRET))
    now = int(time.time())
    good = {"sub": "u-17", "exp": now + 600, "nbf": now - 5, "iat": now - 5}
    assert asyncio.run(checker.check(jwt.encode(good, SECRET, algorithm="HS256")))[0].id == "u-17"
    bad = {**good, claim: str(good[claim])}
    code, _ = refusal(checker, jwt.encode(bad, SECRET, algorithm="HS256"))
    assert code is Code.UNAUTHENTICATED
