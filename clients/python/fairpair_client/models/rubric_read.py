from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.rubric_level_in import RubricLevelIn


T = TypeVar("T", bound="RubricRead")


@_attrs_define
class RubricRead:
    """The rubric used, with its id (a hash of range, levels and anchors).

    Attributes:
        id (str):
        levels (list[RubricLevelIn]):
        max_ (float):
        min_ (float):
    """

    id: str
    levels: list[RubricLevelIn]
    max_: float
    min_: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        levels = []
        for levels_item_data in self.levels:
            levels_item = levels_item_data.to_dict()
            levels.append(levels_item)

        max_ = self.max_

        min_ = self.min_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "levels": levels,
                "max": max_,
                "min": min_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rubric_level_in import RubricLevelIn  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        levels = []
        _levels = d.pop("levels")
        for levels_item_data in _levels:
            levels_item = RubricLevelIn.from_dict(levels_item_data)

            levels.append(levels_item)

        max_ = d.pop("max")

        min_ = d.pop("min")

        rubric_read = cls(
            id=id,
            levels=levels,
            max_=max_,
            min_=min_,
        )

        rubric_read.additional_properties = d
        return rubric_read

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
