from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LabelTarget")


@_attrs_define
class LabelTarget:
    """How many more labels bring the anchored interval to a half-width.

    Attributes:
        half_width (float):
        more_labels (int):
    """

    half_width: float
    more_labels: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        half_width = self.half_width

        more_labels = self.more_labels

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "half_width": half_width,
                "more_labels": more_labels,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        half_width = d.pop("half_width")

        more_labels = d.pop("more_labels")

        label_target = cls(
            half_width=half_width,
            more_labels=more_labels,
        )

        label_target.additional_properties = d
        return label_target

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
