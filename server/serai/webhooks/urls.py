"""Where webhooks may go: http(s) URLs on the hosts the operator allows (``serve
--webhook-allow-host``, repeatable; the same list checks ``serai keys create|set
--webhook-url``), and never to serai's own ports. A webhook is a request the server makes on an
app's behalf, so without these an app could make serai call its own admin ports or anything its
network reaches (SSRF). Example::

    allowed = AllowedHosts.parse(["hooks.example.com", "*.acme.test", "127.0.0.1:8080"])
    allowed.check("https://hooks.example.com/serai")          # fine
    allowed.check("http://10.0.0.1/")                          # ValueError, saying why
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from serai.store.api_keys import check_webhook_url


@dataclass(frozen=True, slots=True)
class AllowedHosts:
    """Hosts a webhook URL may name: ``host`` (any port), ``host:port``, or ``*.domain`` (any
    host under it), lower-cased."""

    hosts: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AllowedHosts:
        """From flag or environment values (each may hold several, separated by commas)."""
        found = set()
        for entry in entries:
            for item in entry.replace(",", " ").split():
                found.add(item.strip().lower().rstrip("."))
        return cls(frozenset(found))

    def check(self, url: str) -> tuple[str, int]:
        """The URL's (host, port) if it may be called; ValueError saying why not otherwise."""
        parts = check_webhook_url(url)
        host = (parts.hostname or "").lower().rstrip(".")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if not self.hosts:
            raise ValueError(
                "no webhook host is allowed: the operator lists them with --webhook-allow-host "
                "(or SERAI_WEBHOOK_ALLOW_HOSTS)"
            )
        if not self._allows(host, port):
            allowed = ", ".join(sorted(self.hosts))
            raise ValueError(
                f"webhook host {host}:{port} is not allowed (allowed: {allowed}); the operator "
                "adds hosts with --webhook-allow-host"
            )
        return host, port

    def _allows(self, host: str, port: int) -> bool:
        shown = f"[{host}]" if ":" in host else host  # an IPv6 address, as host:port writes it
        if host in self.hosts or f"{shown}:{port}" in self.hosts:
            return True
        return any(entry.startswith("*.") and host.endswith(entry[1:]) for entry in self.hosts)


async def refuse_own_address(host: str, port: int, own_ports: Iterable[int]) -> None:
    """ValueError if ``host``:``port`` is one of serai's own listening ports on this machine (a
    loopback, unspecified or local address): a webhook must not call the server itself. The
    name is resolved here; a receiver's address is checked again by each delivery."""
    ports = set(own_ports)
    if port not in ports:
        return
    try:
        found = await _addresses(host, port)
    except OSError as error:
        raise ValueError(f"webhook host {host} does not resolve: {error}") from None
    local = _local_addresses()
    for address in found:
        ip = ipaddress.ip_address(address.split("%")[0])
        if ip.is_loopback or ip.is_unspecified or address in local:
            raise ValueError(
                f"webhook URL {host}:{port} is this server's own port: webhooks never call serai"
            )


async def _addresses(host: str, port: int) -> set[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return {str(info[4][0]) for info in infos}


def _local_addresses() -> set[str]:
    """This machine's addresses, as its host name resolves (best effort)."""
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)}
    except OSError:
        return set()


ALLOW_HOSTS_ENV = "SERAI_WEBHOOK_ALLOW_HOSTS"


def add_allow_host_argument(parser: Any) -> None:
    """``--webhook-allow-host`` (repeatable; default: SERAI_WEBHOOK_ALLOW_HOSTS, comma-separated),
    for ``serve`` and ``keys``: read back with :func:`allowed_hosts`."""
    parser.add_argument(
        "--webhook-allow-host",
        action="append",
        default=None,
        metavar="HOST",
        help="a host webhook URLs may name: host (any port), host:port or *.domain; repeat for "
        f"more (env {ALLOW_HOSTS_ENV}, comma-separated; default none: no webhooks)",
    )


def allowed_hosts(args: Any) -> AllowedHosts:
    """The hosts the flags (else the environment) allow."""
    given = args.webhook_allow_host
    return AllowedHosts.parse(given if given is not None else [os.environ.get(ALLOW_HOSTS_ENV, "")])
