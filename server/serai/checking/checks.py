"""The names and one-line meanings of every check ``serai check`` runs, in report order."""

from __future__ import annotations

CHECKS: dict[str, str] = {
    # --- the contract: what the framework relies on ---------------------------------------------
    "contract.seed": "same seed, same moves: same bytes (setup and every state of a replay)",
    "contract.codec": "decode_state(encode_state(s)) encodes to the same bytes",
    "contract.mutation": "apply never changes its input state (encode_state before and after)",
    "contract.listed": "every listed move applies",
    "contract.unlisted": "moves not listed for a seat are refused with IllegalMove",
    "contract.moves": "legal_moves lists each move once, in the same order on every call, "
    "and at most max_legal_moves",
    "contract.idle": "seats not to act have no legal moves and their moves are refused",
    "contract.proto": "moves round-trip through their protobuf bytes and fit max_move_bytes",
    "contract.view": "views are deterministic, view_to_proto gives a view_message, and "
    "view_bytes is its bytes",
    "contract.present": "present reads only the view bytes and move_steps only the move: both "
    "answer the same whenever asked",
    "contract.end": "a match with nobody to act has an outcome, and only then",
    "contract.crash": "no game method raised an exception the contract does not allow",
    # --- secrecy: a seat receives the same bytes in worlds it cannot tell apart -----------------
    "determinize.view": "determinize(view) gives a state with that very view",
    "determinize.varies": "determinize does not just hand back the true state",
    "secrecy.spectator": "a spectator's view is the same in worlds a seat cannot tell apart",
    "secrecy.turn": "whose turn it is and the outcome are the same in both worlds",
    "secrecy.legal": "the seat's legal moves (ids, labels, payload bytes) are the same",
    "secrecy.steps": "the steps of the seat's legal moves (move_steps) are the same",
    "secrecy.presentation": "the presentation of what the seat sees (zones, items) is the same",
    "secrecy.events": "the same move gives the same label and announcements in both worlds",
    "secrecy.choice": "labels and announcements do not tell apart moves a watcher cannot see",
    "secrecy.errors": "probe moves get the same answer (accepted or the same error text)",
    # --- re-dealt worlds: a seat receives nothing its own observations do not explain ----------
    "redeal.view": "a seat's view is the same in re-dealt worlds where its observations so far "
    "are the same",
    "redeal.turn": "whose turn it is and the outcome are the same in those worlds",
    "redeal.legal": "the seat's legal moves (labels, payload bytes) are the same there",
    "redeal.events": "each move reads the same there (label, announcements), whatever the "
    "mover chose unseen",
    "redeal.errors": "probe moves get the same answer there (accepted or the same error text)",
}
