from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.batch_create_mode import BatchCreateMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_item_in import BatchItemIn


T = TypeVar("T", bound="BatchCreate")


@_attrs_define
class BatchCreate:
    """Up to `FAIRPAIR_MAX_BATCH_ITEMS` (10,000) items, run by workers in the background.

    Send it as JSON (`Content-Type: application/json`).

        Attributes:
            items (list[BatchItemIn]):
            mode (BatchCreateMode | Unset): `provider`: the calls of judges with a batch API (OpenAI's and Anthropic's
                hosts, or `batch_api: on`) go through their provider's batch jobs, answered within 24 h at about half the price;
                other judges and score items run live. docs/BATCHES.md. Default: BatchCreateMode.LIVE.
    """

    items: list[BatchItemIn]
    mode: BatchCreateMode | Unset = BatchCreateMode.LIVE

    def to_dict(self) -> dict[str, Any]:
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "items": items,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

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

        _mode = d.pop("mode", UNSET)
        mode: BatchCreateMode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = BatchCreateMode(_mode)

        batch_create = cls(
            items=items,
            mode=mode,
        )

        return batch_create
