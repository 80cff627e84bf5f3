"""The webhook worker on the in-memory store, passes run by hand on a clock of the test's: a
failed webhook is sent again after its backoff with the same id, given up after a day, a
reclaimed seat is told, the end is told once and the match then left alone."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from serai import registry
from serai.matches import Matches
from serai.store.memory import MemoryStore, wall_ms
from serai.webhooks.dispatch import Webhooks, WebhookSettings
from serai.webhooks.urls import AllowedHosts
from standardwebhooks.webhooks import Webhook
from webhook_receiver import Receiver

DAY_MS = 24 * 3_600_000


class Scene:
    """A store, the matches over it, a worker on a clock the test moves, and a receiver."""

    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver
        self.store = MemoryStore()
        self.matches = Matches(self.store, registry.load())
        self.now_ms = 1_000_000
        settings = WebhookSettings(AllowedHosts.parse(["127.0.0.1"]), first_retry_ms=1000)
        self.hooks = Webhooks(self.store, self.matches.registry, settings, lambda: self.now_ms)
        self.matches.follow_changes(self.hooks.follow)
        self.secret = ""

    async def start(self) -> tuple[str, list[str]]:
        made = await self.store.api_keys.create("acme", webhook_url=self.receiver.url)
        self.secret = made.webhook_secret
        record = await self.matches.create("jaipur", 2, tenant="acme")
        tokens = []
        for player in ("ann", "bob"):
            joined = await self.matches.join(record.match_id, tenant="acme", player_id=player)
            tokens.append(joined.token)
        return record.match_id, tokens

    async def move(self, match_id: str, tokens: list[str]) -> None:
        snapshot = await self.matches.get(match_id, tenant="acme")
        token = tokens[snapshot.to_act[0]]
        legal = await self.matches.legal_moves(match_id, token, tenant="acme")
        await self.matches.submit(match_id, token, move_id=legal.moves[0].id, tenant="acme")

    async def bodies(self) -> list[dict[str, Any]]:
        """What came, each signature checked: (id, type, data) as dicts."""
        signer = Webhook(self.secret)
        got = []
        for hook in self.receiver.snapshot():
            body = signer.verify(hook.body, hook.headers)
            got.append({"id": hook.headers["webhook-id"], **body})
        return got


def run(receiver: Receiver, test: Any) -> None:
    async def main() -> None:
        scene = Scene(receiver)
        try:
            await test(scene)
        finally:
            await scene.hooks.close()

    asyncio.run(main())


def test_a_failed_webhook_is_sent_again_later_with_the_same_id() -> None:
    async def test(scene: Scene) -> None:
        match_id, tokens = await scene.start()
        assert await scene.hooks.pass_once() == 1
        (first,) = await scene.bodies()
        assert first["type"] == "match.your_turn" and first["data"]["version"] == 2
        scene.receiver.failing = True
        await scene.move(match_id, tokens)
        await scene.hooks.pass_once()
        failed = (await scene.bodies())[-1]
        scene.receiver.failing = False
        scene.now_ms += 700  # within the first backoff (1 s, give or take a fifth)
        assert await scene.hooks.pass_once() == 0
        scene.now_ms += 600
        assert await scene.hooks.pass_once() == 1
        again = (await scene.bodies())[-1]
        assert again == failed and again["data"]["version"] == 3
        log = await scene.store.webhooks.delivery_log("acme", 10)
        assert [line.outcome for line in log] == ["delivered", "failed", "delivered"]
        assert log[1].status == 503 and log[0].attempt == 2

    with Receiver() as receiver:
        run(receiver, test)


def test_a_webhook_failing_for_a_day_is_given_up_and_the_next_ones_go() -> None:
    async def test(scene: Scene) -> None:
        match_id, tokens = await scene.start()
        await scene.hooks.pass_once()
        scene.receiver.failing = True
        await scene.move(match_id, tokens)
        await scene.hooks.pass_once()
        scene.now_ms += DAY_MS  # a day of failures later (retried meanwhile, all failed)
        await scene.hooks.pass_once()
        scene.receiver.failing = False
        await scene.move(match_id, tokens)
        scene.now_ms += 10_000
        await scene.hooks.pass_once()
        log = await scene.store.webhooks.delivery_log("acme", 10)
        assert [line.outcome for line in log] == ["delivered", "failed", "failed", "delivered"]
        assert log[0].webhook_id.startswith(f"msg_{match_id}.4.")  # the next turn's

    with Receiver() as receiver:
        run(receiver, test)


def test_a_reclaimed_seat_and_the_end_are_told_then_the_match_is_left_alone() -> None:
    async def test(scene: Scene) -> None:
        match_id, tokens = await scene.start()
        await scene.move(match_id, tokens)
        await scene.matches.reclaim(match_id, "ann", tenant="acme")
        await scene.matches.resign(match_id, tokens[1], tenant="acme")
        await scene.hooks.pass_once()
        told = [
            (b["type"], b["data"]["version"], b["data"].get("seat")) for b in await scene.bodies()
        ]
        snapshot = await scene.matches.get(match_id, tenant="acme")
        assert told == [
            ("match.your_turn", 2, told[0][2]),
            ("match.your_turn", 3, 1 - told[0][2]),
            ("seat.reclaimed", 4, 0),
            ("match.finished", snapshot.record.version, None),
        ]
        for body in await scene.bodies():  # nothing the app's players may not know
            assert set(body["data"]) <= {"match_id", "game", "version", "seat"}
            assert json.dumps(body).count("label") == 0
        scene.now_ms += 10 * DAY_MS
        assert await scene.hooks.pass_once() == 0  # no longer followed

    with Receiver() as receiver:
        run(receiver, test)


def test_a_webhook_set_mid_match_is_told_only_what_comes_after() -> None:
    async def test(scene: Scene) -> None:
        scene.matches.follow_changes(None)  # attached below, once the key has its webhook
        await scene.store.api_keys.create("acme")
        record = await scene.matches.create("jaipur", 2, tenant="acme")
        tokens = [(await scene.matches.join(record.match_id, tenant="acme")).token for _ in "ab"]
        for _ in range(3):
            await scene.move(record.match_id, tokens)
        since = wall_ms() + 1
        made = await scene.store.api_keys.set_webhook("acme", scene.receiver.url, now_ms=since)
        assert made is not None
        scene.secret = made.webhook_secret
        scene.matches.follow_changes(scene.hooks.follow)
        while wall_ms() <= since:  # the next event is dated after the webhook was set
            await asyncio.sleep(0.001)
        await scene.move(record.match_id, tokens)
        await scene.hooks.pass_once()
        told = [(b["type"], b["data"]["version"]) for b in await scene.bodies()]
        assert told == [("match.your_turn", 6)]  # not the turns of versions 2 to 5

    with Receiver() as receiver:
        run(receiver, test)
