"""An answer model filled from a stored row: the fields the two share by name, read once here
rather than spelt out field by field at every place that answers with a row."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import sqlalchemy
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
# `row_names` of each row type seen.
_NAMES: dict[type, frozenset[str]] = {}


def row_names(row: object) -> frozenset[str]:
    """What `row` holds by name: a mapped row's column attributes (never a relationship, which
    would load lazily) or a dataclass's fields; worked out once per type (answers build one
    model a stored call, on the hot path)."""
    kind = type(row)
    names = _NAMES.get(kind)
    if names is None:
        if dataclasses.is_dataclass(row):
            names = frozenset(field.name for field in dataclasses.fields(row))
        else:
            names = frozenset(attr.key for attr in sqlalchemy.inspect(kind).column_attrs)
        _NAMES[kind] = names
    return names


def from_row(model: type[M], row: object, **fields: Any) -> M:
    """`model` from the values of `row` under its own field names, with `fields` added or put
    in their place; pydantic validates the whole as it would any other input."""
    shared = (model.model_fields.keys() & row_names(row)) - fields.keys()
    return model.model_validate({**{name: getattr(row, name) for name in shared}, **fields})
