"""The Redis key schema, in one place: what each key of a match and each global index holds.

Keys of match ``M`` (the braces are a Redis Cluster hash tag: one match, one slot)::

    serai:{M}:match      hash    game, options, seed, created, status, version, seats, state,
                                 outcome, last_event (and client, move_s, policy, deadline,
                                 chosen, server); once folded, long values in pieces (see
                                 folding.py)
    serai:{M}:log        list    one entry per move or resignation, for replay
    serai:{M}:events     stream  public events (v: version, k: kind, d: data), for Watch
    serai:{M}:requests   hash    "<seat>:<slot>" -> "request_id\\nversion\\nlast_event_id\\nanswer"
                                 for the seat's REQUEST_WINDOW latest requests; "<seat>:n" counts
    serai:{M}:archive    string  once finished and folded: events, log and answers (folding.py)

A finished match keeps only its hash and its archive (older versions of serai kept more: see
folding.py), until the archive of finished matches (serai.archive) has it: then its keys expire
after ``serve --keep-finished`` (expiry.py). Idle expiry: with ``idle_ms``, every key of an
unfinished match gets that TTL and a 64th, renewed by a commit that finds less than ``idle_ms``
left (commit.lua); the commit that finishes a match removes it.

Global indexes are sorted sets scored by creation time; they are updated with single-key commands
after a commit and repaired when a reader finds them stale (indexes.py), so a cluster never needs
a cross-slot script::

    serai:index:<status>          the matches of one status (open, running, finished)
    serai:index:<status>:<game>   the same, of one game
    serai:t:<tenant>:index:<status>[:<game>]   the same for the matches of one API key (a
                                  tenant's matches are in these, not in the ones above)
    serai:index:all               every match ever made: how an expired match is told from one
                                  that never existed (versions before listings merged also kept
                                  serai:index:all:<game>; nothing reads it now)
    serai:clocks                  the unfinished matches with a turn clock
    serai:client:<client_id>      each client's unfinished matches
    serai:quota:<quota_key>       each caller's unfinished matches (its address today, an API key
                                  later: see serai.rpc.limits.quota_key_of); not told when a
                                  match finishes, so pruned when full; expires unused
    serai:unfinished              every unfinished match, for the cap on them all (matches made
                                  before it existed join it at their next change of status)
    serai:t:<tenant>:player:<p>   the matches in which one player (``p``: a hash of the id an
                                  app's player token vouched for) holds a seat: "my matches";
                                  added by JoinMatch, pruned when a listing finds a match gone
    serai:unarchived              finished matches not in the archive yet, scored by when one is
                                  due (a drainer's lease pushes it on): see expiry.py
    serai:expiring                archived matches whose keys expire at the score: a JSON list
                                  [match id, the indexes to remove it from then] (expiry.py)

The webhook outbox (webhooks.py; one hash tag, so that its scripts run on a cluster too)::

    serai:{webhooks}:due          the followed matches, scored by when each is to be read again
                                  (while leased: when the lease ends)
    serai:{webhooks}:leases       match id -> the token of whoever holds it now
    serai:{webhooks}:progress     match id -> how far its webhooks got (serai.webhooks' JSON)
    serai:{webhooks}:poked        match ids followed again while leased: due at once when settled
    serai:webhooks:log:<key>      a list: the key's latest delivery attempts, newest first (JSON)
"""

from __future__ import annotations

from serai.store import Status

CLOCKS_KEY = "serai:clocks"
UNARCHIVED_KEY = "serai:unarchived"
EXPIRING_KEY = "serai:expiring"
UNFINISHED_KEY = "serai:unfinished"


def match_keys(match_id: str) -> tuple[str, str, str, str, str]:
    """The five keys of one match: record, log, events, requests, archive."""
    base = f"serai:{{{match_id}}}"
    return (
        f"{base}:match",
        f"{base}:log",
        f"{base}:events",
        f"{base}:requests",
        f"{base}:archive",
    )


def index_key(status: Status | None, game: str | None, tenant: str = "") -> str:
    """The index of one status (None: every match ever made), of one game or of all, of one
    tenant's matches (an API key's name) or of those made without a key."""
    key = f"serai:index:{status or 'all'}"
    if tenant and status is not None:
        key = f"serai:t:{tenant}:index:{status}"
    return f"{key}:{game}" if game else key


def player_index_key(tenant: str, player: str) -> str:
    """The index of the matches in which ``player`` (a player id's hash) of ``tenant`` has a
    seat."""
    return f"serai:t:{tenant}:player:{player}"


def api_key_key(name: str) -> str:
    """The hash of one API key: its secret's SHA-256, its limits, when made and revoked."""
    return f"serai:apikey:{name}"


API_KEYS_KEY = "serai:apikeys"  # a set of every API key's name, for `serai keys list`


def client_key(client_id: str) -> str:
    """The index of one client's unfinished matches (for its quota)."""
    return f"serai:client:{client_id}"


def quota_index_key(quota_key: str) -> str:
    """The index of one caller's unfinished matches (for its quota)."""
    return f"serai:quota:{quota_key}"


WEBHOOK_KEYS = (
    "serai:{webhooks}:due",
    "serai:{webhooks}:leases",
    "serai:{webhooks}:progress",
    "serai:{webhooks}:poked",
)


def webhook_log_key(key_name: str) -> str:
    """The delivery log of one API key's webhook."""
    return f"serai:webhooks:log:{key_name}"
