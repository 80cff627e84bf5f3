"""The web client's files (serai/web/) served at ``/`` on the HTTP port, beside the RPCs.

Plain files read once at start: no build step, nothing fetched from elsewhere. Only GET and HEAD
of the names found there; anything else is 404. Example::

    app = WebFiles.from_package()      # "/" answers index.html, "/app.js" app.js
"""

from __future__ import annotations

from importlib import resources
from typing import Any

_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".svg": b"image/svg+xml",
    ".png": b"image/png",
}


class WebFiles:
    """An ASGI app answering GET of the client's files by name; see the module's example."""

    def __init__(self, files: dict[str, tuple[bytes, bytes]]) -> None:
        self._files = files  # path -> (content type, body)

    @classmethod
    def from_package(cls) -> WebFiles:
        files: dict[str, tuple[bytes, bytes]] = {}
        root = resources.files("serai") / "web"
        for entry in root.iterdir():
            suffix = "." + entry.name.rpartition(".")[2]
            if entry.is_file() and suffix in _TYPES:
                files["/" + entry.name] = (_TYPES[suffix], entry.read_bytes())
        if "/index.html" in files:
            files["/"] = files["/index.html"]
        return cls(files)

    def file(self, path: str) -> tuple[bytes, bytes] | None:
        """The content type and body of the file at ``path`` ("/admin.html"), if there is one."""
        return self._files.get(path)

    def serves(self, scope: dict[str, Any]) -> bool:
        return scope["method"] in ("GET", "HEAD") and scope["path"] in self._files

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        kind, body = self._files[scope["path"]]
        headers = [
            (b"content-type", kind),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-cache"),
            (b"x-content-type-options", b"nosniff"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )
