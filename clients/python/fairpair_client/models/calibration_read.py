from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CalibrationRead")


@_attrs_define
class CalibrationRead:
    """Which refit the calibrated scores come from.

    Attributes:
        computed_at (datetime.datetime):
        rubric (str):
        clipped (bool | Unset): calibrated scores are raw − offset and are not clipped to the rubric Default: False.
    """

    computed_at: datetime.datetime
    rubric: str
    clipped: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        computed_at = self.computed_at.isoformat()

        rubric = self.rubric

        clipped = self.clipped

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "computed_at": computed_at,
                "rubric": rubric,
            }
        )
        if clipped is not UNSET:
            field_dict["clipped"] = clipped

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        computed_at = datetime.datetime.fromisoformat(d.pop("computed_at"))

        rubric = d.pop("rubric")

        clipped = d.pop("clipped", UNSET)

        calibration_read = cls(
            computed_at=computed_at,
            rubric=rubric,
            clipped=clipped,
        )

        calibration_read.additional_properties = d
        return calibration_read

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
