from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.batch_item_in import BatchItemIn


T = TypeVar("T", bound="BatchCreate")


@_attrs_define
class BatchCreate:
    """Up to `FAIRPAIR_MAX_BATCH_ITEMS` (10,000) items, run by workers in the background.

    Send it as JSON (`Content-Type: application/json`).

        Attributes:
            items (list[BatchItemIn]):
    """

    items: list[BatchItemIn]

    def to_dict(self) -> dict[str, Any]:
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "items": items,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_item_in import BatchItemIn  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = BatchItemIn.from_dict(items_item_data)

            items.append(items_item)

        batch_create = cls(
            items=items,
        )

        return batch_create
