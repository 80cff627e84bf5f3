"""Views described for people, as the wire's ``serai.v1.Presentation``: the game's own
:meth:`~serai.game.Game.present`, or a generic table of the view's fields for a game without one.

Both read only the view's bytes, parsed again, so a presentation cannot say more than the view.
Example::

    message = presentation(game, game.view_bytes(view))   # a pb.Presentation
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from google.protobuf import json_format, struct_pb2
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
    """Every field of ``view`` a seat can read: scalars in one zone, each message field (and
    each entry of a repeated one) in a zone of its own, nested fields by dotted names.

    Proto3 leaves a field at its default off the wire, but for a person a 0 or a "no" is a value
    like any other (``seat: 0``, ``alive: no``), so every field is shown, but an optional one
    left unset (nothing is known). An entry of a repeated message that names its ``seat`` is that
    seat's zone (``owner``, titled "players view: seat 0"); a list of texts (a log) and a
    Struct's list of texts are zones of their own, one line an item.
    """
    top: list[Item] = []
    zones: list[Zone] = []
    for field in view.DESCRIPTOR.fields:
        if not _known(view, field):
            continue
        value = getattr(view, field.name)
        title = _words(field.name)
        if _is_map(field):
            items, lists = _map_items(value, "")
            zones.append(Zone(id=field.name, title=title, items=_cut(tuple(items))))
            zones.extend(lists)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            entries = list(value) if _repeated(field) else [value]
            for i, entry in enumerate(entries):
                seat = _seat_of(entry)
                zone_title = title
                if _repeated(field):
                    zone_title = f"{title}: seat {seat}" if seat is not None else f"{title} {i + 1}"
                zones.append(
                    Zone(
                        id=field.name + (f".{i}" if _repeated(field) else ""),
                        title=zone_title,
                        items=_cut(tuple(_flatten(entry, ""))),
                        owner=seat,
                    )
                )
        elif _is_text_list(field):
            zones.append(Zone(id=field.name, title=title, items=_cut(_lines(value, ""))))
        else:
            top.append(Item(title, value=_scalar(field, value), count=0, kind="text"))
    if top or not zones:
        zones.insert(0, Zone("view", "view", _cut(tuple(top))))
    return Presentation(headline="", zones=tuple(zones))


def _words(name: str) -> str:
    return name.replace("_", " ")


def _known(message: Message, field: FieldDescriptor) -> bool:
    """Whether ``field`` holds something to show: an optional field (or a message) only when
    set; a repeated one or a plain proto3 scalar always, its default included."""
    if _repeated(field) or not field.has_presence:
        return True
    return message.HasField(field.name)


def _seat_of(entry: Message) -> int | None:
    """The seat a message names in a whole-number field called ``seat``, if it has one."""
    field = entry.DESCRIPTOR.fields_by_name.get("seat")
    if field is None or _repeated(field) or field.cpp_type not in _WHOLE_NUMBERS:
        return None
    if field.has_presence and not entry.HasField("seat"):
        return None
    return int(entry.seat)


_WHOLE_NUMBERS = (
    FieldDescriptor.CPPTYPE_INT32,
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT32,
    FieldDescriptor.CPPTYPE_UINT64,
)


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry


def _is_text_list(field: FieldDescriptor) -> bool:
    return _repeated(field) and field.type == FieldDescriptor.TYPE_STRING


def _lines(texts: Any, prefix: str) -> tuple[Item, ...]:
    """A list of texts (a log), one numbered line an item."""
    return tuple(
        Item(f"{prefix}{i + 1}", value=str(text), count=0, kind="text")
        for i, text in enumerate(texts)
    )


def _map_items(entries: Any, prefix: str) -> tuple[list[Item], list[Zone]]:
    """A map field's entries, by key: a message value (a Struct's Value) as compact JSON, but a
    Struct's list of texts, which becomes a zone of its own (a log, a hand of named cards)."""
    items: list[Item] = []
    lists: list[Zone] = []
    for key in sorted(entries):
        value = entries[key]
        texts = _text_list(value)
        if texts is not None:
            lists.append(
                Zone(id=f"{prefix}{key}", title=f"{prefix}{key}", items=_cut(_lines(texts, "")))
            )
            continue
        if isinstance(value, struct_pb2.Value):
            text = json.dumps(_whole(json_format.MessageToDict(value)), separators=(", ", ": "))
        elif isinstance(value, Message):
            text = json_format.MessageToJson(value, indent=None)
        else:
            text = str(value)
        items.append(Item(f"{prefix}{key}", value=text, count=0, kind="text"))
    return items, lists


def _whole(value: Any) -> Any:
    """A Struct's numbers (all doubles) written as whole numbers where they are: 3, not 3.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(entry) for entry in value]
    if isinstance(value, dict):
        return {key: _whole(entry) for key, entry in value.items()}
    return value


def _text_list(value: Any) -> list[str] | None:
    """The texts of a Struct Value that is a list of texts (None for anything else)."""
    if not isinstance(value, struct_pb2.Value) or value.WhichOneof("kind") != "list_value":
        return None
    entries = value.list_value.values
    if not entries or any(entry.WhichOneof("kind") != "string_value" for entry in entries):
        return None
    return [entry.string_value for entry in entries]


def _flatten(message: Message, prefix: str) -> list[Item]:
    items: list[Item] = []
    for field in message.DESCRIPTOR.fields:
        if not _known(message, field):
            continue
        value = getattr(message, field.name)
        name = prefix + _words(field.name)
        if _is_map(field):
            inner, lists = _map_items(value, name + ".")
            items.extend(inner)
            items.extend(
                replace(item, label=f"{zone.title} {item.label}")
                for zone in lists
                for item in zone.items
            )
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            entries = list(value) if _repeated(field) else [value]
            for i, entry in enumerate(entries):
                label = f"{name} {i + 1}" if _repeated(field) else name
                inner = _flatten(entry, label + ".")
                items.extend(inner or [Item(label, value="—", count=0, kind="text")])
        elif _is_text_list(field):
            items.extend(_lines(value, name + " "))
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
    return ", ".join(texts) if texts or not _repeated(field) else "none"


def _cut(items: tuple[Item, ...]) -> tuple[Item, ...]:
    if len(items) <= _GENERIC_ITEMS:
        return items
    more = len(items) - _GENERIC_ITEMS
    return (*items[:_GENERIC_ITEMS], Item(f"… {more} more", count=0, kind="text"))
