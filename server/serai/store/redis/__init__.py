"""The Redis store (:class:`RedisStore`), in rooms of one job each.

``keys`` names what is stored where; ``scripts`` (with ``lua/``) makes every change in one round
trip; ``encoding`` and ``folding`` give the stored values their compact forms; ``store`` runs one
match's operations, ``streams`` reads its events, ``indexes`` keeps the global sorted sets and
``expiry`` hands finished matches to the archive, then lets them expire;
``connect`` turns URLs into clients over the ``pools`` and the ``wire`` fast path (with
``multiplexed``, the connection that loads and commits share); ``errors`` says which of redis-py's
errors pass.
"""

from serai.store.redis.connect import printable_url
from serai.store.redis.store import RedisStore, open_store

__all__ = ["RedisStore", "open_store", "printable_url"]
