"""Where :class:`Multiplexed` was: it lives in :mod:`serai.store.redis.multiplexed` now."""

from serai.store.redis.multiplexed import Multiplexed

__all__ = ["Multiplexed"]
