"""Python code generated from proto/serai/v1 by `python -m serai.protogen`. Do not edit."""
