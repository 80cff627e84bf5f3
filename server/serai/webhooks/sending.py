"""One webhook sent: signed as the Standard Webhooks spec says (the ``standardwebhooks``
library: ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature`` headers, an HMAC-SHA256
of ``id.timestamp.body`` with the key's ``whsec_`` secret), POSTed with a time limit, its answer
read up to a size limit, no redirect followed (a redirect could leave the allowed hosts).
Example::

    sent = await send(client, key.webhook_url, key.webhook_secret, hook, SendLimits())
    if not sent.ok: ...   # retried later (see serai.webhooks.dispatch)
"""

from __future__ import annotations

import asyncio
import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING

from standardwebhooks.webhooks import Webhook as Signer

from serai.webhooks.payloads import Webhook

if TYPE_CHECKING:
    import httpx

USER_AGENT = "serai-webhooks/1"


@dataclass(frozen=True, slots=True)
class SendLimits:
    """How long a receiver has to answer, and how much of its answer is read (the rest is not:
    the status is all that counts)."""

    timeout_seconds: float = 10.0
    max_response_bytes: int = 64 * 1024


@dataclass(frozen=True, slots=True)
class Sent:
    """How an attempt went: ``ok`` (a 2xx status), the status (0: none came) and, when not ok,
    why, in words."""

    ok: bool
    status: int
    detail: str = ""


def signed_headers(
    secret: str, hook: Webhook, body: bytes, now: datetime.datetime
) -> dict[str, str]:
    """The Standard Webhooks headers of ``body`` sent now, with the content type."""
    signature = Signer(secret).sign(hook.webhook_id, now, body)
    return {
        "webhook-id": hook.webhook_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


async def send(
    client: httpx.AsyncClient, url: str, secret: str, hook: Webhook, limits: SendLimits
) -> Sent:
    """POST ``hook`` to ``url``: whether a 2xx came within the limits."""
    import httpx  # loaded with the first webhook (see new_client)

    body = hook.body()
    headers = signed_headers(secret, hook, body, datetime.datetime.now(datetime.UTC))
    try:
        async with asyncio.timeout(limits.timeout_seconds):
            request = client.build_request("POST", url, content=body, headers=headers)
            response = await client.send(request, stream=True, follow_redirects=False)
            try:
                await _read_at_most(response, limits.max_response_bytes)
            finally:
                await response.aclose()
    except TimeoutError:
        return Sent(False, 0, f"no answer within {limits.timeout_seconds:g} s")
    except httpx.HTTPError as error:
        return Sent(False, 0, f"{type(error).__name__}: {error}"[:300])
    status = response.status_code
    if 200 <= status < 300:
        return Sent(True, status)
    return Sent(False, status, f"HTTP {status} {response.reason_phrase}"[:300])


async def _read_at_most(response: httpx.Response, limit: int) -> None:
    """Read the answer's body until it ends or ``limit`` bytes came (then stop reading)."""
    size = 0
    async for chunk in response.aiter_raw():
        size += len(chunk)
        if size > limit:
            return


def new_client() -> httpx.AsyncClient:
    """The process's client for webhooks: no proxy or certificate settings from the environment
    (trust_env off: an app's webhook must not travel through the operator's proxy unasked), no
    redirects, a few connections per receiver. httpx is loaded here, with the first webhook sent,
    not by every server that starts."""
    import httpx

    return httpx.AsyncClient(
        trust_env=False,
        follow_redirects=False,
        limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
    )
