"""An answer model filled from a stored row: the fields the two share by name, read once here
rather than spelt out field by field at every place that answers with a row."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import sqlalchemy
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def row_names(row: object) -> frozenset[str]:
    """What `row` holds by name: a mapped row's column attributes (never a relationship, which
    would load lazily) or a dataclass's fields."""
    if dataclasses.is_dataclass(row):
        return frozenset(field.name for field in dataclasses.fields(row))
    return frozenset(attr.key for attr in sqlalchemy.inspect(type(row)).column_attrs)


def from_row(model: type[M], row: object, **fields: Any) -> M:
    """`model` from the values of `row` under its own field names, with `fields` added or put
    in their place; pydantic validates the whole as it would any other input."""
    shared = (model.model_fields.keys() & row_names(row)) - fields.keys()
    return model.model_validate({**{name: getattr(row, name) for name in shared}, **fields})
