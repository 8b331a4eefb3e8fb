from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.label_read_shown_first_type_0 import LabelReadShownFirstType0
from ..models.label_read_winner import LabelReadWinner
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gold_read import GoldRead


T = TypeVar("T", bound="LabelRead")


@_attrs_define
class LabelRead:
    """A stored label and the comparison's gold label.

    Attributes:
        comparison_id (str):
        created_at (datetime.datetime):
        from_queue (bool):
        gold (GoldRead): The comparison's gold label after this one: the majority of its labelers' latest labels.
        labeler (str):
        updated_at (datetime.datetime):
        winner (LabelReadWinner):
        shown_first (LabelReadShownFirstType0 | None | Unset): null when the client did not say
    """

    comparison_id: str
    created_at: datetime.datetime
    from_queue: bool
    gold: GoldRead
    labeler: str
    updated_at: datetime.datetime
    winner: LabelReadWinner
    shown_first: LabelReadShownFirstType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        comparison_id = self.comparison_id

        created_at = self.created_at.isoformat()

        from_queue = self.from_queue

        gold = self.gold.to_dict()

        labeler = self.labeler

        updated_at = self.updated_at.isoformat()

        winner = self.winner.value

        shown_first: None | str | Unset
        if isinstance(self.shown_first, Unset):
            shown_first = UNSET
        elif isinstance(self.shown_first, LabelReadShownFirstType0):
            shown_first = self.shown_first.value
        else:
            shown_first = self.shown_first

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "comparison_id": comparison_id,
                "created_at": created_at,
                "from_queue": from_queue,
                "gold": gold,
                "labeler": labeler,
                "updated_at": updated_at,
                "winner": winner,
            }
        )
        if shown_first is not UNSET:
            field_dict["shown_first"] = shown_first

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gold_read import GoldRead  # noqa: PLC0415

        d = dict(src_dict)
        comparison_id = d.pop("comparison_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        from_queue = d.pop("from_queue")

        gold = GoldRead.from_dict(d.pop("gold"))

        labeler = d.pop("labeler")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        winner = LabelReadWinner(d.pop("winner"))

        def _parse_shown_first(data: object) -> LabelReadShownFirstType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                shown_first_type_0 = LabelReadShownFirstType0(data)

                return shown_first_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LabelReadShownFirstType0 | None | Unset, data)

        shown_first = _parse_shown_first(d.pop("shown_first", UNSET))

        label_read = cls(
            comparison_id=comparison_id,
            created_at=created_at,
            from_queue=from_queue,
            gold=gold,
            labeler=labeler,
            updated_at=updated_at,
            winner=winner,
            shown_first=shown_first,
        )

        label_read.additional_properties = d
        return label_read

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
