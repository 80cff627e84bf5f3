"""The store's Lua scripts, read once from ``lua/*.lua``, and the SHA-1s EVALSHA names them by.

Every change of a match is one script (one round trip): it checks the version and, on a
mismatch, returns the current record in the same reply. A script's bytes are its name on the
server, so the files are kept byte for byte (tests pin their SHA-1s): a changed script is a new
script, which replicas still running the old one never call.
"""

from __future__ import annotations

import hashlib
from importlib.resources import files


class Script:
    """A Lua script and its SHA-1, for EVALSHA (see RedisStore._run)."""

    __slots__ = ("name", "sha", "text")

    def __init__(self, text: str, name: str = "") -> None:
        self.text = text
        self.sha = hashlib.sha1(text.encode()).hexdigest()
        self.name = name  # the metrics' name of its round trips (serai_store_seconds)


def _read(name: str) -> Script:
    # Bytes, not read_text: no newline translation may change a script's SHA-1.
    return Script((files("serai.store.redis") / "lua" / f"{name}.lua").read_bytes().decode(), name)


# KEYS: the match's record, log, events, requests. ARGV: expected version, request id, answer;
# how many fields, log entries and events follow; the request's seat, REQUEST_WINDOW, idle ms,
# "1" when the commit finishes the match; then the field pairs, the log entries and the event
# (kind, data) pairs. Replies {"ok", version, event ids...}, {"duplicate", answer},
# {"conflict", the record's fields} or {"missing"}.
COMMIT_SCRIPT = _read("commit")

# KEYS: the record, the events. ARGV: version; how many fields and events follow; idle ms; the
# field pairs, the event (kind, data) pairs. Replies the last event id, or nil if the id is taken.
CREATE_SCRIPT = _read("create")

# KEYS: the record. ARGV: the version the caller holds ("" for none). Replies nil (no match),
# "unchanged", or the record's fields.
LOAD_SCRIPT = _read("load")

# The watch hub's records and events, read just after its shared XREAD (streams.StreamFeed).
# KEYS: each match's record and events; ARGV: the most events per match, then each one's event
# id read after and version held. Replies position (from 1), "unchanged", "gone" or the fields,
# and the events, for each match with events after its id.
FEED_RECORDS_SCRIPT = _read("feed_records")

# Once a match is finished (and its last events delivered to the watchers blocked on its
# stream), it is folded (see folding.py). FOLD_READ_SCRIPT reads what is to fold (0 if folded
# already; sent with EVAL, in the pipeline that indexes the match); FOLD_SCRIPT writes the folded
# form in one script, so a reader finds either the old keys or the archive. KEYS: the match's five
# keys. FOLD_SCRIPT's ARGV: the version read, the archive, then the record's fields (in pieces).
FOLD_READ_SCRIPT = _read("fold_read")
FOLD_SCRIPT = _read("fold")

# KEYS[1] a client's index of unfinished matches; ARGV: match id, its score, the limit. Adds the
# id unless the client already has ``limit``: -1 when added (or already there), else the count.
# One key, so one step even on a cluster: concurrent creates cannot all pass the same count.
CLAIM_SCRIPT = _read("claim")

# KEYS: the indexes a match leaves (ARGV[3] of them), then those it enters. ARGV: match id, its
# score, how many it leaves. Indexing an unfinished match in one round trip where every key is on
# one Redis (a cluster indexes with single-key commands: the keys are on many slots).
INDEX_SCRIPT = _read("index")

# KEYS[1] the index of finished matches not archived yet (scored by when each is due). ARGV: now
# (ms), the lease (ms), the most to take. Takes the due ones, each due again only after the lease
# (a replica that died holding it), so that replicas draining together seldom take the same.
LEASE_SCRIPT = _read("lease")

# The webhook outbox (webhooks.py). KEYS, for all three: the due matches, their leases, their
# progress, those followed while leased (keys.WEBHOOK_KEYS). FOLLOW: ARGV match id, due ms; makes
# it due by then, or marks it followed if leased. CLAIM: ARGV now, lease ms, limit, token; replies
# match id, progress pairs. SETTLE: ARGV match id, token, progress, now, due (or the lease's new
# end), mode ("settle", "keep" or "drop"); 0 when the token no longer holds the lease.
WEBHOOK_FOLLOW_SCRIPT = _read("webhook_follow")
WEBHOOK_CLAIM_SCRIPT = _read("webhook_claim")
WEBHOOK_SETTLE_SCRIPT = _read("webhook_settle")
# The community's scripts (serai.store.redis.community): each works on one queue's or one rating
# board's keys, which share a hash tag (one slot). QUEUE_ENTER: KEYS waiting, since, alive,
# entries, assigned, assigned_at; ARGV player, entry, rating, now, the pairing to clear. Replies
# the player's assignment (it stays), or nil once queued. QUEUE_POLL: KEYS waiting, since, alive,
# assigned, waits; ARGV player, now. QUEUE_LEAVE: KEYS waiting, since, alive, entries; ARGV player.
# QUEUE_PAIR: KEYS the queue's eight; ARGV now, seats, window, widen per ms, stale ms, the
# player to pair, the pairing id, waits kept. QUEUE_FILL: KEYS the queue's eight; ARGV now, the
# player, the pairing id, waits kept, then the fill's entries. RATINGS_APPLY: KEYS rows, people,
# bots, applied, then each player's history; ARGV match id, how many players, then six values
# per player.
QUEUE_ENTER_SCRIPT = _read("queue_enter")
QUEUE_POLL_SCRIPT = _read("queue_poll")
QUEUE_LEAVE_SCRIPT = _read("queue_leave")
QUEUE_PAIR_SCRIPT = _read("queue_pair")
QUEUE_FILL_SCRIPT = _read("queue_fill")
RATINGS_APPLY_SCRIPT = _read("ratings_apply")
