"""The shape the project promises, checked from its source: one door to Redis (the store), no
import cycles, the server above the SDK (never importing it), and functions short enough to read.
These read files as text and syntax trees; they run no server."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "server" / "serai"
SDK = ROOT / "clients" / "serai_client"
GENERATED = ("_pb2.py", "_pb2_grpc.py", "_connect.py")


def _modules(package: Path) -> dict[str, Path]:
    found = {}
    for path in package.rglob("*.py"):
        if path.name.endswith(GENERATED):
            continue
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every module ``path`` imports, lazily, under TYPE_CHECKING or not, with its line
    (``from package import name`` as ``package.name``: :func:`_owner` finds which it is)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:  # a submodule, or a name its package defines
                yield f"{base}.{alias.name}", node.lineno


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def test_the_server_has_no_import_cycle() -> None:
    """Lazy and TYPE_CHECKING imports counted: a cycle hidden in a function is still a cycle."""
    modules = _modules(SERVER)
    graph = {
        module: {
            owner
            for name, _ in _imports(module, path)
            if (owner := _owner(name, modules)) not in (None, module)
            and not owner.startswith("serai.api")
        }
        for module, path in modules.items()
    }
    cycles = _cycles(graph)
    assert not cycles, f"import cycles in server/serai: {cycles}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while (top := stack.pop()) != node:
                on_stack.discard(top)
                component.append(top)
            on_stack.discard(node)
            if component:
                found.append(sorted([node, *component]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_only_the_store_imports_redis() -> None:
    """The Store protocol is the one door to Redis: nothing outside serai.store imports redis-py,
    and only the commands, which build a store through its one factory, name the Redis store."""
    store, commands = SERVER / "store", SERVER / "commands"
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for module, path in _modules(SERVER).items()
        if store not in path.parents
        for name, line in _imports(module, path)
        if name == "redis"
        or name.startswith("redis.")
        or (name.startswith("serai.store.redis") and commands not in path.parents)
    ]
    assert not offenders, offenders


def test_the_server_does_not_import_the_client_sdk() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for module, path in _modules(SERVER).items()
        for name, line in _imports(module, path)
        if name == "serai_client" or name.startswith("serai_client.")
    ]
    assert not offenders, offenders


def test_at_most_ten_functions_over_sixty_lines() -> None:
    """Long functions are where bugs hide from readers; a few are allowed (an argument table)."""
    long = sorted(
        (
            node.end_lineno - node.lineno + 1,
            f"{path.relative_to(ROOT)}:{node.lineno} {node.name}",
        )
        for package in (SERVER, SDK)
        for path in _modules(package).values()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > 60
    )
    assert len(long) <= 10, long


def test_every_benchmark_imports():
    """The benchmarks are run by hand, so a module they import that moved goes unseen until
    someone runs them: importing each (they run nothing at import) finds it."""
    folder = ROOT / "benchmarks"
    scripts = sorted(path.stem for path in folder.glob("*.py"))
    assert "submit_cpu" in scripts
    code = f"import importlib, sys; sys.path.insert(0, {str(folder)!r}); " + "; ".join(
        f"importlib.import_module({name!r})" for name in scripts
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
