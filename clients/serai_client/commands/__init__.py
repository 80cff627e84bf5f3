"""serai subcommands that are clients of a running server."""
