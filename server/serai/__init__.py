"""serai: a game server for turn-based card games with hidden information."""

__version__ = "0.1.0"
