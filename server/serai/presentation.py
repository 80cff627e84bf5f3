"""Views described for people, as the wire's ``serai.v1.Presentation``: the game's own
:meth:`~serai.game.Game.present`, or a generic table of the view's fields for a game without one.

Both read only the view's bytes, parsed again, so a presentation cannot say more than the view.
Example::

    message = presentation(game, game.view_bytes(view))   # a pb.Presentation
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from serai.api import match_service_pb2 as pb
from serai.game import Item, Presentation, Zone

# Items a generic zone lists before "… N more": views may hold long lists (a discard pile).
_GENERIC_ITEMS = 40


def presentation(game: Any, view_bytes: bytes) -> pb.Presentation:
    """The view whose bytes are ``view_bytes`` described for people, as the wire message."""
    view = game.view_message.FromString(view_bytes)
    described = game.present(view)
    if described is None:
        described = generic(view)
    return to_pb(described)


def to_pb(described: Presentation) -> pb.Presentation:
    message = pb.Presentation(headline=described.headline)
    for zone in described.zones:
        out = message.zones.add(id=zone.id, title=zone.title, note=zone.note)
        if zone.owner is not None:
            out.owner = zone.owner
        for item in zone.items:
            out.items.add(
                label=item.label,
                count=item.count,
                value=item.value,
                hidden=item.hidden,
                kind=item.kind,
            )
    return message


def enum_text(enum: EnumDescriptor, number: int) -> str:
    """An enum value for people: ``CROP_PAPYRUS`` of enum Crop as "papyrus"."""
    value = enum.values_by_number.get(number)
    if value is None:
        return str(number)
    name = value.name
    prefix = enum.values[0].name.rpartition("_")[0] + "_" if enum.values else ""
    if prefix != "_" and name.startswith(prefix):
        name = name[len(prefix) :]
    return name.lower().replace("_", " ")


def generic(view: Message) -> Presentation:
    """Every set field of ``view``: scalars in one zone, each message field (and each entry of
    a repeated one) in a zone of its own, nested fields by dotted names."""
    top: list[Item] = []
    zones: list[Zone] = []
    for field, value in view.ListFields():
        if _is_map(field):
            title = field.name.replace("_", " ")
            zones.append(Zone(id=field.name, title=title, items=_cut(tuple(_map_items(value, "")))))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            entries = list(value) if _repeated(field) else [value]
            for i, entry in enumerate(entries):
                items = tuple(_flatten(entry, ""))
                title = field.name.replace("_", " ")
                suffix = f".{i}" if _repeated(field) else ""
                zones.append(
                    Zone(
                        id=field.name + suffix,
                        title=f"{title} {i + 1}" if _repeated(field) else title,
                        items=_cut(items),
                    )
                )
        else:
            top.append(
                Item(
                    field.name.replace("_", " "), value=_scalar(field, value), count=0, kind="text"
                )
            )
    return Presentation(headline="", zones=(Zone("view", "view", _cut(tuple(top))), *zones))


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry


def _map_items(entries: Any, prefix: str) -> list[Item]:
    """A map field's entries, by key: a message value (a Struct's Value) as compact JSON."""
    items: list[Item] = []
    for key in sorted(entries):
        value = entries[key]
        if isinstance(value, Message):
            text = json_format.MessageToJson(value, indent=None)
        else:
            text = str(value)
        items.append(Item(f"{prefix}{key}", value=text, count=0, kind="text"))
    return items


def _flatten(message: Message, prefix: str) -> list[Item]:
    items: list[Item] = []
    for field, value in message.ListFields():
        name = prefix + field.name.replace("_", " ")
        if _is_map(field):
            items.extend(_map_items(value, name + "."))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            entries = list(value) if _repeated(field) else [value]
            for i, entry in enumerate(entries):
                label = f"{name} {i + 1}" if _repeated(field) else name
                inner = _flatten(entry, label + ".")
                items.extend(inner or [Item(label, value="—", count=0, kind="text")])
        else:
            items.append(Item(name, value=_scalar(field, value), count=0, kind="text"))
    return items


def _scalar(field: FieldDescriptor, value: Any) -> str:
    values = list(value) if _repeated(field) else [value]
    if field.type == FieldDescriptor.TYPE_ENUM:
        texts = [enum_text(field.enum_type, v) for v in values]
    elif field.type == FieldDescriptor.TYPE_BOOL:
        texts = ["yes" if v else "no" for v in values]
    elif field.type == FieldDescriptor.TYPE_BYTES:
        texts = [f"{len(v)} bytes" for v in values]
    else:
        texts = [str(v) for v in values]
    return ", ".join(texts)


def _cut(items: tuple[Item, ...]) -> tuple[Item, ...]:
    if len(items) <= _GENERIC_ITEMS:
        return items
    more = len(items) - _GENERIC_ITEMS
    return (*items[:_GENERIC_ITEMS], Item(f"… {more} more", count=0, kind="text"))
