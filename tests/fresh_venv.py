"""A fresh virtual environment that sees this one's packages (serai and its dependencies), for
installing a game package into it as its author would, without touching the environment the
tests run in."""

from __future__ import annotations

import site
import subprocess
import sys
import venv
from pathlib import Path


def fresh_venv(folder: Path) -> Path:
    """A venv in ``folder`` whose interpreter also sees this environment's site-packages; its
    python is returned."""
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / "bin" / "python"
    theirs = Path(
        subprocess.run(
            [str(python), "-c", "import site; print(site.getsitepackages()[0])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # addsitedir (not a bare path line) so that this environment's own .pth files, serai's
    # editable install among them, are read too.
    ours = "; ".join(f"site.addsitedir({path!r})" for path in site.getsitepackages())
    (theirs / "parent-environment.pth").write_text(f"import site; {ours}\n")
    return python


def pip_install_editable(python: Path, package: Path) -> None:
    """``pip install -e package`` into the venv of ``python``, with this environment's pip and
    build tools (no download: serai and protobuf are already there)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-input",
            "-e",
            str(package),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
