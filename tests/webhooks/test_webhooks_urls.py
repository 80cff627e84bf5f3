"""Where a webhook may go: the operator's allowed hosts, never serai's own ports; and help on
every flag of the commands that set and show webhooks."""

from __future__ import annotations

import argparse
import asyncio

import pytest
from serai.cli import build_parser
from serai.webhooks.urls import AllowedHosts, refuse_own_address

ALLOWED = AllowedHosts.parse(["hooks.example.com", "*.acme.test, 127.0.0.1:8080", "[::1]:9000"])


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/serai",
        "http://hooks.example.com:8443/x?y=1",
        "https://api.acme.test/hook",
        "https://deep.api.acme.test/hook",
        "http://127.0.0.1:8080/",
        "http://[::1]:9000/",
        "https://HOOKS.example.com./upper-case-and-dot",
    ],
)
def test_an_allowed_host_may_be_called(url: str) -> None:
    ALLOWED.check(url)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://acme.test/", "not allowed"),  # *.acme.test is for hosts under it
        ("https://evil-hooks.example.com/", "not allowed"),
        ("http://127.0.0.1:8081/", "not allowed"),  # another port of an allowed host:port
        ("http://127.0.0.1/", "not allowed"),
        ("http://10.0.0.1/", "not allowed"),
        ("file:///etc/passwd", "https:// or http://"),
        ("gopher://hooks.example.com/", "https:// or http://"),
        ("https://user@hooks.example.com/", "no user name"),
        ("https://hooks.example.com/#x", "#fragment"),
        ("https://hooks.example.com:99999/", "bad webhook URL"),
        ("https:///", "names no host"),
    ],
)
def test_anything_else_is_refused_saying_why(url: str, said: str) -> None:
    with pytest.raises(ValueError, match=said.replace("?", r"\?")):
        ALLOWED.check(url)


def test_with_no_host_allowed_nothing_is() -> None:
    with pytest.raises(ValueError, match="--webhook-allow-host"):
        AllowedHosts().check("https://hooks.example.com/")


def test_serai_s_own_ports_are_never_called() -> None:
    async def check() -> None:
        for host in ("127.0.0.1", "localhost", "0.0.0.0"):
            with pytest.raises(ValueError, match="own port"):
                await refuse_own_address(host, 50051, (50051, 50052))
        await refuse_own_address("127.0.0.1", 8080, (50051, 50052))  # another port: fine

    asyncio.run(check())


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


@pytest.mark.parametrize("path", [("keys", "create"), ("keys", "set"), ("webhooks", "log")])
def test_every_flag_of_the_webhook_commands_has_help(path: tuple[str, str]) -> None:
    command = _subparsers(build_parser())[path[0]]
    assert command.description
    action = _subparsers(command)[path[1]]
    flags = [*command._actions, *action._actions]
    for flag in (f for f in flags if not isinstance(f, argparse._SubParsersAction)):
        assert flag.help, f"serai {' '.join(path)} {flag.option_strings or flag.dest} has no help"
