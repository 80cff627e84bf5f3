"""``python -m serai``: the ``serai`` command, for an environment whose scripts are not on PATH."""

import sys

from serai.cli import main

sys.exit(main())
