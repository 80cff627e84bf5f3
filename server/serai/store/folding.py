"""Where folding a finished match was: it lives in :mod:`serai.store.redis.folding` now."""

from serai.store.redis.folding import FOLDED, fold, joined, missing_pieces, unfold

__all__ = ["FOLDED", "fold", "joined", "missing_pieces", "unfold"]
