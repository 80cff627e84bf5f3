"""The subcommands of the ``serai`` console script, one module each.

Each module offers ``add_parser(subparsers)``, which adds its parser and sets ``run`` (a function
of the parsed arguments returning an exit code) as a default.
"""
