from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rubric_level_in import RubricLevelIn


T = TypeVar("T", bound="RubricIn")


@_attrs_define
class RubricIn:
    """A scale from `min` to `max` (default: the lowest and highest level) with its levels.

    Attributes:
        levels (list[RubricLevelIn]):
        max_ (float | None | Unset):
        min_ (float | None | Unset):
    """

    levels: list[RubricLevelIn]
    max_: float | None | Unset = UNSET
    min_: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        levels = []
        for levels_item_data in self.levels:
            levels_item = levels_item_data.to_dict()
            levels.append(levels_item)

        max_: float | None | Unset
        if isinstance(self.max_, Unset):
            max_ = UNSET
        else:
            max_ = self.max_

        min_: float | None | Unset
        if isinstance(self.min_, Unset):
            min_ = UNSET
        else:
            min_ = self.min_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "levels": levels,
            }
        )
        if max_ is not UNSET:
            field_dict["max"] = max_
        if min_ is not UNSET:
            field_dict["min"] = min_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rubric_level_in import RubricLevelIn  # noqa: PLC0415

        d = dict(src_dict)
        levels = []
        _levels = d.pop("levels")
        for levels_item_data in _levels:
            levels_item = RubricLevelIn.from_dict(levels_item_data)

            levels.append(levels_item)

        def _parse_max_(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_ = _parse_max_(d.pop("max", UNSET))

        def _parse_min_(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_ = _parse_min_(d.pop("min", UNSET))

        rubric_in = cls(
            levels=levels,
            max_=max_,
            min_=min_,
        )

        return rubric_in
