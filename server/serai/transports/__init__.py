"""The wires serai is served on: each one an adapter over :mod:`serai.rpc`'s handlers."""
