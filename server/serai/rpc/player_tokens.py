"""Player tokens: the JWTs an app signs to vouch for one of its players, checked here against
what the app's API key registered (see :class:`serai.store.api_keys.PlayerTokenRules`).

serai keeps no accounts: the app owns its users and says who is playing. A token's ``sub`` is
the app's stable player id, ``name`` (optional) the display name; ``exp`` is required. Exactly
the algorithms the key's material allows are accepted: HS256 with its signing secret, RS256 or
ES256 (by the public key's type) with a PEM public key or a JWKS URL; never ``none``, never an
HMAC over a public key. A token that does not pass raises :class:`PlayerTokenRefused`, its reason
for the audit log (:func:`serai.rpc.players.player_of` answers the caller). Only keys that take
player tokens load this module, and PyJWT and cryptography with it. Example::

    checker = PlayerTokens(PlayerTokenRules(secret="..."))
    player = await checker.verify(token)            # Player(id="u-17", name="Ada")
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
import urllib.request
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from jwt.utils import base64url_encode

from serai.matches.errors import BadRequest
from serai.matches.requests import check_player_name
from serai.rpc.players import Player, PlayerTokenRefused
from serai.store.api_keys import PlayerTokenRules

MAX_TOKEN = 8192  # characters: longer is refused unread
MAX_PLAYER_ID = 256
LEEWAY_SECONDS = 10  # clocks of the app and of serai may differ a little
JWKS_LIFESPAN_SECONDS = 300  # how long a JWKS read is used before it is read again
JWKS_RETRY_SECONDS = 10  # a failed JWKS read is not tried again for this long
MAX_JWKS_BYTES = 256 * 1024  # a JWKS body larger than this is refused unread (a few keys: ~2 KB)
# Claims PyJWT would read as numbers from text too ("exp": "9999999999"): here only JSON numbers.
_NUMERIC_CLAIMS = ("exp", "nbf", "iat")
# Tokens already verified are remembered until their exp (a player's app sends one token for
# many calls): a dict lookup instead of a signature check. Bounded: cleared when full.
REMEMBERED_TOKENS = 4096
MAX_REMEMBERED_TOKEN = 2048  # characters: longer ones are checked each time


def public_key_algorithm(pem: str) -> tuple[Any, str]:
    """The key object of a PEM public key and the one algorithm it verifies: RS256 for RSA,
    ES256 for EC P-256; ValueError for anything else."""
    try:
        key = load_pem_public_key(pem.encode())
    except ValueError as error:
        raise ValueError(f"not a PEM public key: {error}") from None
    if isinstance(key, rsa.RSAPublicKey):
        if key.key_size < 2048:
            raise ValueError(f"an RSA key of {key.key_size} bits is too short: 2048 at least")
        return key, "RS256"
    if isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
        return key, "ES256"
    raise ValueError("player tokens take an RSA key (RS256) or an EC P-256 key (ES256)")


# PyJWT's failures, most specific first, as the audit log's reasons.
_REASONS: tuple[tuple[type[Exception], str], ...] = (
    (jwt.ExpiredSignatureError, "expired"),
    (jwt.InvalidSignatureError, "bad signature"),
    (jwt.InvalidAudienceError, "wrong audience"),
    (jwt.InvalidIssuerError, "wrong issuer"),
    (jwt.InvalidAlgorithmError, "algorithm not allowed"),
    (jwt.MissingRequiredClaimError, "missing claim"),
    (jwt.ImmatureSignatureError, "not yet valid"),
    (jwt.InvalidKeyError, "unusable key"),
    (jwt.InvalidTokenError, "malformed"),
)


class PlayerTokens:
    """The check of one key's player tokens, built once per key and rules (the PEM parsed once,
    the JWKS client and its cache kept)."""

    def __init__(self, rules: PlayerTokenRules) -> None:
        self.rules = rules
        self._key: Any = None
        self._jwks: jwt.PyJWKClient | None = None
        # The key as a PyJWK, bound to its one algorithm: PyJWT then prepares it once, not on
        # every token (about 40% of an HS256 check).
        if rules.secret:
            secret = base64url_encode(str(rules.secret).encode()).decode()
            self._key = jwt.PyJWK({"kty": "oct", "k": secret}, algorithm="HS256")
            self._algorithms = ["HS256"]
        elif rules.public_key:
            key, algorithm = public_key_algorithm(rules.public_key)
            algorithms = jwt.algorithms
            kind = algorithms.RSAAlgorithm if algorithm == "RS256" else algorithms.ECAlgorithm
            self._key = jwt.PyJWK(kind.to_jwk(key, as_dict=True), algorithm=algorithm)
            self._algorithms = [algorithm]
        elif rules.jwks_url:
            self._jwks = BoundedJwksClient(
                rules.jwks_url, cache_keys=True, lifespan=JWKS_LIFESPAN_SECONDS, timeout=5
            )
            self._algorithms = ["RS256", "ES256"]
        else:
            raise ValueError("no way to check player tokens: a secret, public key or JWKS URL")
        self._options: Any = {"require": ["exp", "sub"], "verify_aud": bool(rules.audience)}
        self._seen: dict[str, tuple[Player, float]] = {}  # token -> its player, its exp

    async def verify(self, token: str) -> Player:
        """The player the token names; PlayerTokenRefused if it does not pass. A token that
        passed before is not checked again until its ``exp`` (this object lives while the key's
        rules stay the same: see serai.rpc.auth)."""
        seen = self._seen.get(token)
        if seen is not None and time.time() < seen[1]:
            return seen[0]
        player, expires = await self.check(token)
        if len(token) <= MAX_REMEMBERED_TOKEN:
            if len(self._seen) >= REMEMBERED_TOKENS:
                self._seen.clear()
            self._seen[token] = (player, expires)
        return player

    async def check(self, token: str) -> tuple[Player, float]:
        """The player the token names and its exp, checked now (no memory of tokens seen)."""
        if len(token) > MAX_TOKEN:
            raise PlayerTokenRefused("malformed")
        key = self._key
        if self._jwks is not None:
            key = await self._jwks_key(token)
        rules = self.rules
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=self._algorithms,
                audience=rules.audience or None,
                issuer=rules.issuer or None,
                leeway=LEEWAY_SECONDS,
                options=self._options,
            )
        except jwt.InvalidTokenError as error:
            raise PlayerTokenRefused(_reason(error)) from None
        for claim in _NUMERIC_CLAIMS:
            value = claims.get(claim, 0)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PlayerTokenRefused(f"non-numeric {claim}")
        player_id, name = claims.get("sub"), claims.get("name", "")
        if not isinstance(player_id, str) or not 0 < len(player_id) <= MAX_PLAYER_ID:
            raise PlayerTokenRefused("bad sub")
        if not isinstance(name, str):
            raise PlayerTokenRefused("bad name")
        try:
            check_player_name(name)
        except BadRequest:
            raise PlayerTokenRefused("bad name") from None
        expires = claims["exp"]  # required, and a JSON number (checked above)
        return Player(player_id, name), float(expires)

    async def _jwks_key(self, token: str) -> Any:
        """The key of the JWKS that signed ``token`` (by its ``kid``); read in a thread, since
        PyJWKClient reads the URL blocking (once a ``lifespan``: cached after)."""
        jwks = self._jwks
        assert jwks is not None
        try:
            signing = await asyncio.to_thread(jwks.get_signing_key_from_jwt, token)
        except jwt.PyJWKClientConnectionError:
            raise PlayerTokenRefused("JWKS unreachable") from None
        except JwksUnusable:
            raise PlayerTokenRefused("JWKS unusable") from None
        except jwt.PyJWKClientError:
            raise PlayerTokenRefused("unknown signing key") from None
        except jwt.InvalidTokenError as error:
            raise PlayerTokenRefused(_reason(error)) from None
        except jwt.PyJWTError:  # PyJWKSetError: a JSON object with no usable key
            raise PlayerTokenRefused("JWKS unusable") from None
        if signing.key_type not in ("RSA", "EC"):  # an "oct" key is a shared secret: no
            raise PlayerTokenRefused("symmetric JWKS key")
        return signing.key


class JwksUnusable(jwt.PyJWKClientError):
    """The JWKS URL answered, but not a JWKS: too large, not JSON, or no keys."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is an error: the key registered names the set's own URL


