"""Committed, jointly random deals: the server's secret seed, its public commitment, and the match
seed derived from it and every seat's entropy, so that neither the operator alone nor any one
player can choose or foresee a deal, and anyone can check it once the match is over.

At CreateMatch the server draws :data:`SERVER_SEED_BYTES` random bytes and publishes only
:func:`commitment` of them. Each seat may add up to :data:`MAX_ENTROPY` bytes when it joins. When
the last seat joins, the match seed is :func:`match_seed` of the server seed and the entropy of
every seat, in seat order; the game deals from it then. Once the match is finished the server seed
and the entropy are shown, so anyone can recompute the commitment and the seed::

    server_seed = new_server_seed()
    published = commitment(server_seed)             # shown from the start
    seed = match_seed(server_seed, [b"\\x01", b""])  # shown, with server_seed, at the end
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

SERVER_SEED_BYTES = 32
MAX_ENTROPY = 64  # bytes a seat may add (the SDK sends 16)
# Domain-separation prefixes: a commitment is never a seed derivation, nor either anything else.
COMMITMENT_PREFIX = b"serai/v1/seed-commitment\x00"
DERIVATION_PREFIX = b"serai/v1/match-seed\x00"
# The seed an open match with a committed deal is set up with until it starts: the same for every
# such match, so what a seat sees before the start tells nothing about the deal to come.
PLACEHOLDER_SEED = 0


def new_server_seed() -> bytes:
    """A fresh secret server seed."""
    return secrets.token_bytes(SERVER_SEED_BYTES)


def commitment(server_seed: bytes) -> bytes:
    """SHA-256 of the prefixed server seed: binds the server to it without showing it."""
    return hashlib.sha256(COMMITMENT_PREFIX + server_seed).digest()


def opens(published: bytes, server_seed: bytes) -> bool:
    """Whether ``server_seed`` is the one ``published`` commits to."""
    return hmac.compare_digest(published, commitment(server_seed))


def match_seed(server_seed: bytes, entropy: Sequence[bytes]) -> int:
    """The match seed (63 bits, as a random one) of the server seed and each seat's entropy, in
    seat order. Each part is length-prefixed, so no two lists of parts give the same input."""
    digest = hashlib.sha256(DERIVATION_PREFIX)
    for part in (server_seed, *entropy):
        digest.update(len(part).to_bytes(4, "big") + part)
    return int.from_bytes(digest.digest()[:8], "big") >> 1
