"""Where the Redis store was: it lives in :mod:`serai.store.redis` now, a room per job. This
module keeps every name it had importable, the private ones tests reach for included."""

from serai.store.redis.connect import DEFAULT_MAX_CONNECTIONS, parse_sentinel_url, printable_url
from serai.store.redis.errors import store_error
from serai.store.redis.keys import CLOCKS_KEY, client_key, index_key, match_keys
from serai.store.redis.pools import BoundedPool, WaitingSentinelPool, lean_pool_fits
from serai.store.redis.scripts import Script
from serai.store.redis.store import RedisStore, open_store
from serai.store.redis.wire import QuickSend, packed, quick_send

_BoundedPool = BoundedPool
_WaitingSentinelPool = WaitingSentinelPool
_lean_pool_fits = lean_pool_fits
_QuickSend = QuickSend
_quick_send = quick_send
_packed = packed
_Script = Script
_store_error = store_error

__all__ = [
    "CLOCKS_KEY",
    "DEFAULT_MAX_CONNECTIONS",
    "RedisStore",
    "client_key",
    "index_key",
    "match_keys",
    "open_store",
    "parse_sentinel_url",
    "printable_url",
]