class BoundedJwksClient(jwt.PyJWKClient):
    """PyJWKClient reading at most :data:`MAX_JWKS_BYTES` (a larger set is refused unread, not
    held in memory), one read at a time, and remembering a failed read for
    :data:`JWKS_RETRY_SECONDS`: meanwhile every token it would check is refused at once, so a
    JWKS that is down or answers junk costs one read per period, not one per call."""

    def __init__(self, uri: str, **options: Any) -> None:
        super().__init__(uri, **options)
        self._reading = threading.Lock()
        self._failed: tuple[float, jwt.PyJWKClientError] | None = None

    def fetch_data(self) -> Any:
        with self._reading:
            failed = self._failed
            if failed is not None and time.monotonic() - failed[0] < JWKS_RETRY_SECONDS:
                raise failed[1]
            try:
                data = self._read()
            except jwt.PyJWKClientError as error:
                self._failed = (time.monotonic(), error)
                raise
            self._failed = None
            if self.jwk_set_cache is not None:
                self.jwk_set_cache.put(data)
            return data

    def get_jwk_set(self, refresh: bool = False) -> jwt.PyJWKSet:
        try:
            return super().get_jwk_set(refresh)
        except jwt.PyJWKSetError as error:  # a JSON object, but no key in it can be used
            self._failed = (time.monotonic(), JwksUnusable(str(error)))
            raise JwksUnusable(str(error)) from None

    def _read(self) -> dict[str, Any]:
        request = urllib.request.Request(self.uri, headers=self.headers)
        handlers: list[Any] = [_NoRedirects()]
        if self.ssl_context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=self.ssl_context))
        try:
            with urllib.request.build_opener(*handlers).open(request, timeout=self.timeout) as got:
                length = got.headers.get("content-length")
                if length is not None and length.isdigit() and int(length) > MAX_JWKS_BYTES:
                    raise JwksUnusable(f"the JWKS is over {MAX_JWKS_BYTES} bytes")
                body = got.read(MAX_JWKS_BYTES + 1)
        except JwksUnusable:
            raise
        except (OSError, ValueError, http.client.HTTPException) as error:
            raise jwt.PyJWKClientConnectionError(f"cannot read the JWKS: {error}") from None
        if len(body) > MAX_JWKS_BYTES:
            raise JwksUnusable(f"the JWKS is over {MAX_JWKS_BYTES} bytes")
        try:
            data = json.loads(body)
        except ValueError:
            raise JwksUnusable("the JWKS URL did not answer JSON") from None
        if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
            raise JwksUnusable("the JWKS URL did not answer a JWKS (an object with keys)")
        return data


def _reason(error: Exception) -> str:
    for kind, reason in _REASONS:
        if isinstance(error, kind):
            return reason
    return "malformed"
