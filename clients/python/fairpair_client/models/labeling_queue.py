from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.queue_item import QueueItem


T = TypeVar("T", bound="LabelingQueue")


@_attrs_define
class LabelingQueue:
    """A uniform random sample of the unlabelled complete comparisons.

    Attributes:
        available (int): unlabelled complete comparisons the sample was drawn from
        items (list[QueueItem]):
        seed (int): draw again with this seed for the same sample
        next_cursor (None | Unset): always null: draw again for more
    """

    available: int
    items: list[QueueItem]
    seed: int
    next_cursor: None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        available = self.available

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        seed = self.seed

        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "available": available,
                "items": items,
                "seed": seed,
            }
        )
        if next_cursor is not UNSET:
            field_dict["next_cursor"] = next_cursor

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_item import QueueItem  # noqa: PLC0415

        d = dict(src_dict)
        available = d.pop("available")

        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = QueueItem.from_dict(items_item_data)

            items.append(items_item)

        seed = d.pop("seed")

        next_cursor = d.pop("next_cursor", UNSET)

        labeling_queue = cls(
            available=available,
            items=items,
            seed=seed,
            next_cursor=next_cursor,
        )

        labeling_queue.additional_properties = d
        return labeling_queue

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
