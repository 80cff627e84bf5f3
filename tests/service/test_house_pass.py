"""The house pass (serai.rpc.auth.HousePasses): what a house bot the queue seated calls with. It
acts in the tenant it names only on the process that made it (or a worker given the same
secret by its supervisor); anywhere else, and on a server that makes none, it is refused as a
bad key is, without a word more."""

from __future__ import annotations

import asyncio

import pytest
from serai.rpc.auth import HOUSE_PASS_VARIABLE, Authenticator, HousePasses
from serai.rpc.status import Code, RpcError


class NoKeys:
    async def get(self, name: str) -> None:
        return None

    async def list(self) -> list[object]:
        return []


def context(auth: Authenticator, token: str) -> object:
    headers = [("authorization", f"Bearer {token}")]
    return asyncio.run(auth.context("GetMatch", "ipv4:127.0.0.1:1", headers))


def refused(auth: Authenticator, token: str) -> None:
    with pytest.raises(RpcError) as failure:
        context(auth, token)
    assert failure.value.code == Code.UNAUTHENTICATED


def test_a_pass_acts_in_its_tenant_where_keys_are_required() -> None:
    passes = HousePasses()
    auth = Authenticator(NoKeys(), required=True, house=passes)
    assert context(auth, passes.token("acme")).tenant == "acme"  # type: ignore[attr-defined]
    assert context(auth, passes.token("")).tenant == ""  # type: ignore[attr-defined]


def test_another_process_s_pass_or_a_forged_one_is_refused() -> None:
    auth = Authenticator(NoKeys(), house=HousePasses())
    refused(auth, HousePasses().token("acme"))
    refused(auth, "house_guess.acme")
    refused(auth, "house_")
    refused(auth, "house_\u00e9t\u00e9.acme")  # not ASCII: refused all the same
    refused(Authenticator(NoKeys()), HousePasses().token("acme"))  # a server that makes none


def test_workers_given_one_secret_accept_each_other_s_passes(monkeypatch) -> None:
    monkeypatch.setenv(HOUSE_PASS_VARIABLE, "one-secret-for-every-worker")
    auth = Authenticator(NoKeys(), house=HousePasses())
    assert context(auth, HousePasses().token("acme")).tenant == "acme"  # type: ignore[attr-defined]
