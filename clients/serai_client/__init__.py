"""Python SDK, bots and terminal player for serai."""
