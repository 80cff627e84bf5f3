"""What the Redis store writes is a stored format: the scripts' bytes (EVALSHA names a script by
its SHA-1) and the byte each event kind is kept as never change by accident."""

from __future__ import annotations

from serai.store.redis import scripts


def test_the_scripts_are_the_bytes_every_replica_names_them_by():
    """The SHA-1s of the scripts as serai has sent them since before they were .lua files."""
    assert {
        "commit": scripts.COMMIT_SCRIPT.sha,
        "create": scripts.CREATE_SCRIPT.sha,
        "load": scripts.LOAD_SCRIPT.sha,
        "fold_read": scripts.FOLD_READ_SCRIPT.sha,
        "fold": scripts.FOLD_SCRIPT.sha,
        "claim": scripts.CLAIM_SCRIPT.sha,
    } == {
        "commit": "d29031e08716c9435b66a82e635d1d849f75d56d",
        "create": "7d698000478888802c77b05df3b267f978e9c0ba",
        "load": "0a5adb30176ed7a1e64907dd1eeee9f64d8ad592",
        "fold_read": "07f09f7864f487e842d29e92784deac54f689b90",
        "fold": "3242003514d047c1289bf000684bb627c452380a",
        "claim": "f38a5d056aec3dc6e399dedeff82211dbd558f6e",
    }
