"""Webhooks for apps: serai POSTs a signed message to an API key's webhook URL when a seat of
one of its matches is to act, when a match finishes, when a seat's player comes back on another
device (see :mod:`.payloads` for what is sent). Signed as the Standard Webhooks spec says
(:mod:`.sending`), sent only to hosts the operator allows (:mod:`.urls`), derived from each
match's event stream by a worker on every replica and retried for a day (:mod:`.dispatch`)."""
