"""Regenerates the Python code of every .proto file under proto/. One command, run in the folder
that holds ``proto/`` (serai's repository, or a game package of its own, as ``serai new-game``
writes it)::

    python -m serai.protogen            # rewrite the generated files in place
    python -m serai.protogen --check    # exit 1 if the committed files are stale

Where the generated modules go (the protobuf package stays as third-party clients see it):

- ``proto/serai/v1/*.proto``               -> ``server/serai/api/``   (import ``serai.api``)
- ``proto/serai/games/<game>/v1/*.proto``  -> ``plugins/serai_<game>/`` in serai's repository,
  ``serai_<game>/`` in a game's own package (import ``serai_<game>`` either way)

protoc writes imports after the proto path (``from serai.v1 import x_pb2``); they are rewritten to
the packages above, so each plugin carries its own messages and server/ knows none of them.
The service's files also get a Connect module (``*_connect.py``: the ASGI application that
serves them over Connect, gRPC-Web and JSON, and a client) from protoc-gen-connectrpc, and a
descriptor set with their comments (``*.binpb``) that server reflection answers with, so a
running server documents its API.
Needs grpcio-tools and protoc-gen-connectrpc (test dependencies), pinned so that the output is
byte-identical.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAME_PROTO = re.compile(r"^serai/games/(?P<game>[a-z0-9_]+)/v1/")
SERVICE_PROTO = re.compile(r"^serai/v1/")


def destination(proto_relative: str, root: Path = ROOT) -> tuple[Path, str]:
    """(folder under ``root``, python package) for a generated file's proto-relative path."""
    if SERVICE_PROTO.match(proto_relative):
        return Path("server/serai/api"), "serai.api"
    match = GAME_PROTO.match(proto_relative)
    if match:
        package = f"serai_{match['game']}"
        # serai's repository keeps its games under plugins/; a game's own package at its top.
        folder = Path("plugins") / package if (root / "plugins").is_dir() else Path(package)
        return folder, package
    raise ValueError(
        f"no destination rule for {proto_relative}: a game's messages go in "
        "proto/serai/games/<game>/v1/; see serai.protogen"
    )


def _rewrite_imports(text: str) -> str:
    def service(m: re.Match[str]) -> str:
        return f"from serai.api import {m['module']}"

    def game(m: re.Match[str]) -> str:
        return f"from serai_{m['game']} import {m['module']}"

    text = re.sub(r"from serai\.v1 import (?P<module>\w+)", service, text)
    return re.sub(r"from serai\.games\.(?P<game>\w+)\.v1 import (?P<module>\w+)", game, text)


def generate(root: Path = ROOT) -> dict[Path, bytes]:
    """Every generated file, keyed by its path relative to ``root``, without writing them."""
    import grpc_tools
    from grpc_tools import protoc

    proto_root = root / "proto"
    protos = sorted(p.relative_to(proto_root).as_posix() for p in proto_root.rglob("*.proto"))
    services = [proto for proto in protos if SERVICE_PROTO.match(proto)]
    include = Path(grpc_tools.__file__).parent / "_proto"
    outputs: dict[Path, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "protoc",
            f"-I{proto_root}",
            f"-I{include}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            *protos,
        ]
        if protoc.main(args) != 0:
            raise RuntimeError("protoc failed; see its message above")
        if services:  # the service's Connect module; a game package has none
            _connect(proto_root, include, Path(tmp), services)
        for proto in services:
            described = Path(tmp) / re.sub(r"\.proto$", ".binpb", proto)
            described_args = [
                "protoc",
                f"-I{proto_root}",
                f"-I{include}",
                "--include_source_info",
                "--include_imports",
                f"--descriptor_set_out={described}",
                proto,
            ]
            if protoc.main(described_args) != 0:
                raise RuntimeError("protoc failed; see its message above")
            folder, _ = destination(proto, root)
            outputs[folder / described.name] = described.read_bytes()
        for produced in sorted(Path(tmp).rglob("*.py*")):
            relative = produced.relative_to(tmp).as_posix()
            if relative.endswith("_pb2_grpc.py") and "service " not in _source_of(
                proto_root, relative
            ):
                continue  # protoc writes an empty grpc module for files without services
            folder, _ = destination(relative, root)
            text = _rewrite_imports(produced.read_text())
            outputs[folder / Path(relative).name] = text.encode()
    return outputs


def _connect(proto_root: Path, include: Path, out: Path, services: list[str]) -> None:
    from grpc_tools import protoc

    connect_args = [
        "protoc",
        f"-I{proto_root}",
        f"-I{include}",
        f"--plugin=protoc-gen-connectrpc={_connect_plugin()}",
        f"--connectrpc_out={out}",
        "--connectrpc_opt=protobuf=google,io=async",
        *services,
    ]
    if protoc.main(connect_args) != 0:
        raise RuntimeError("protoc-gen-connectrpc failed; see its message above")


def _connect_plugin() -> str:
    """The protoc-gen-connectrpc executable: beside this interpreter, else on PATH."""
    beside = Path(sys.executable).parent / "protoc-gen-connectrpc"
    found = str(beside) if beside.exists() else shutil.which("protoc-gen-connectrpc")
    if found is None:
        raise RuntimeError("protoc-gen-connectrpc not found: pip install -e '.[test]'")
    return found


def _source_of(proto_root: Path, generated: str) -> str:
    proto = re.sub(r"_pb2(_grpc)?\.pyi?$", ".proto", generated)
    return (proto_root / proto).read_text()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m serai.protogen",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--check", action="store_true", help="only report stale files; exit 1 if any"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path.cwd(),
        help="the folder that holds proto/ (default: the current folder)",
    )
    args = parser.parse_args(argv)
    if not (args.root / "proto").is_dir():
        parser.error(f"no proto/ folder in {args.root}: run it where proto/ is, or pass --root")
    stale = []
    for relative, content in generate(args.root).items():
        target = args.root / relative
        if target.exists() and target.read_bytes() == content:
            continue
        stale.append(relative)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    verb = "stale" if args.check else "written"
    for relative in stale:
        print(f"{verb}: {relative}")
    print(f"{len(stale)} file(s) {verb}" if stale else "generated code is up to date")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
